# tests/report.cmake - included from tests/CMakeLists.txt
# Where hugepolicy's lines and exit report go (never into a host's file on a
# reused fd 2, nor into a parent's file a child inherits as fd 2; still to
# stderr when the program closed it before exit; HUGEPOLICY_LOG), and that
# echoed values and program names stay one printable line each (issue 11,
# items 4, 10, 14; issue 20, items 1 and 6).
add_executable(test_report_host test_report_host.c)
target_link_libraries(test_report_host PRIVATE hugepolicy)
set(REPORT_SH sh ${CMAKE_CURRENT_SOURCE_DIR}/test_report.sh)
foreach(B ${BACKENDS})
  add_test(NAME ${B}_report_never_writes_into_a_host_file_on_fd_2 COMMAND ${REPORT_SH} fd2 ${CMAKE_BINARY_DIR} ${B})
  add_test(NAME ${B}_no_line_lands_in_a_file_a_parent_opened_on_fd_2 COMMAND ${REPORT_SH} tree ${CMAKE_BINARY_DIR} ${B})
  add_test(NAME ${B}_child_hugetlb_fallback_line_never_lands_in_a_parents_file
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hugetlb_pool.sh 8 ${REPORT_SH} tree-fallback ${CMAKE_BINARY_DIR} ${B} ${Python3_EXECUTABLE})
  set_tests_properties(${B}_child_hugetlb_fallback_line_never_lands_in_a_parents_file PROPERTIES
    RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77)
endforeach()
# the keys (issue 21, item 4): text and JSON alike, each in hugepolicy(7)'s
# table with its type; and the table holds no key the library lacks
set(KEYS_PY ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_report_keys.py)
foreach(B ${BACKENDS})
  add_test(NAME ${B}_report_text_and_json_have_the_same_keys_each_typed_as_man7_says
    COMMAND ${KEYS_PY} backend ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR} ${B})
  # its runs take pool pages (pages=hugetlb, a 32 MiB reserve, a 1 GiB page
  # for mimalloc's own reserve) whenever the pool has room: another test's
  set_tests_properties(${B}_report_text_and_json_have_the_same_keys_each_typed_as_man7_says PROPERTIES
    RESOURCE_LOCK hugetlb_pool)
