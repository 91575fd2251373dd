# cmake -DBUILD=<build dir> -DSOURCE=<source dir> -DWORK=<scratch dir> -P tests/check_install.cmake
# `cmake --install` into a prefix, the prefix moved elsewhere, then, from outside the source tree
# and with no build folder in reach: occbench --version, list, doctor (it must find its shipped
# files in the moved prefix), plan and run --dry-run of a shipped config by name, validate of an
# installed example, the files an install must hold, and a program of one's own and
# examples/launch_matmul built against the installed CMake package. Fails naming the step.
cmake_minimum_required(VERSION 3.24)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(prefix "${WORK}/prefix")
set(moved "${WORK}/moved")

function(step name)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "install check, ${name}: exit ${code}\n${out}\n${err}")
  endif()
  set(step_output "${out}${err}" PARENT_SCOPE)
endfunction()

step("cmake --install" ${CMAKE_COMMAND} --install "${BUILD}" --prefix "${prefix}")
file(RENAME "${prefix}" "${moved}")
set(occbench "${moved}/bin/occbench")
foreach(file bin/occbench share/occbench/configs/schema.json share/occbench/configs/adjacent_difference.json
             share/occbench/examples/my_scale/my_scale.cu share/occbench/plots/occplot.py share/occbench/plots/study.py
             share/doc/occbench/README.md share/doc/occbench/docs/layout.md include/occbench/harness/cli/cli.hpp
             include/occbench/kernels/families.hpp lib/cmake/occbench/occbenchConfig.cmake)
  if(NOT EXISTS "${moved}/${file}")
    message(FATAL_ERROR "install check: the install lacks ${file}")
  endif()
endforeach()

step("occbench --version" "${occbench}" --version)
step("occbench list" "${occbench}" list)
if(NOT step_output MATCHES "adjacent_difference")
  message(FATAL_ERROR "install check, occbench list: no adjacent_difference family in\n${step_output}")
endif()
# doctor exits 1 without a GPU; what matters here is where it finds the shipped files.
execute_process(COMMAND "${occbench}" doctor WORKING_DIRECTORY "${WORK}" OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT out MATCHES "ok +shipped files +${moved}/share/occbench")
  message(FATAL_ERROR "install check, occbench doctor: the shipped files are not ${moved}/share/occbench:\n${out}${err}")
endif()
step("occbench plan adjacent_difference" "${occbench}" plan adjacent_difference --gpu h100 --out "${WORK}/plan")
file(GLOB planned "${WORK}/plan/*.json")
if(NOT planned)
  message(FATAL_ERROR "install check, occbench plan: no results file in ${WORK}/plan")
endif()
step("occbench run --dry-run" "${occbench}" run stencil --dry-run)
step("occbench validate (an installed example)" "${occbench}" validate "${moved}/share/occbench/examples/my_scale/my_scale.json")

# A program of one's own, against the installed package.
step("configure a project with find_package(occbench)" ${CMAKE_COMMAND} -S "${SOURCE}/tests/install" -B "${WORK}/own"
     -G Ninja "-DCMAKE_PREFIX_PATH=${moved}")
step("build it" ${CMAKE_COMMAND} --build "${WORK}/own")
step("run it" "${WORK}/own/my_occbench" list)
step("run the application on occbench::launch" "${WORK}/own/my_app")
# examples/launch_matmul as an application of one's own builds it: its own CMakeLists, the package.
step("configure examples/launch_matmul against the package" ${CMAKE_COMMAND} -S "${SOURCE}/examples/launch_matmul"
     -B "${WORK}/launch_matmul" -G Ninja "-DCMAKE_PREFIX_PATH=${moved}")
step("build examples/launch_matmul" ${CMAKE_COMMAND} --build "${WORK}/launch_matmul")
message(STATUS "install check: the moved install works")
