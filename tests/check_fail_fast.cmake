# cmake -DSOURCE=<source dir> -DWORK=<scratch dir> -DPACKAGE=fmt -DDEBIAN=libfmt-dev -P tests/check_fail_fast.cmake
# Configures occbench with one dependency hidden from CMake (CMAKE_DISABLE_FIND_PACKAGE_<PACKAGE>),
# as on a machine that lacks it: configuring must stop within 30 s, naming the Debian package and
# the command that installs it (no download tried).
cmake_minimum_required(VERSION 3.24)
file(REMOVE_RECURSE "${WORK}")
string(TIMESTAMP start "%s")
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE}" -B "${WORK}" -G Ninja -DCMAKE_DISABLE_FIND_PACKAGE_${PACKAGE}=TRUE
                        -DCMAKE_CUDA_ARCHITECTURES=90
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
string(TIMESTAMP end "%s")
math(EXPR seconds "${end} - ${start}")
if(code EQUAL 0)
  message(FATAL_ERROR "configuring without ${PACKAGE} succeeded; it must stop")
endif()
if(NOT err MATCHES "sudo apt-get install ${DEBIAN}")
  message(FATAL_ERROR "configuring without ${PACKAGE} did not say `sudo apt-get install ${DEBIAN}`:\n${out}\n${err}")
endif()
if(seconds GREATER 30)
  message(FATAL_ERROR "configuring without ${PACKAGE} took ${seconds} s to stop (at most 30)")
endif()
message(STATUS "without ${PACKAGE}, configuring stopped after ${seconds} s naming ${DEBIAN}")
