# tests of packaging (issue 10): pkg-config and CMake package of an install
# to /usr (DESTDIR staging, Debian multiarch), to the configured prefix and
# to a custom prefix, with C and C++ consumers built against each and run
# without LD_LIBRARY_PATH; the man pages and the names README.md gives; the
# Debian packages.  No root, no network.  The /usr installs come from a
# second tree of this source, configured for /usr (package-usr, built once
# by the fixture; later runs rebuild it incrementally), as a distribution
# builds it.
set(PKG_DIR ${CMAKE_CURRENT_SOURCE_DIR})
set(PKG_USR_TREE ${CMAKE_BINARY_DIR}/package-usr)

add_test(NAME usr_configured_tree_builds_for_packaging
  COMMAND sh ${PKG_DIR}/test_package_tree.sh ${CMAKE_SOURCE_DIR} ${PKG_USR_TREE})
set_tests_properties(usr_configured_tree_builds_for_packaging PROPERTIES
  FIXTURES_SETUP pkg_usr_tree TIMEOUT 600)

# hugepolicy.pc
add_test(NAME install_to_usr_via_destdir_gives_a_correct_pc
  COMMAND sh ${PKG_DIR}/test_package_pc.sh usr ${PKG_USR_TREE})
add_test(NAME install_to_the_configured_prefix_via_destdir_gives_a_correct_pc
  COMMAND sh ${PKG_DIR}/test_package_pc.sh staged ${CMAKE_BINARY_DIR})
add_test(NAME install_to_a_prefix_gives_a_correct_pc
  COMMAND sh ${PKG_DIR}/test_package_pc.sh prefix ${CMAKE_BINARY_DIR})
# consumers: C and C++, find_package and pkg-config, run from the install
add_test(NAME install_to_usr_via_destdir_consumers_build_and_run
  COMMAND sh ${PKG_DIR}/test_package_consumers.sh usr ${PKG_USR_TREE} ${CMAKE_SOURCE_DIR} ${PROJECT_VERSION})
add_test(NAME install_to_a_prefix_consumers_build_and_run
  COMMAND sh ${PKG_DIR}/test_package_consumers.sh prefix ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR} ${PROJECT_VERSION})
set_tests_properties(install_to_usr_via_destdir_gives_a_correct_pc
  install_to_usr_via_destdir_consumers_build_and_run PROPERTIES FIXTURES_REQUIRED pkg_usr_tree)

# man pages
foreach(W render installed options environment api example cli)
  set(N_render man_pages_render)
  set(N_installed installed_man_pages_are_found_by_man)
  set(N_options man7_names_every_option_variable_with_its_default)
  set(N_environment man1_environment_names_every_variable)
  set(N_api man3_describes_every_function_and_struct_field)
  set(N_cli man1_describes_every_cli_option_and_command)
  set(N_example man3_example_compiles_and_runs)
  add_test(NAME ${N_${W}} COMMAND sh ${PKG_DIR}/test_package_man.sh ${W} ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
endforeach()
# README.md names only variables and CLI options that exist
add_test(NAME readme_names_only_known_variables_and_every_default
  COMMAND python3 ${PKG_DIR}/test_readme_names.py variables ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
add_test(NAME readme_gives_the_cli_only_options_its_help_lists
  COMMAND python3 ${PKG_DIR}/test_readme_names.py options ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})

# Debian packages, made by cpack in the /usr tree
add_test(NAME deb_packages_build
  COMMAND sh ${PKG_DIR}/test_package_deb.sh build ${PKG_USR_TREE} ${PROJECT_VERSION})
set_tests_properties(deb_packages_build PROPERTIES
  FIXTURES_REQUIRED pkg_usr_tree FIXTURES_SETUP pkg_debs)
add_test(NAME deb_packages_hold_soname_man_pages_and_licence
  COMMAND sh ${PKG_DIR}/test_package_deb.sh contents ${PKG_USR_TREE} ${PROJECT_VERSION})
add_test(NAME deb_control_fields_declare_depends_sections_and_shlibs
  COMMAND sh ${PKG_DIR}/test_package_deb.sh control ${PKG_USR_TREE} ${PROJECT_VERSION})
add_test(NAME deb_runtime_packages_alone_run_a_command
  COMMAND sh ${PKG_DIR}/test_package_deb.sh runtime ${PKG_USR_TREE} ${PROJECT_VERSION})
add_test(NAME deb_builds_and_its_consumers_build_and_run
  COMMAND sh -c "sh '${PKG_DIR}/test_package_consumers.sh' deb '${PKG_USR_TREE}' '${CMAKE_SOURCE_DIR}' '${PROJECT_VERSION}' '${PKG_USR_TREE}'/deb/*.deb")
set_tests_properties(deb_packages_hold_soname_man_pages_and_licence
  deb_control_fields_declare_depends_sections_and_shlibs deb_runtime_packages_alone_run_a_command
  deb_builds_and_its_consumers_build_and_run PROPERTIES FIXTURES_REQUIRED pkg_debs)
set_tests_properties(usr_configured_tree_builds_for_packaging
  install_to_usr_via_destdir_gives_a_correct_pc install_to_the_configured_prefix_via_destdir_gives_a_correct_pc
  install_to_a_prefix_gives_a_correct_pc install_to_usr_via_destdir_consumers_build_and_run
  install_to_a_prefix_consumers_build_and_run man_pages_render installed_man_pages_are_found_by_man
  man7_names_every_option_variable_with_its_default man3_describes_every_function_and_struct_field
  man1_describes_every_cli_option_and_command man3_example_compiles_and_runs
  man1_environment_names_every_variable
  readme_names_only_known_variables_and_every_default
  readme_gives_the_cli_only_options_its_help_lists
  deb_packages_build deb_packages_hold_soname_man_pages_and_licence
  deb_control_fields_declare_depends_sections_and_shlibs deb_runtime_packages_alone_run_a_command
  deb_builds_and_its_consumers_build_and_run PROPERTIES LABELS package)
