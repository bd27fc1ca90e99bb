# packaging/install.cmake - what `cmake --install` puts where, in three
# components that are also the three Debian packages (packaging/deb.cmake):
#   Runtime      libhugepolicy.so.0 and its real file          libhugepolicy0
#   Development  header, libhugepolicy.so, CMake package, .pc, hugepolicy(3)
#                                                              libhugepolicy-dev
#   CLI          the hugepolicy command, hugepolicy(1), hugepolicy(7),
#                LICENSE and THIRD-PARTY-NOTICES in the doc dir  hugepolicy
# A plain `cmake --install` installs all three.
set(HP_DEB_RUNTIME_NAME libhugepolicy${PROJECT_VERSION_MAJOR})
set(HP_DEB_DEVELOPMENT_NAME libhugepolicy-dev)
set(HP_DEB_CLI_NAME hugepolicy)
install(TARGETS hugepolicy EXPORT hugepolicyTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Runtime
    NAMELINK_COMPONENT Development
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT Development)
install(TARGETS hugepolicy-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT CLI)

# CMake package: find_package(hugepolicy) -> hugepolicy::hugepolicy
export(EXPORT hugepolicyTargets NAMESPACE hugepolicy::
  FILE ${CMAKE_BINARY_DIR}/hugepolicyTargets.cmake)   # find_package from the build tree too
install(EXPORT hugepolicyTargets NAMESPACE hugepolicy::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hugepolicy COMPONENT Development)
include(CMakePackageConfigHelpers)
configure_package_config_file(integration/hugepolicyConfig.cmake.in
  ${CMAKE_BINARY_DIR}/hugepolicyConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hugepolicy)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/hugepolicyConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/hugepolicyConfig.cmake ${CMAKE_BINARY_DIR}/hugepolicyConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hugepolicy COMPONENT Development)

# pkg-config: hugepolicy.pc is written when it is installed, from the prefix
# of that install (`cmake --install --prefix P` or the configured
# CMAKE_INSTALL_PREFIX; cpack's /usr) joined with the configured
# CMAKE_INSTALL_LIBDIR / INCLUDEDIR (absolute ones are kept as they are) -
# the CMAKE_INSTALL_FULL_* of that install, as mimalloc writes its .pc.
# Configure with -DCMAKE_INSTALL_PREFIX=/usr for Debian's multiarch libdir
# (lib/x86_64-linux-gnu).  DESTDIR stages the file, never enters it.
configure_file(packaging/pkgconfig.cmake.in ${CMAKE_BINARY_DIR}/hugepolicy-pkgconfig.cmake @ONLY)
install(SCRIPT ${CMAKE_BINARY_DIR}/hugepolicy-pkgconfig.cmake COMPONENT Development)

# licence and notices: the doc dir (share/doc/hugepolicy) of every install;
# each Debian package also carries them as /usr/share/doc/<package>/copyright
install(FILES LICENSE THIRD-PARTY-NOTICES DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT CLI)
foreach(C Runtime Development CLI)
  string(TOUPPER ${C} U)
  install(FILES packaging/copyright
    DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${HP_DEB_${U}_NAME}
    COMPONENT ${C} EXCLUDE_FROM_ALL)
endforeach()
