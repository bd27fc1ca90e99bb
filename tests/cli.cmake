# tests/cli.cmake - included from tests/CMakeLists.txt
# The `hugepolicy` CLI (issue 10): run's option scan, --stats VALUE,
# --dry-run, HUGEPOLICY_LIBRARY checks, the versioned soname, --version,
# reports from the command only, and a second preloaded copy staying inert.
set(CLI_SH sh ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME run_stops_at_the_first_non_option
  COMMAND ${CLI_SH}/test_cli_first_non_option.sh ${CMAKE_BINARY_DIR})
add_test(NAME run_stats_takes_a_separate_value
  COMMAND ${CLI_SH}/test_cli_stats_value.sh ${CMAKE_BINARY_DIR})
add_test(NAME run_dry_run_prints_env_and_command_without_running_it
  COMMAND ${CLI_SH}/test_cli_dry_run.sh ${CMAKE_BINARY_DIR})
add_test(NAME run_refuses_a_library_that_is_not_hugepolicy
  COMMAND ${CLI_SH}/test_cli_library.sh ${CMAKE_BINARY_DIR})
add_test(NAME run_preloads_the_versioned_soname
  COMMAND ${CLI_SH}/test_cli_soname.sh ${CMAKE_BINARY_DIR} ${CMAKE_INSTALL_FULL_LIBDIR})
add_test(NAME version_prints_library_jemalloc_mimalloc_glibc
  COMMAND ${CLI_SH}/test_cli_version.sh ${CMAKE_BINARY_DIR} ${PROJECT_VERSION})
add_test(NAME reports_come_from_the_command_not_its_children
  COMMAND ${CLI_SH}/test_cli_reports.sh ${CMAKE_BINARY_DIR} command)
add_test(NAME run_inherit_makes_every_descendant_report
  COMMAND ${CLI_SH}/test_cli_reports.sh ${CMAKE_BINARY_DIR} inherit)
add_test(NAME a_second_preloaded_copy_stays_inert
  COMMAND ${CLI_SH}/test_cli_two_copies.sh ${CMAKE_BINARY_DIR})
add_test(NAME nested_run_prints_only_the_commands_lines
  COMMAND ${CLI_SH}/test_cli_nested.sh ${CMAKE_BINARY_DIR})
# what the command's environment would otherwise change
set_tests_properties(run_stops_at_the_first_non_option run_stats_takes_a_separate_value
  run_dry_run_prints_env_and_command_without_running_it run_refuses_a_library_that_is_not_hugepolicy
  run_preloads_the_versioned_soname version_prints_library_jemalloc_mimalloc_glibc
  reports_come_from_the_command_not_its_children run_inherit_makes_every_descendant_report
  a_second_preloaded_copy_stays_inert nested_run_prints_only_the_commands_lines
  PROPERTIES ENVIRONMENT "HUGEPOLICY_LIBRARY=;HUGEPOLICY_REPORT_PID=;HUGEPOLICY_REPORT_STDERR=;LD_PRELOAD=")
# probe --measure: the host's fault costs, as auto measures them (issue 19)
add_test(NAME probe_measure_prints_positive_fault_costs
  COMMAND ${CLI_SH}/test_probe_measure.sh ${CMAKE_BINARY_DIR})
