# tests/region.cmake - included from tests/CMakeLists.txt
# The huge-page region API (region/, hugepolicy.h): one behaviour per test,
# every region checked against /proc/self/smaps.  Tests that need pool
# pages add them with hugetlb_pool.sh (a delta, given back on every exit
# path) and hold the hugetlb_pool lock, as do those whose result the pool
# would change; the cgroup one nests hugetlb_cgroup.sh inside.
add_executable(test_region test_region.c)
target_include_directories(test_region PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(test_region PRIVATE hugepolicy)
set(REGION_POOL sh ${CMAKE_CURRENT_SOURCE_DIR}/hugetlb_pool.sh)
set(REGION_CG0 sh ${CMAKE_CURRENT_SOURCE_DIR}/hugetlb_cgroup.sh 0)
set(REGION $<TARGET_FILE:test_region>)

add_test(NAME region_hugetlb_with_a_pool_gets_hugetlb_pages_by_smaps COMMAND ${REGION_POOL} 8 ${REGION} hugetlb_pool)
add_test(NAME region_hugetlb_with_an_empty_pool_falls_back_to_thp COMMAND ${REGION} empty_pool)
add_test(NAME region_strict_fails_with_errno COMMAND ${REGION} strict)
add_test(NAME region_under_a_cgroup_limit_of_zero_falls_back_without_sigbus
  COMMAND ${REGION_POOL} 4 ${REGION_CG0} ${REGION} cgroup_zero)
add_test(NAME region_populate_with_1_and_n_threads_is_resident COMMAND ${REGION_POOL} 32 ${REGION} populate)
add_test(NAME region_resize_keeps_the_prefix COMMAND ${REGION_POOL} 16 ${REGION} resize)
add_test(NAME region_dontfork_and_wipeonfork_seen_from_a_child COMMAND ${REGION_POOL} 8 ${REGION} fork)
add_test(NAME region_interleave_on_one_node_is_reported_as_a_noop COMMAND ${REGION} interleave)
add_test(NAME region_info_matches_smaps COMMAND ${REGION_POOL} 24 ${REGION} info_smaps)
add_test(NAME region_without_the_malloc_backend COMMAND env -u HUGEPOLICY_BACKEND -u HUGEPOLICY_PAGES
  -u HUGEPOLICY_VERBOSE -u HUGEPOLICY_STATS -u HUGEPOLICY_LOG -u HUGEPOLICY_FAULT_COST ${REGION} no_backend)
add_test(NAME region_does_not_allocate_through_jemalloc_under_ld_preload COMMAND ${REGION} no_backend)
set_tests_properties(region_does_not_allocate_through_jemalloc_under_ld_preload PROPERTIES
  ENVIRONMENT "LD_PRELOAD=${LIB};HUGEPOLICY_BACKEND=jemalloc;REGION_BACKEND=jemalloc")
add_test(NAME region_verbose_lines_are_bounded COMMAND sh -c
  "HUGEPOLICY_VERBOSE=1 \"$0\" verbose 2>&1 >/dev/null | tee /dev/stderr | awk '/]: region / { n++ } END { print n \" region lines\"; exit !(n >= 2 && n <= 34) }'"
  ${REGION})
add_test(NAME region_without_madvise_populate_write_refuses_hugetlb COMMAND ${REGION_POOL} 8 ${REGION} old_kernel)
set_tests_properties(region_without_madvise_populate_write_refuses_hugetlb PROPERTIES
  ENVIRONMENT "LD_PRELOAD=$<TARGET_FILE:faultinject>;FI_CALL=populate;FI_MODE=from;FI_ERRNO=EINVAL")
add_test(NAME region_inherited_hugetlb_is_the_childs_own_after_fork COMMAND ${REGION_POOL} 4 ${REGION} fork_copy)
# the same where the pool is large (a CI machine's persistent pool): a cgroup
# limit of 4 pages is what the child's copy-on-write would run into
add_test(NAME region_inherited_hugetlb_under_a_cgroup_limit_is_the_childs_own_after_fork
  COMMAND ${REGION_POOL} 4 sh ${CMAKE_CURRENT_SOURCE_DIR}/hugetlb_cgroup.sh 8388608 ${REGION} fork_copy_cgroup)
add_test(NAME region_calls_from_many_threads_are_safe COMMAND ${REGION_POOL} 16 ${REGION} threads)
add_test(NAME region_with_thp_disabled_for_the_process_falls_back_to_base_pages COMMAND ${REGION} thp_off)
set(REGION_TESTS
  region_with_thp_disabled_for_the_process_falls_back_to_base_pages
  region_without_madvise_populate_write_refuses_hugetlb region_inherited_hugetlb_is_the_childs_own_after_fork
  region_inherited_hugetlb_under_a_cgroup_limit_is_the_childs_own_after_fork
  region_calls_from_many_threads_are_safe
  region_hugetlb_with_a_pool_gets_hugetlb_pages_by_smaps region_hugetlb_with_an_empty_pool_falls_back_to_thp
  region_strict_fails_with_errno region_under_a_cgroup_limit_of_zero_falls_back_without_sigbus
  region_populate_with_1_and_n_threads_is_resident region_resize_keeps_the_prefix
  region_dontfork_and_wipeonfork_seen_from_a_child region_interleave_on_one_node_is_reported_as_a_noop
  region_info_matches_smaps region_without_the_malloc_backend
  region_does_not_allocate_through_jemalloc_under_ld_preload region_verbose_lines_are_bounded)
set_tests_properties(${REGION_TESTS} PROPERTIES SKIP_RETURN_CODE 77 RESOURCE_LOCK hugetlb_pool)

# the examples (region/examples/), run as a host would
add_executable(region_tt ${CMAKE_SOURCE_DIR}/region/examples/tt.c)
target_link_libraries(region_tt PRIVATE hugepolicy)
add_test(NAME region_example_prints_stockfish_line COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_region_example.sh
  $<TARGET_FILE:region_tt>)
add_test(NAME region_python_example_backs_a_numpy_array COMMAND sh -c
  "[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo 'SKIP: no /usr/bin/python3 with numpy (Debian python3-numpy)'; exit 77; }; LD_PRELOAD=\"$0\" exec /usr/bin/python3 \"$1\" 32 2"
  ${LIB} ${CMAKE_SOURCE_DIR}/region/examples/numpy_region.py)
set_tests_properties(region_example_prints_stockfish_line region_python_example_backs_a_numpy_array PROPERTIES
  SKIP_RETURN_CODE 77 RESOURCE_LOCK hugetlb_pool)

# the Windows part (region/region_windows.c) built with mingw-w64 and run
# under wine: the fallback, its reason, the data read back
add_test(NAME region_windows_falls_back_under_wine_and_keeps_its_data
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_region_wine.sh ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(region_windows_falls_back_under_wine_and_keeps_its_data PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# perf/workloads/hashtable.c --region (perf/region_bench.py): under
# libhugepolicy the table is a region of the kind asked and the line says
# which kind it got, read back from smaps
add_test(NAME perf_hashtable_on_a_region_reports_the_kind_it_got
  COMMAND sh -c "LD_PRELOAD=$1 \"$2\" --mib 16 --probes-per-thread 1000 --threads 1 --region base"
  sh $<TARGET_FILE:hugepolicy> $<TARGET_FILE:hashtable>)
set_tests_properties(perf_hashtable_on_a_region_reports_the_kind_it_got PROPERTIES
  PASS_REGULAR_EXPRESSION "Linux large pages not used\\.\nhashtable .* region=base alloc_s=[0-9.]+ hugetlb_kb=0 thp_kb=0")
