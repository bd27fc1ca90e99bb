# backends/: the three backends behind one vtable - system (glibc),
# jemalloc/ (embedded), mimalloc/ (dlopened)
set(HP_BACKEND_SOURCES
  backends/system.c
  backends/jemalloc/jemalloc.c backends/jemalloc/jemalloc_fork.c backends/jemalloc/jemalloc_arenas.c
  backends/jemalloc/jemalloc_hugetlb.c backends/jemalloc/jemalloc_huge_arena.c backends/jemalloc/jemalloc_os.c
  backends/mimalloc/mimalloc.c backends/mimalloc/mimalloc_os.c backends/mimalloc/mimalloc_maps.c
  backends/mimalloc/mimalloc_reserve.c backends/mimalloc/got_hook.c)
