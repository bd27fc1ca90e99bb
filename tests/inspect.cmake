# tests/inspect.cmake - included from tests/CMakeLists.txt (issue 22)
# `hugepolicy inspect`: the smaps reader on fixtures (tests/fixtures/inspect),
# then the command on live processes: a 64 MiB MADV_HUGEPAGE buffer, a
# process under `hugepolicy run`, and processes that are not there or not
# readable.
add_executable(test_inspect_units test_inspect_units.c ${CMAKE_SOURCE_DIR}/integration/inspect_smaps.c
  $<TARGET_OBJECTS:hp_policy>)
target_include_directories(test_inspect_units PRIVATE ${CMAKE_SOURCE_DIR}/include)
set(INSPECT_FIXTURES ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/inspect)
add_test(NAME inspect_sorts_mappings_into_kinds COMMAND test_inspect_units kinds ${INSPECT_FIXTURES})
add_test(NAME inspect_names_madv_nohugepage COMMAND test_inspect_units nohugepage ${INSPECT_FIXTURES})
add_test(NAME inspect_names_thp_disabled_for_the_process COMMAND test_inspect_units thp_off ${INSPECT_FIXTURES})
add_test(NAME inspect_names_unaligned_and_small_mappings COMMAND test_inspect_units unaligned ${INSPECT_FIXTURES})
add_test(NAME inspect_names_sparse_mappings COMMAND test_inspect_units sparse ${INSPECT_FIXTURES})
add_test(NAME inspect_names_mappings_without_madv_hugepage COMMAND test_inspect_units not_advised ${INSPECT_FIXTURES})

add_executable(inspect_hold inspect_hold.c)
set(INSPECT_SH sh ${CMAKE_CURRENT_SOURCE_DIR}/test_inspect.sh ${CMAKE_BINARY_DIR} $<TARGET_FILE:inspect_hold>)
add_test(NAME inspect_json_names_a_64mib_madv_hugepage_buffer COMMAND ${INSPECT_SH} thp)
add_test(NAME inspect_shows_hugepolicy_backend_and_mode COMMAND ${INSPECT_SH} hugepolicy)
add_test(NAME inspect_says_backend_unknown_when_environ_was_overwritten COMMAND ${INSPECT_SH} blank)
add_test(NAME inspect_missing_process_is_one_line_and_status_1 COMMAND ${INSPECT_SH} missing)
add_test(NAME inspect_unreadable_process_is_one_line_and_status_1 COMMAND ${INSPECT_SH} unreadable)
add_test(NAME inspect_usage_errors_exit_2 COMMAND ${INSPECT_SH} usage)
add_test(NAME inspect_watch_prints_again_until_the_process_ends COMMAND ${INSPECT_SH} watch)
set_tests_properties(inspect_json_names_a_64mib_madv_hugepage_buffer inspect_shows_hugepolicy_backend_and_mode
  inspect_says_backend_unknown_when_environ_was_overwritten
  inspect_missing_process_is_one_line_and_status_1 inspect_unreadable_process_is_one_line_and_status_1
  inspect_usage_errors_exit_2 inspect_watch_prints_again_until_the_process_ends
  PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)
# THP tests switch `enabled`: the buffer needs it as it is for the whole test
set_tests_properties(inspect_json_names_a_64mib_madv_hugepage_buffer PROPERTIES RESOURCE_LOCK thp_enabled)
