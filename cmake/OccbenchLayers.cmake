# The harness's layers, lowest first (docs/layout.md). Each folder harness/<layer>/ is one static
# library, occbench_<layer>, that links the layer below it and so every layer under that. Data
# flows one way: a file may include headers of its own layer and of the layers below, never above;
# check_layer_includes.cmake fails the build where one does.
set(OCCBENCH_LAYERS core family model measure compile sweep records search run cli)

# The layers a file of `layer` may include: itself and those below it.
function(occbench_layers_up_to layer out)
  list(FIND OCCBENCH_LAYERS ${layer} index)
  if(index LESS 0)
    message(FATAL_ERROR "occbench: no layer '${layer}'; the layers are ${OCCBENCH_LAYERS}")
  endif()
  list(SUBLIST OCCBENCH_LAYERS 0 ${index} below)
  list(APPEND below ${layer})
  set(${out} ${below} PARENT_SCOPE)
endfunction()

# A build step of `target` that checks the includes of `files` against `allowed` layers
# (ALLOW_KERNELS: kernels/ headers too; then optionally "a:b|c:d", pairs of modules that may still
# include each other).
function(occbench_check_includes target name allowed files allow_kernels)
  set(known_circles "${ARGN}")
  set(stamp ${CMAKE_CURRENT_BINARY_DIR}/${target}.layer_check)
  string(REPLACE ";" "|" files_arg "${files}")
  string(REPLACE ";" "|" allowed_arg "${allowed}")
  add_custom_command(
    OUTPUT ${stamp}
    COMMAND ${CMAKE_COMMAND} -DNAME=${name} -DALLOWED=${allowed_arg} -DALLOW_KERNELS=${allow_kernels} -DKNOWN_CIRCLES=${known_circles}
            -DFILES=${files_arg} -DSTAMP=${stamp} -P ${PROJECT_SOURCE_DIR}/cmake/check_layer_includes.cmake
    DEPENDS ${files} ${PROJECT_SOURCE_DIR}/cmake/check_layer_includes.cmake
    COMMENT "Checking that ${name} includes only harness/{${allowed}}"
    VERBATIM)
  add_custom_target(${target}_layer_check DEPENDS ${stamp})
  add_dependencies(${target} ${target}_layer_check)
endfunction()

# occbench_layer(<layer> [LINKS <libraries>...] [ALLOW_KERNELS] [KNOWN_CIRCLES <a:b>...]) in
# harness/<layer>/CMakeLists.txt: occbench_<layer> from the folder's .cpp and .cu files, linking
# the layer below and LINKS. KNOWN_CIRCLES: pairs of the layer's modules that include each other
# today (debt to pay, docs/layout.md); any other pair fails the build.
function(occbench_layer layer)
  cmake_parse_arguments(ARG "ALLOW_KERNELS" "" "LINKS;KNOWN_CIRCLES" ${ARGN})
  # The folder's files and its sub-folders' (measure/counters, measure/energy): one layer.
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/*.cu)
  file(GLOB_RECURSE headers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.hpp)
  list(REMOVE_ITEM sources ${CMAKE_CURRENT_SOURCE_DIR}/main.cpp)  # the occbench executable's
  set(target occbench_${layer})
  add_library(${target} STATIC ${sources})
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                                              $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/occbench>)
  # -pthread in every layer (re2 brings it to some): one precompiled header then serves them all.
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -pthread>)
  if(OCCBENCH_PCH)  # a first build's lever: the heavy headers parsed once, not once per file
    if(layer STREQUAL "core")
      target_precompile_headers(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${PROJECT_SOURCE_DIR}/harness/core/precompiled.hpp>)
    else()  # core's, compiled once
      target_precompile_headers(${target} REUSE_FROM occbench_core)
    endif()
  endif()
  if(OCCBENCH_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  endif()
  list(FIND OCCBENCH_LAYERS ${layer} index)
  if(index GREATER 0)
    math(EXPR below "${index} - 1")
    list(GET OCCBENCH_LAYERS ${below} below_layer)
    target_link_libraries(${target} PUBLIC occbench_${below_layer})
  endif()
  if(ARG_LINKS)
    target_link_libraries(${target} PUBLIC ${ARG_LINKS})
  endif()
  occbench_layers_up_to(${layer} allowed)
  set(allow_kernels OFF)
  if(ARG_ALLOW_KERNELS)
    set(allow_kernels ON)
  endif()
  string(REPLACE ";" "|" known_circles "${ARG_KNOWN_CIRCLES}")
  occbench_check_includes(${target} "harness/${layer}" "${allowed}" "${sources};${headers}" ${allow_kernels} "${known_circles}")
endfunction()