endforeach()
# (hugepages-64kB madvise, where the kernel has it, for the mTHP keys)
add_test(NAME man7_documents_only_report_keys_the_library_has
  COMMAND ${POOL} 24 sh ${CMAKE_CURRENT_SOURCE_DIR}/mthp_enabled.sh -o 64 madvise
    ${KEYS_PY} coverage ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(man7_documents_only_report_keys_the_library_has PROPERTIES
  RESOURCE_LOCK "hugetlb_pool;thp_enabled" RUN_SERIAL TRUE SKIP_RETURN_CODE 77)
add_test(NAME exit_report_reaches_stderr_when_the_program_closes_it_first
  COMMAND ${REPORT_SH} exit-closed ${CMAKE_BINARY_DIR} ${Python3_EXECUTABLE})
add_test(NAME exit_report_of_a_process_that_ends_by_underscore_exit_or_quick_exit
  COMMAND ${REPORT_SH} exit-skips ${CMAKE_BINARY_DIR})
add_test(NAME long_backend_variables_are_cut_and_the_sentence_kept COMMAND ${REPORT_SH} long-values ${CMAKE_BINARY_DIR})
add_test(NAME hugepolicy_log_gets_every_line_and_the_report COMMAND ${REPORT_SH} log ${CMAKE_BINARY_DIR})
add_test(NAME bad_env_values_with_control_bytes_print_one_whole_line_each COMMAND ${REPORT_SH} env ${CMAKE_BINARY_DIR})
add_test(NAME program_name_with_control_and_invalid_utf8_bytes_keeps_lines_and_json_valid
  COMMAND ${REPORT_SH} name ${CMAKE_BINARY_DIR} ${Python3_EXECUTABLE})
# white-box: report.c's escaping (text and JSON) and log.c's path templates
add_executable(test_report_units test_report_units.c $<TARGET_OBJECTS:hp_policy>)
target_include_directories(test_report_units PRIVATE ${CMAKE_SOURCE_DIR}/include)
add_test(NAME escaped_text_and_json_are_printable_and_valid_utf8 COMMAND test_report_units escape)
add_test(NAME hugepolicy_log_path_expands_pid_and_resolves_relative_paths COMMAND test_report_units log)
set_tests_properties(hugepolicy_log_path_expands_pid_and_resolves_relative_paths PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME hugepolicy_log_is_refused_in_set_user_id_programs COMMAND ${REPORT_SH} setuid ${CMAKE_BINARY_DIR})
set_tests_properties(hugepolicy_log_is_refused_in_set_user_id_programs PROPERTIES SKIP_RETURN_CODE 77)
# the report prints a reason whole, past the 192 bytes of struct
# hugepolicy_stats.config (a reservation's reason was cut mid-word there)
add_test(NAME report_prints_the_reservation_reason_whole
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hugetlb_pool.sh 8 $<TARGET_FILE:test_report_host>)
set_tests_properties(report_prints_the_reservation_reason_whole PROPERTIES
  ENVIRONMENT "HUGEPOLICY_BACKEND=mimalloc;HUGEPOLICY_PAGES=hugetlb;HUGEPOLICY_RESERVE=1T;HUGEPOLICY_STATS=1"
  PASS_REGULAR_EXPRESSION "\n  backend.reserve_reason +[^\n]*reservation of 1099511627776 B from the 2 MiB pool failed: [^\n]*\\(Cannot allocate memory\\)\n"
  RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77)
# a refused reservation gives the size it asked the pool for, rounded down to
# whole segments as the success line says (1 TiB + 16 MiB asks for 1 TiB)
add_test(NAME mimalloc_refused_reservation_says_the_rounded_size
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hugetlb_pool.sh 8 $<TARGET_FILE:test_report_host>)
set_tests_properties(mimalloc_refused_reservation_says_the_rounded_size PROPERTIES
  ENVIRONMENT "HUGEPOLICY_BACKEND=mimalloc;HUGEPOLICY_PAGES=hugetlb;HUGEPOLICY_RESERVE=1048592M;HUGEPOLICY_STATS=1"
  PASS_REGULAR_EXPRESSION "reservation of 1099511627776 B \\(HUGEPOLICY_RESERVE rounded down to whole 32 MiB segments\\) from the 2 MiB pool failed: "
  RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77)
# white box (tests/test_exit_guard.c): _exit where the report's figures
# cannot be had (a lock held in the interrupted code) ends the process
add_executable(test_exit_guard test_exit_guard.c $<TARGET_OBJECTS:hugepolicy_objs> $<TARGET_OBJECTS:hp_policy>)
add_dependencies(test_exit_guard hpje_archive)
target_include_directories(test_exit_guard PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(test_exit_guard PRIVATE ${HPJE_DIR}/libhpje.a dl m pthread)
# NAME:MODE:EXPECT (tests/test_exit_guard.sh); a hang is the TIMEOUT
set(EXIT_GUARD_TESTS)
foreach(C IN ITEMS
    "exit_report_that_cannot_gather_its_figures_says_so_and_the_process_ends:blocked:line:no exit report: its figures did not come within 2 s"
    "exit_report_under_the_guard_is_whole_when_the_figures_come:free:report"
    "exit_report_without_a_timer_to_guard_it_says_so_and_the_process_ends:no-timer:line:no exit report: no timer to guard the gathering of its figures in _exit (EAGAIN)"
    "exit_status_is_the_one_given_to_underscore_exit_when_a_signal_comes_during_the_report:signalled:report"
    "exit_status_is_the_first_underscore_exit_s_when_another_thread_calls_it_during_the_report:threads:report"
    "exit_status_is_underscore_exit_s_when_another_thread_calls_exit_during_the_report:threads-exit:report")
  string(FIND "${C}" ":" A)
  string(SUBSTRING "${C}" 0 ${A} NAME)
  math(EXPR A "${A} + 1")
  string(SUBSTRING "${C}" ${A} -1 REST)
  string(FIND "${REST}" ":" B)
  string(SUBSTRING "${REST}" 0 ${B} MODE)
  math(EXPR B "${B} + 1")
  string(SUBSTRING "${REST}" ${B} -1 EXPECT)
  add_test(NAME ${NAME} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_exit_guard.sh
    $<TARGET_FILE:test_exit_guard> ${MODE} "${EXPECT}")
  list(APPEND EXIT_GUARD_TESTS ${NAME})
endforeach()
set_tests_properties(${EXIT_GUARD_TESTS} PROPERTIES TIMEOUT 30)
