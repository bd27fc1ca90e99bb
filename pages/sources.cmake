# pages/: the page layer - hugetlb pools and mappings, hugetlb blocks, fork
# staging, its SIGBUS handler and its own stack, the hugetlb VMAs'
# protections, THP large blocks, the THP switch, the advised-block set, the
# heap-promotion sampler, fault costs
set(HP_PAGES_SOURCES
  pages/pages.c pages/hugetlb_pages.c pages/hugetlb_map.c pages/hugetlb_map_lock.c pages/hugetlb_blocks.c
  pages/hugetlb_large.c pages/hugetlb_fork.c pages/hugetlb_fork_sigbus.c pages/hugetlb_vmas.c pages/fork_stack.c pages/thp_large.c pages/thp_mid.c pages/folio_scan.c pages/advised_set.c
  pages/thp_switch.c pages/heap_promote.c pages/fault_cost.c pages/fault_measure.c)
