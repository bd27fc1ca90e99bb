# tests/thp_always.cmake - issue 7 item 3: on a THP `always` host (this
# machine switched by thp_enabled.sh, restored in every exit path) `off` has
# no THP anywhere and `auto` keeps 64 KiB blocks on base pages, for every
# backend; smaps says so.  An explicit `thp` clears a PR_SET_THP_DISABLE
# inherited from the parent.
add_executable(test_thp_always test_thp_always.c)
target_link_libraries(test_thp_always PRIVATE hugepolicy)
add_executable(thp_disabled_exec thp_disabled_exec.c)
set(THP_ALWAYS sh ${CMAKE_CURRENT_SOURCE_DIR}/thp_enabled.sh always)
foreach(B ${BACKENDS})
  add_test(NAME ${B}_off_on_a_thp_always_host_has_no_huge_pages
    COMMAND ${THP_ALWAYS} $<TARGET_FILE:test_thp_always> off)
  set_tests_properties(${B}_off_on_a_thp_always_host_has_no_huge_pages PROPERTIES
    ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=off")
  # off is the same on both hosts: a program's own MADV_HUGEPAGE keeps its THP
  foreach(H always madvise)
    add_test(NAME ${B}_off_on_a_thp_${H}_host_leaves_the_programs_own_advice_its_thp
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/thp_enabled.sh ${H} $<TARGET_FILE:test_thp_always> off-own)
    set_tests_properties(${B}_off_on_a_thp_${H}_host_leaves_the_programs_own_advice_its_thp PROPERTIES
      ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=off" RESOURCE_LOCK thp_enabled SKIP_RETURN_CODE 77
      RUN_SERIAL TRUE)
  endforeach()
  add_test(NAME ${B}_auto_on_a_thp_always_host_keeps_64k_blocks_on_base_pages
    COMMAND ${THP_ALWAYS} $<TARGET_FILE:test_thp_always> auto)
  set_tests_properties(${B}_auto_on_a_thp_always_host_keeps_64k_blocks_on_base_pages PROPERTIES
    ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=auto")
  add_test(NAME ${B}_thp_clears_an_inherited_thp_disable
    COMMAND $<TARGET_FILE:thp_disabled_exec> $<TARGET_FILE:test_thp_always> thp)
  set_tests_properties(${B}_thp_clears_an_inherited_thp_disable PROPERTIES
    ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=thp")
  foreach(T ${B}_off_on_a_thp_always_host_has_no_huge_pages
            ${B}_auto_on_a_thp_always_host_keeps_64k_blocks_on_base_pages
            ${B}_thp_clears_an_inherited_thp_disable)
    set_tests_properties(${T} PROPERTIES RESOURCE_LOCK thp_enabled SKIP_RETURN_CODE 77)
  endforeach()
  # the switch is system-wide: a test beside it that reads smaps under THP
  # `madvise` would see `always` (a sparse heap faulted in whole)
  set_tests_properties(${B}_off_on_a_thp_always_host_has_no_huge_pages
    ${B}_auto_on_a_thp_always_host_keeps_64k_blocks_on_base_pages PROPERTIES RUN_SERIAL TRUE)
endforeach()

# hugepolicy's own .bss stays off THP in every mode: advised before the
# library first reads it (a read maps the huge zero page, and the write after
# it took a 2 MiB page whatever the advice: 2048 kB at 7367f55)
foreach(B ${BACKENDS})
  foreach(M off auto thp)
    set(T ${B}_${M}_on_a_thp_always_host_keeps_hugepolicys_own_static_memory_off_thp)
    add_test(NAME ${T} COMMAND ${THP_ALWAYS} $<TARGET_FILE:test_thp_always> own)
    set_tests_properties(${T} PROPERTIES RESOURCE_LOCK thp_enabled SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
      ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=${M}")
  endforeach()
endforeach()

# a kernel without PR_THP_DISABLE_EXCEPT_ADVISED (< 6.18, simulated by a shim
# whose prctl refuses the flag): jemalloc and mimalloc keep their small
# blocks off THP with MADV_NOHUGEPAGE; glibc's heap cannot be reached, and
# the report says so (docs/design.md: THP `always` hosts)
add_library(thp_no_except_advised SHARED thp_no_except_advised.c)
foreach(B ${BACKENDS})
  set(M auto)
  if(B STREQUAL "system")
    set(M auto-glibc)
  endif()
  set(T ${B}_auto_on_a_thp_always_host_before_linux_6_18_keeps_what_it_can_off_thp)
  add_test(NAME ${T} COMMAND ${THP_ALWAYS} $<TARGET_FILE:test_thp_always> ${M})
  set_tests_properties(${T} PROPERTIES RESOURCE_LOCK thp_enabled SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
    ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=auto;LD_PRELOAD=$<TARGET_FILE:thp_no_except_advised>")
endforeach()

# ... and off there, the except-advised switch refused: the whole-process
# switch instead, no THP anywhere (not the host's always default)
foreach(B ${BACKENDS})
  set(T ${B}_off_on_a_thp_always_host_before_linux_6_18_has_no_huge_pages)
  add_test(NAME ${T} COMMAND ${THP_ALWAYS} $<TARGET_FILE:test_thp_always> off)
  set_tests_properties(${T} PROPERTIES RESOURCE_LOCK thp_enabled SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
    ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=off;LD_PRELOAD=$<TARGET_FILE:thp_no_except_advised>")
endforeach()

# a user's whole-heap setting wins over the plan, and hugepolicy's own switch
# must not starve it: MALLOC_CONF=thp:always under auto (the process was
# except-advised: jemalloc advised nothing, 0 kB THP at 8634ee4) and under
# off; MIMALLOC_LARGE_OS_PAGES=1 under off: hugetlb when the pool has room
# (a CI machine had a persistent pool), else its fallback, THP
foreach(M auto off)
  set(T jemalloc_user_thp_always_wins_on_a_thp_always_host_under_${M})
  add_test(NAME ${T} COMMAND ${THP_ALWAYS} $<TARGET_FILE:test_thp_always> thp)
  set_tests_properties(${T} PROPERTIES RESOURCE_LOCK thp_enabled SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
    ENVIRONMENT "HUGEPOLICY_BACKEND=jemalloc;HUGEPOLICY_PAGES=${M};MALLOC_CONF=thp:always")
endforeach()
set(T mimalloc_user_large_os_pages_wins_on_a_thp_always_host_under_off)
add_test(NAME ${T} COMMAND ${THP_ALWAYS} $<TARGET_FILE:test_thp_always> huge)
set_tests_properties(${T} PROPERTIES RESOURCE_LOCK "thp_enabled;hugetlb_pool" SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
  ENVIRONMENT "HUGEPOLICY_BACKEND=mimalloc;HUGEPOLICY_PAGES=off;MIMALLOC_LARGE_OS_PAGES=1")

# huge-page advice does not outlive its block (issue 8 item 4): small blocks
# that reuse a freed big block's pages carry no MADV_HUGEPAGE
add_executable(test_advice_withdrawn test_advice_withdrawn.c)
target_link_libraries(test_advice_withdrawn PRIVATE hugepolicy)
foreach(B ${BACKENDS})
  add_test(NAME ${B}_auto_takes_the_advice_back_when_a_big_block_is_freed COMMAND test_advice_withdrawn ${B})
  set_tests_properties(${B}_auto_takes_the_advice_back_when_a_big_block_is_freed PROPERTIES
    ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=auto")
endforeach()
foreach(M many realloc-fail)
  add_test(NAME mimalloc_auto_advice_set_${M} COMMAND test_advice_withdrawn mimalloc ${M})
  set_tests_properties(mimalloc_auto_advice_set_${M} PROPERTIES
    ENVIRONMENT "HUGEPOLICY_BACKEND=mimalloc;HUGEPOLICY_PAGES=auto")
endforeach()
