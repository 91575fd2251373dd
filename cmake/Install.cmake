# `cmake --install build --prefix P` (and the .tar.gz / .deb that `cpack` makes of the same files):
#   P/bin/occbench, P/bin/occbench_gbench         the commands
#   P/share/occbench/{configs,examples,plots}     the shipped configs with their schema, the examples,
#                                                 the plotting scripts; an installed occbench finds
#                                                 them here (data_dir(), harness/core/files.hpp)
#   P/share/doc/occbench/                         README.md and docs/
#   P/include/occbench/, P/lib/, P/lib/cmake/occbench/
#                                                 the harness's layers as a CMake package, as nvbench
#                                                 and Google Benchmark install theirs:
#                                                 find_package(occbench) gives occbench::cli, ...,
#                                                 occbench::kernels (a program of your own with your
#                                                 families beside the built-in ones), and
#                                                 occbench::launch (tuned kernels in an
#                                                 application, launch/launch.hpp).
include(CMakePackageConfigHelpers)
set(occbench_data ${CMAKE_INSTALL_DATADIR}/occbench)

install(TARGETS occbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET occbench_gbench)
  install(TARGETS occbench_gbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY configs/ DESTINATION ${occbench_data}/configs)
install(DIRECTORY examples/ DESTINATION ${occbench_data}/examples)
install(PROGRAMS plots/occplot.py DESTINATION ${occbench_data}/plots)
install(FILES plots/overlay.py plots/study.py plots/requirements.txt plots/README.md DESTINATION ${occbench_data}/plots)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# The libraries, their headers and the package files.
set(occbench_libraries occbench_kernels occbench_kernel_resources occbench_launch)
foreach(layer IN LISTS OCCBENCH_LAYERS)
  list(APPEND occbench_libraries occbench_${layer})
endforeach()
foreach(library IN LISTS occbench_libraries)  # occbench_cli -> occbench::cli
  string(REPLACE "occbench_" "" short ${library})
  set_target_properties(${library} PROPERTIES EXPORT_NAME ${short})
endforeach()
install(TARGETS ${occbench_libraries} EXPORT occbenchTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY harness/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/occbench/harness FILES_MATCHING PATTERN "*.hpp")
install(DIRECTORY kernels/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/occbench/kernels FILES_MATCHING PATTERN "*.hpp")
install(DIRECTORY launch/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/occbench/launch FILES_MATCHING PATTERN "*.hpp")
install(EXPORT occbenchTargets NAMESPACE occbench:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/occbench)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/occbenchConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/occbenchConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/occbench)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/occbenchConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/occbenchConfig.cmake ${PROJECT_BINARY_DIR}/occbenchConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/occbench)

# cpack --config build/CPackConfig.cmake: occbench-<version>-Linux.tar.gz and a .deb.
set(CPACK_PACKAGE_NAME occbench)
set(CPACK_PACKAGE_VENDOR occbench)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Verified CUDA kernel timings with occupancy, CGMA and bandwidth, from a JSON sweep")
set(CPACK_GENERATOR TGZ DEB)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "occbench")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libfmt9, libmuparser2v5, libre2-9")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-matplotlib")  # the plots; the CUDA toolkit (NVRTC, CUPTI) is not a Debian package
include(CPack)
