# packaging/deb.cmake - Debian packages with CPack, one per install
# component (packaging/install.cmake):
#   libhugepolicy0     the library (soname libhugepolicy.so.0): what a host
#                      that links it, or `hugepolicy run`, needs at run time
#   libhugepolicy-dev  header, libhugepolicy.so, CMake package, .pc, man 3
#   hugepolicy         the CLI, man 1 and 7; depends on libhugepolicy0, so
#                      installing it is enough for `hugepolicy run`
# Build (from a tree configured with -DCMAKE_INSTALL_PREFIX=/usr, which
# gives Debian's multiarch libdir):
#   cmake -S . -B build-deb -DCMAKE_INSTALL_PREFIX=/usr -DBUILD_TESTING=OFF
#   cmake --build build-deb -j2 --target hugepolicy hugepolicy-cli hugepolicy_man
#   (cd build-deb && cpack -G DEB)         # or: cmake --build build-deb --target package
#   sudo apt install ./build-deb/libhugepolicy0_*.deb ./build-deb/hugepolicy_*.deb
set(HUGEPOLICY_DEB_MAINTAINER "hugepolicy maintainers <hugepolicy@example.invalid>"
  CACHE STRING "Maintainer field of the Debian packages")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hugepolicy)
set(CPACK_PACKAGE_VENDOR "hugepolicy")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${HUGEPOLICY_DEB_MAINTAINER}")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
# install with DESTDIR into the staging root and CMAKE_INSTALL_PREFIX=/usr,
# so files written at install time (hugepolicy.pc) name /usr, not the stage
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_SOURCE_DIR}/packaging/cpack_check.cmake)
set(CPACK_HUGEPOLICY_CONFIGURED_PREFIX ${CMAKE_INSTALL_PREFIX})   # read by cpack_check.cmake

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL Runtime Development CLI)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)             # NAME_VERSION-RELEASE_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)              # dpkg-shlibdeps (dpkg-dev)
set(CPACK_STRIP_FILES ON)                           # as Debian ships binaries
set(HP_DEB_VERSION "${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}")

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME ${HP_DEB_RUNTIME_NAME})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
# a shlibs file (hosts packaged against it get "libhugepolicy0 (>= VERSION)")
# and ldconfig at install and removal
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# mimalloc is dlopen'ed when HUGEPOLICY_BACKEND=mimalloc: not a link dependency
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "libmimalloc2.0")
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
"huge-page policy in front of glibc malloc, jemalloc and mimalloc
libhugepolicy replaces malloc, free and C++ new/delete of a process that
links or preloads it, dispatches to glibc's allocator, an embedded jemalloc
5.3 or mimalloc 2.0 (libmimalloc2.0, loaded only when selected), and applies
one huge-page policy (THP, the hugetlb pool, or base pages) chosen from the
environment (HUGEPOLICY_BACKEND, HUGEPOLICY_PAGES) and what the machine
offers. It says in one line per decision what it did and why, and reports
what pages the process really got.")

set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME ${HP_DEB_DEVELOPMENT_NAME})
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "${HP_DEB_RUNTIME_NAME} (= ${HP_DEB_VERSION})")
set(CPACK_COMPONENT_DEVELOPMENT_DESCRIPTION
"huge-page policy in front of malloc - development files
The header hugepolicy.h (stats, backend and page-mode introspection), the
libhugepolicy.so link, the CMake package (find_package(hugepolicy)), the
pkg-config file and hugepolicy(3).")

set(CPACK_DEBIAN_CLI_PACKAGE_NAME ${HP_DEB_CLI_NAME})
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "${HP_DEB_RUNTIME_NAME} (= ${HP_DEB_VERSION})")
set(CPACK_COMPONENT_CLI_DESCRIPTION
"huge-page policy in front of malloc - command-line tool
hugepolicy probe shows what the machine offers (THP settings, hugetlb
pools, cgroup limits) and what HUGEPOLICY_PAGES=auto would choose;
hugepolicy run runs an unmodified program with libhugepolicy preloaded.
Includes hugepolicy(1) and hugepolicy(7).")

# `cpack --config CPackSourceConfig.cmake` / target package_source: the
# sources, without build trees and results
set(CPACK_VERBATIM_VARIABLES ON)                    # values reach cpack as written here
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/\\.git/" "/build[^/]*/" "/perf/results/")

include(CPack)
