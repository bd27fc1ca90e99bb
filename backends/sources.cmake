# backends/: the backend vtables and the page layer under them
set(HP_BACKEND_SOURCES
  backends/system.c backends/jemalloc.c backends/jemalloc_fork.c backends/jemalloc_arenas.c backends/mimalloc.c backends/thp_large.c backends/advised_set.c
  backends/pages.c backends/hugetlb_pages.c backends/hugetlb_map.c backends/hugetlb_map_lock.c backends/hugetlb_blocks.c backends/hugetlb_large.c
  backends/hugetlb_fork.c backends/hugetlb_fork_sigbus.c backends/got_hook.c backends/mimalloc_os.c backends/mimalloc_maps.c backends/mimalloc_reserve.c
  backends/thp_switch.c backends/jemalloc_hugetlb.c backends/jemalloc_huge_arena.c
  backends/jemalloc_os.c backends/heap_promote.c backends/fault_cost.c
  backends/fault_measure.c)
