# cmake -DSOURCE=<source dir> -DWORK=<scratch dir> -DPACKAGE=fmt -DDEBIAN=libfmt-dev -P tests/check_fail_fast.cmake
# Configures occbench with one dependency hidden from CMake (CMAKE_DISABLE_FIND_PACKAGE_<PACKAGE>),
# as on a machine that lacks it: configuring must stop, naming the Debian package and the command
# that installs it, without trying a download (which hangs on a machine without the internet).
# "Without a download" is a bound on the wall time, relative to a baseline measured here, in this
# test, under the same load: the same configure with every dependency present. A stop may take at
# most twice the baseline and 10 s more (a 30 s absolute bound failed correct code on a loaded
# 2-core machine at 43-46 s); a hanging download never ends.
cmake_minimum_required(VERSION 3.24)

function(configure_seconds dir out_seconds out_code out_err)
  file(REMOVE_RECURSE "${dir}")
  string(TIMESTAMP start "%s")
  execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE}" -B "${dir}" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 ${ARGN}
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${TIMEOUT_S})
  string(TIMESTAMP end "%s")
  math(EXPR seconds "${end} - ${start}")
  set(${out_seconds} ${seconds} PARENT_SCOPE)
  set(${out_code} "${code}" PARENT_SCOPE)
  set(${out_err} "${out}\n${err}" PARENT_SCOPE)
endfunction()

set(TIMEOUT_S 600)
configure_seconds("${WORK}/baseline" baseline baseline_code baseline_err)
if(NOT baseline_code EQUAL 0)
  message(FATAL_ERROR "the baseline configure (every dependency present) failed:\n${baseline_err}")
endif()
math(EXPR bound "2 * ${baseline} + 10")
math(EXPR TIMEOUT_S "10 * ${bound}")  # long enough for any load; a download that hangs still ends here
configure_seconds("${WORK}/without" seconds code err -DCMAKE_DISABLE_FIND_PACKAGE_${PACKAGE}=TRUE)
file(REMOVE_RECURSE "${WORK}")
if(code EQUAL 0)
  message(FATAL_ERROR "configuring without ${PACKAGE} succeeded; it must stop")
endif()
if(NOT err MATCHES "sudo apt-get install ${DEBIAN}")
  message(FATAL_ERROR "configuring without ${PACKAGE} did not say `sudo apt-get install ${DEBIAN}`:\n${err}")
endif()
if(seconds GREATER bound)
  message(FATAL_ERROR "configuring without ${PACKAGE} took ${seconds} s to stop; at most ${bound} s (twice the baseline "
                      "configure's ${baseline} s, plus 10 s): did it try a download?")
endif()
message(STATUS "without ${PACKAGE}, configuring stopped after ${seconds} s naming ${DEBIAN} (baseline ${baseline} s, bound ${bound} s)")
