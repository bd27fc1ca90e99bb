# packaging/cpack_check.cmake - read by cpack (CPACK_PROJECT_CONFIG_FILE):
# a .deb installs to /usr, so the tree should have been configured for /usr
# (Debian's multiarch libdir, the CLI's built-in library directory).
if(CPACK_GENERATOR STREQUAL "DEB" AND NOT CPACK_HUGEPOLICY_CONFIGURED_PREFIX STREQUAL "/usr")
  message(WARNING "hugepolicy: this tree is configured for ${CPACK_HUGEPOLICY_CONFIGURED_PREFIX}; "
    "configure with -DCMAKE_INSTALL_PREFIX=/usr for a Debian package "
    "(multiarch libdir lib/<triplet>)")
endif()
