# tests/pagesize.cmake - hugetlb page sizes other than 2 MiB (issue 7 item 4):
# HUGEPOLICY_HUGETLB_SIZE, the plan's choice of pool per block size on the
# fixture machines, and 1 GiB blocks on this machine's 1 GiB pool.

# the plan per HUGEPOLICY_HUGETLB_SIZE on the fixture machines with larger
# pools (tests/fixtures/<machine>/pagesize.txt, written by hand)
add_executable(test_pagesize_plan test_pagesize_plan.c $<TARGET_OBJECTS:hp_policy>)
target_include_directories(test_pagesize_plan PRIVATE ${CMAKE_SOURCE_DIR}/include)
foreach(F pool_1g_only pools_both arm64_64k thp_madvise)
  add_test(NAME pagesize_plan_per_hugetlb_size_on_${F}
    COMMAND test_pagesize_plan ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/${F}
      ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/${F}/pagesize.txt)
endforeach()

# 1 GiB blocks on this machine's 1 GiB pool, every backend: the pool gets a
# delta of 1 GiB pages (test_pagesize_pool.sh, given back on every path;
# 2 MiB pages where a case needs them, hugetlb_pool.sh); skipped with the
# reason without root or when the kernel finds no GiB of contiguous memory
add_executable(test_pagesize test_pagesize.c)
target_include_directories(test_pagesize PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(test_pagesize PRIVATE hugepolicy)
set(PS_POOL1G sh ${CMAKE_CURRENT_SOURCE_DIR}/test_pagesize_pool.sh)
set(PS $<TARGET_FILE:test_pagesize>)
function(pagesize_test NAME ENV)
  add_test(NAME ${NAME} COMMAND ${ARGN})
  set_tests_properties(${NAME} PROPERTIES ENVIRONMENT "${ENV}"
    RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77 TIMEOUT 120)
endfunction()
foreach(B ${BACKENDS})
  set(E "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=hugetlb")
  pagesize_test(pagesize_${B}_hugetlb_size_1g_puts_a_1gib_block_on_a_1gib_page_and_free_gives_it_back
    "${E};HUGEPOLICY_HUGETLB_SIZE=1G" ${PS_POOL1G} 1 ${PS} block 1048576 "HUGEPOLICY_HUGETLB_SIZE 1 GiB: blocks >= 1 GiB from the 1 GiB pool only")
  pagesize_test(pagesize_${B}_hugetlb_size_auto_puts_a_1gib_block_on_a_1gib_page_and_free_gives_it_back
    "${E};HUGEPOLICY_HUGETLB_SIZE=auto" ${PS_POOL1G} 1 ${PS} block 1048576 "HUGEPOLICY_HUGETLB_SIZE auto: blocks >= 1 GiB from the 1 GiB pool")
  pagesize_test(pagesize_${B}_hugetlb_without_a_1gib_page_puts_a_1gib_block_on_2mib_pages_and_says_why
    "${E};HUGEPOLICY_HUGETLB_SIZE=1G" ${POOL} 520 ${PS_POOL1G} 0 ${PS} block 2048
    "HUGEPOLICY_HUGETLB_SIZE 1 GiB, but the 1 GiB pool has 0 pages available; as auto")
  pagesize_test(pagesize_${B}_hugetlb_second_1gib_block_falls_back_to_2mib_pages_when_the_1gib_pool_is_used_up
    "${E}" ${POOL} 520 ${PS_POOL1G} 1 ${PS} two)
  # the parent holds the pool's only 1 GiB page; the copy (staged in the
  # parent for pages above 2 MiB, hugetlb_fork.c) is anonymous memory
  pagesize_test(pagesize_${B}_hugetlb_fork_child_writes_a_1gib_page_block_without_sigbus
    "${E}" ${PS_POOL1G} 1 ${PS} fork)
  pagesize_test(pagesize_${B}_hugetlb_realloc_below_1gib_moves_the_block_and_gives_the_1gib_page_back
    "${E}" ${PS_POOL1G} 1 ${PS} realloc)
endforeach()
# a parent with a second thread copies its hugetlb memory before fork (staged)
pagesize_test(pagesize_system_hugetlb_fork_from_a_threaded_parent_copies_a_1gib_block_without_sigbus
  "HUGEPOLICY_BACKEND=system;HUGEPOLICY_PAGES=hugetlb" ${PS_POOL1G} 1 ${PS} fork 0 thread)
# an explicit 2M keeps even a 1 GiB block on the 2 MiB pool
pagesize_test(pagesize_system_hugetlb_size_2m_keeps_a_1gib_block_on_2mib_pages
  "HUGEPOLICY_BACKEND=system;HUGEPOLICY_PAGES=hugetlb;HUGEPOLICY_HUGETLB_SIZE=2M"
  ${POOL} 520 ${PS_POOL1G} 1 ${PS} block 2048 "HUGEPOLICY_HUGETLB_SIZE 2 MiB: the 2 MiB pool only")
# mimalloc with the user's MIMALLOC_LARGE_OS_PAGES=1: a 1 GiB block is a huge
# segment of 1 GiB + 4 MiB that mimalloc maps MAP_HUGETLB (2 MiB pages: not
# a whole number of GiB, so never its 1 GiB attempt) and keeps only if it
# is 32 MiB-aligned: mimalloc_os.c places it so (before, it was populated,
# thrown away, and the block took base pages)
pagesize_test(pagesize_mimalloc_large_os_pages_puts_a_1gib_block_on_2mib_hugetlb_pages
  "HUGEPOLICY_BACKEND=mimalloc;HUGEPOLICY_PAGES=hugetlb;MIMALLOC_LARGE_OS_PAGES=1"
  ${POOL} 600 ${PS} block 2048)
