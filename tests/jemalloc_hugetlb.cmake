# jemalloc_hugetlb: jemalloc's own heap (every block below the threshold,
# its slabs and metadata) on the 2 MiB pool through its extent hooks
# (backends/jemalloc/jemalloc_hugetlb.c).  Each test adds pages to the pool for its
# run and gives them back (hugetlb_pool.sh), under the hugetlb_pool lock.
add_executable(test_jemalloc_hugetlb test_jemalloc_hugetlb.c)
target_link_libraries(test_jemalloc_hugetlb PRIVATE hugepolicy pthread)
set(JE_TLB $<TARGET_FILE:test_jemalloc_hugetlb>)
# white box: the hooks called directly (hugepolicy linked statically)
add_executable(test_jemalloc_hugetlb_hooks test_jemalloc_hugetlb_hooks.c $<TARGET_OBJECTS:hugepolicy_objs>
  $<TARGET_OBJECTS:hp_policy>)
add_dependencies(test_jemalloc_hugetlb_hooks hpje_archive)
target_include_directories(test_jemalloc_hugetlb_hooks PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(test_jemalloc_hugetlb_hooks PRIVATE ${HPJE_DIR}/libhpje.a dl m pthread)
set(JE_POOL sh ${CMAKE_CURRENT_SOURCE_DIR}/hugetlb_pool.sh)
# a heap inside arena 0's first step (a wrapper: timeout, a shell) takes
# no pool page: pages are taken when the heap outgrows it
add_test(NAME jemalloc_hugetlb_small_heap_takes_no_pool_page COMMAND ${JE_POOL} 8 ${JE_TLB} tiny)
add_test(NAME jemalloc_hugetlb_puts_small_blocks_on_the_pool COMMAND ${JE_POOL} 40 ${JE_TLB} small)
add_test(NAME jemalloc_hugetlb_puts_every_arena_on_the_pool COMMAND ${JE_POOL} 64 ${JE_TLB} threads)
# a parent cgroup with hugetlb.2MB.max = 3 pages: the rest of the heap on
# ordinary pages, no SIGBUS, every byte read back, the report says fell back
add_test(NAME jemalloc_hugetlb_under_cgroup_limit_falls_back_without_sigbus COMMAND ${JE_POOL} 8
  sh ${CMAKE_CURRENT_SOURCE_DIR}/hugetlb_cgroup.sh 6291456 ${JE_TLB} cgroup)
add_test(NAME jemalloc_hugetlb_fork_child_writes_arena_memory COMMAND ${JE_POOL} 64 ${JE_TLB} fork)
add_test(NAME jemalloc_hugetlb_keeps_freed_extents_and_realloc_keeps_data COMMAND ${JE_POOL} 40 ${JE_TLB} reuse)
add_test(NAME jemalloc_hugetlb_report_and_stats_match_smaps COMMAND ${JE_POOL} 40 ${JE_TLB} report)
add_test(NAME jemalloc_hugetlb_hooks_never_release_or_merge_hugetlb_extents COMMAND ${JE_POOL} 8
  $<TARGET_FILE:test_jemalloc_hugetlb_hooks>)
set(JE_TLB_TESTS jemalloc_hugetlb_small_heap_takes_no_pool_page jemalloc_hugetlb_puts_small_blocks_on_the_pool jemalloc_hugetlb_puts_every_arena_on_the_pool
  jemalloc_hugetlb_under_cgroup_limit_falls_back_without_sigbus jemalloc_hugetlb_fork_child_writes_arena_memory
  jemalloc_hugetlb_keeps_freed_extents_and_realloc_keeps_data jemalloc_hugetlb_report_and_stats_match_smaps
  jemalloc_hugetlb_hooks_never_release_or_merge_hugetlb_extents)
set_tests_properties(${JE_TLB_TESTS} PROPERTIES
  ENVIRONMENT "HUGEPOLICY_BACKEND=jemalloc;HUGEPOLICY_PAGES=hugetlb"
  RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77 TIMEOUT 120)
set_property(TEST jemalloc_hugetlb_keeps_freed_extents_and_realloc_keeps_data APPEND PROPERTY
  ENVIRONMENT MALLOC_CONF=dirty_decay_ms:0)
# a multi-threaded parent's fork: glibc's fork writes to every FILE
# (fresetlockfiles) before any atfork child handler runs, and a FILE is in a
# hugetlb slab now, so the child inherits the mappings (hugetlb_fork.c) and
# makes them its own in its handler (SIGSEGV in the child when they were
# MADV_DONTFORK until then)
add_test(NAME jemalloc_hugetlb_fork_from_threads_with_open_files COMMAND ${JE_POOL} 64 ${JE_TLB} fork_files)
# ... with the pool drained at fork time: glibc's write to a FILE in the
# child needs a pool page it cannot get, and the fork-window SIGBUS handler
# (hugetlb_fork_sigbus.c) puts the staged copy there
add_test(NAME jemalloc_hugetlb_fork_from_threads_with_open_files_and_an_empty_pool
  COMMAND ${JE_POOL} 64 ${JE_TLB} fork_files_drained)
set_tests_properties(jemalloc_hugetlb_fork_from_threads_with_open_files
  jemalloc_hugetlb_fork_from_threads_with_open_files_and_an_empty_pool PROPERTIES
  ENVIRONMENT "HUGEPOLICY_BACKEND=jemalloc;HUGEPOLICY_PAGES=hugetlb"
  RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77 TIMEOUT 120)
