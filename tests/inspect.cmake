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

# the live report (issue 22: "a process under hugepolicy shows its report"):
# the seqlock reader and the refused line as units, then the command on a
# process of each backend that holds a hugetlb (or THP) block and its own
# report, a region made after it, and reads that are refused
add_executable(test_live_units test_live_units.c ${CMAKE_SOURCE_DIR}/integration/inspect_live.c
  ${CMAKE_SOURCE_DIR}/integration/live_block.c
  $<TARGET_OBJECTS:hp_policy>)
target_include_directories(test_live_units PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(test_live_units PRIVATE pthread)
foreach(C torn racing busy layout unpublished refused)
  set(N_torn live_read_retries_a_torn_write_and_returns_one_write_whole)
  set(N_racing live_read_never_returns_a_mix_of_two_writes_under_a_racing_writer)
  set(N_busy live_read_gives_up_with_eagain_when_every_try_meets_a_write)
  set(N_layout live_read_trusts_no_block_of_another_layout)
  set(N_unpublished live_read_says_nothing_published_before_start_up)
  set(N_refused live_refused_line_names_both_reads_and_their_errors)
  add_test(NAME ${N_${C}} COMMAND test_live_units ${C})
endforeach()

add_executable(inspect_live_hold inspect_live_hold.c)
target_link_libraries(inspect_live_hold PRIVATE hugepolicy)
foreach(B system jemalloc mimalloc)
  add_test(NAME inspect_shows_the_live_report_of_a_${B}_process
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hugetlb_pool.sh 8 ${INSPECT_SH} live $<TARGET_FILE:inspect_live_hold> ${B})
  set_tests_properties(inspect_shows_the_live_report_of_a_${B}_process PROPERTIES
    RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77 TIMEOUT 60)
endforeach()
add_test(NAME inspect_self_says_hugepolicy_is_not_loaded COMMAND ${INSPECT_SH} self)
add_test(NAME inspect_reads_the_live_report_of_a_library_replaced_on_disk COMMAND ${INSPECT_SH} replaced)
add_test(NAME inspect_reads_the_live_report_through_proc_mem_when_process_vm_readv_is_refused
  COMMAND ${INSPECT_SH} mem $<TARGET_FILE:inspect_live_hold>)
set_tests_properties(inspect_self_says_hugepolicy_is_not_loaded inspect_reads_the_live_report_of_a_library_replaced_on_disk
  inspect_reads_the_live_report_through_proc_mem_when_process_vm_readv_is_refused
  PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)
