# tests/mimalloc_pool.cmake - the pool, for every backend: hugetlb memory is populated by hugepolicy
# before anyone touches it, whichever backend uses it: under a cgroup
# hugetlb limit on the parent cgroup (3 pages), with the pool holding 16 more
# pages, eight 4 MiB blocks live, read back intact, and the report's pool and
# fallback bytes match smaps.  The pool delta is given back by hugetlb_pool.sh.
add_executable(test_pool_limits test_pool_limits.c)
target_link_libraries(test_pool_limits PRIVATE hugepolicy)
set(CG3 sh ${CMAKE_CURRENT_SOURCE_DIR}/hugetlb_cgroup.sh 6291456)
foreach(B ${BACKENDS})
  add_test(NAME ${B}_hugetlb_under_a_parent_cgroup_limit_falls_back_without_sigbus
    COMMAND ${POOL} 16 ${CG3} $<TARGET_FILE:test_pool_limits> ${B} 6291456 fallback)
  set_tests_properties(${B}_hugetlb_under_a_parent_cgroup_limit_falls_back_without_sigbus PROPERTIES
    ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=hugetlb;HUGEPOLICY_VERBOSE=1")
endforeach()
# thp never takes the pool, even for mimalloc's large_os_pages
foreach(B ${BACKENDS})
  add_test(NAME ${B}_thp_under_a_parent_cgroup_limit_never_takes_the_pool
    COMMAND ${POOL} 16 ${CG3} $<TARGET_FILE:test_pool_limits> ${B} 0 nopool)
  set_tests_properties(${B}_thp_under_a_parent_cgroup_limit_never_takes_the_pool PROPERTIES
    ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=thp")
endforeach()
# a user's MIMALLOC_RESERVE_OS_MEMORY on large OS pages is made by mimalloc's
# constructor inside dlopen: hugepolicy hides it there and makes it through
# mimalloc's API once mimalloc's mmap is governed (SIGBUS at 856da54: the
# reservation fit the pool, the cgroup refused the touch)
add_test(NAME mimalloc_user_reserve_on_large_pages_under_a_parent_cgroup_limit_falls_back_without_sigbus
  COMMAND ${POOL} 40 ${CG3} $<TARGET_FILE:test_pool_limits> mimalloc 6291456 fallback)
add_test(NAME mimalloc_user_reserve_on_large_pages_with_the_pool_is_populated_and_counted
  COMMAND ${POOL} 40 $<TARGET_FILE:test_pool_limits> mimalloc 83886080 pool)
foreach(T mimalloc_user_reserve_on_large_pages_under_a_parent_cgroup_limit_falls_back_without_sigbus
          mimalloc_user_reserve_on_large_pages_with_the_pool_is_populated_and_counted)
  set_tests_properties(${T} PROPERTIES RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77 ENVIRONMENT
    "HUGEPOLICY_BACKEND=mimalloc;HUGEPOLICY_PAGES=hugetlb;MIMALLOC_LARGE_OS_PAGES=1;MIMALLOC_RESERVE_OS_MEMORY=64M")
endforeach()
get_property(_t DIRECTORY PROPERTY TESTS)
foreach(T ${_t})
  if(T MATCHES "_cgroup_limit_")
    set_tests_properties(${T} PROPERTIES RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77)
  endif()
endforeach()

# which blocks the system backend takes from the pool: big alignments yes,
# blocks below one huge page never (threshold 64 KiB)
add_executable(test_pool_rules test_pool_rules.c)
target_link_libraries(test_pool_rules PRIVATE hugepolicy)
add_test(NAME system_hugetlb_big_alignment_from_the_pool_small_blocks_never
  COMMAND ${POOL} 8 $<TARGET_FILE:test_pool_rules>)
set_tests_properties(system_hugetlb_big_alignment_from_the_pool_small_blocks_never PROPERTIES
  ENVIRONMENT "HUGEPOLICY_BACKEND=system;HUGEPOLICY_PAGES=hugetlb;HUGEPOLICY_THRESHOLD=64K"
  RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77)

# surplus pages: 64 more allowed (nr_overcommit_hugepages, given back), the
# persistent pool left alone: hugetlb gets surplus pages, the plan says so
add_executable(test_surplus test_surplus.c)
target_link_libraries(test_surplus PRIVATE hugepolicy)
foreach(B ${BACKENDS})
  add_test(NAME ${B}_hugetlb_takes_surplus_pages_when_the_pool_is_empty
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hugetlb_overcommit.sh 64 $<TARGET_FILE:test_surplus> ${B})
  set_tests_properties(${B}_hugetlb_takes_surplus_pages_when_the_pool_is_empty PROPERTIES
    ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=hugetlb;HUGEPOLICY_VERBOSE=1"
    RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77)
endforeach()

# a refused aligned pool block never unmaps another thread's mapping
add_executable(test_aligned_race test_aligned_race.c)
target_link_libraries(test_aligned_race PRIVATE hugepolicy pthread)
add_test(NAME system_hugetlb_refused_aligned_block_leaves_other_mappings_alone
  COMMAND ${POOL} 20 sh ${CMAKE_CURRENT_SOURCE_DIR}/hugetlb_cgroup.sh 2097152 $<TARGET_FILE:test_aligned_race> 3)
set_tests_properties(system_hugetlb_refused_aligned_block_leaves_other_mappings_alone PROPERTIES
  ENVIRONMENT "HUGEPOLICY_BACKEND=system;HUGEPOLICY_PAGES=hugetlb"
  RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77)
