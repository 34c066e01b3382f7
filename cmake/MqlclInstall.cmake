# `cmake --install`: the library, the header and a CMake package, so that
#   find_package(mqlcl) + target_link_libraries(app PRIVATE mqlcl::mqlcl) works.
include(CMakePackageConfigHelpers)

install(TARGETS mqlcl EXPORT mqlclTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/mqlcl/mqlcl.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mqlcl)
install(EXPORT mqlclTargets NAMESPACE mqlcl:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mqlcl)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/mqlclConfig.cmake.in
  ${PROJECT_BINARY_DIR}/mqlclConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mqlcl)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mqlclConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mqlclConfig.cmake ${PROJECT_BINARY_DIR}/mqlclConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mqlcl)
