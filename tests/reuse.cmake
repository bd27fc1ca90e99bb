# jemalloc auto keeps freed big blocks for reuse (backends/jemalloc_huge_arena.c, issue 8)
add_executable(test_big_block_reuse test_big_block_reuse.c)
target_link_libraries(test_big_block_reuse PRIVATE hugepolicy)
add_test(NAME jemalloc_auto_reuses_a_freed_big_block_and_gives_back_a_128mib_one COMMAND test_big_block_reuse)
# ... and freed blocks leave within jemalloc's decay time of big-block activity (up to 15 s)
set_tests_properties(jemalloc_auto_reuses_a_freed_big_block_and_gives_back_a_128mib_one PROPERTIES
  ENVIRONMENT "HUGEPOLICY_BACKEND=jemalloc;HUGEPOLICY_PAGES=auto")
