# tests/tune.cmake - included from tests/CMakeLists.txt (issue 22)
# `hugepolicy tune`: the statistics on fixed inputs, then the command on
# perf's fill64 and on tune_fake, whose cost depends on its configuration.
add_executable(test_tune_units test_tune_units.c ${CMAKE_SOURCE_DIR}/integration/tune_stats.c)
target_link_libraries(test_tune_units PRIVATE m)
add_test(NAME tune_median_of_fixed_inputs COMMAND test_tune_units median)
add_test(NAME tune_paired_ratios_and_bootstrap_interval_on_fixed_inputs COMMAND test_tune_units paired)
add_test(NAME tune_stop_rule_wants_every_interval_within_the_width COMMAND test_tune_units precise)
add_test(NAME tune_recommends_the_best_whole_interval_below_1 COMMAND test_tune_units pick)
add_test(NAME tune_shuffle_is_a_permutation_fixed_per_round COMMAND test_tune_units shuffle)

add_executable(tune_fake tune_fake.c)
set(TUNE_SH sh ${CMAKE_CURRENT_SOURCE_DIR}/test_tune.sh ${CMAKE_BINARY_DIR} $<TARGET_FILE:tune_fake>)
set(TUNE_TESTS)
foreach(C IN ITEMS
    "fill64:tune_fill64_prints_a_table_with_intervals_and_a_recommendation"
    "sleep:tune_recommends_the_configuration_that_runs_fastest"
    "metric:tune_recommends_by_a_number_the_command_prints"
    "stderr:tune_metric_falls_back_to_standard_error"
    "none:tune_says_when_no_configuration_is_resolvably_better"
    "peer:tune_recommends_a_native_peer_with_its_environment"
    "same:tune_check_output_passes_identical_outputs"
    "differs:tune_check_output_names_configurations_whose_output_differs"
    "failed:tune_marks_failed_runs_and_exits_1"
    "baseline:tune_stops_when_the_baseline_fails"
    "options:tune_parses_valued_options_and_stops_at_the_command"
    "usage:tune_usage_errors_exit_2"
    "files:tune_writes_csv_and_svg"
    "peaks:tune_measures_peak_memory_and_huge_pages_of_the_command"
    "progress:tune_prints_progress_only_on_a_terminal"
    "settle:tune_settles_memory_before_each_run_as_root"
    "interrupt:tune_sigterm_ends_the_running_command_and_reports")
  string(REPLACE ":" ";" P "${C}")
  list(GET P 0 CASE)
  list(GET P 1 NAME)
  add_test(NAME ${NAME} COMMAND ${TUNE_SH} ${CASE})
  list(APPEND TUNE_TESTS ${NAME})
endforeach()
# tune runs every hugetlb configuration whenever the pool has room, so a
# pool another test set up for itself would be drained: every tune test
# holds the pool lock
set_tests_properties(${TUNE_TESTS} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
  RESOURCE_LOCK hugetlb_pool ENVIRONMENT "HUGEPOLICY_LIBRARY=;HUGEPOLICY_REPORT_PID=;HUGEPOLICY_REPORT_STDERR=;LD_PRELOAD=")
# the THP tests switch `enabled`: the held buffer needs it as it is
set_tests_properties(tune_measures_peak_memory_and_huge_pages_of_the_command PROPERTIES
  RESOURCE_LOCK "hugetlb_pool;thp_enabled")
# the pool by a delta, given back (tests/hugetlb_pool.sh); without it, skipped
add_test(NAME tune_runs_hugetlb_where_the_pool_has_room_and_counts_its_pages
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hugetlb_pool.sh 40 ${TUNE_SH} pool)
add_test(NAME tune_skips_hugetlb_where_the_pool_is_empty COMMAND ${TUNE_SH} nopool)
set_tests_properties(tune_runs_hugetlb_where_the_pool_has_room_and_counts_its_pages
  tune_skips_hugetlb_where_the_pool_is_empty PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
  RESOURCE_LOCK hugetlb_pool
  ENVIRONMENT "HUGEPOLICY_LIBRARY=;HUGEPOLICY_REPORT_PID=;HUGEPOLICY_REPORT_STDERR=;LD_PRELOAD=")
