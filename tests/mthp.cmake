# tests/mthp.cmake - issue 22 item 3: sub-PMD THP sizes (mTHP).  The plan's
# rule from facts (no sysfs), and on this machine, with hugepages-64kB
# switched by mthp_enabled.sh (restored on every exit path, under the THP
# lock): auto puts mid-size blocks on 64 KiB folios under every backend,
# makes no madvise per malloc of a reused block (faultinject.c counting
# MADV_HUGEPAGE), and with the sizes never it advises none of them.
add_executable(test_plan_mthp test_plan_mthp.c $<TARGET_OBJECTS:hp_policy>)
target_include_directories(test_plan_mthp PRIVATE ${CMAKE_SOURCE_DIR}/include)
foreach(CASE advise guard no_guard inherit never always except_advised small_nohuge disabled unused threshold segments probe)
  add_test(NAME plan_mthp_${CASE} COMMAND test_plan_mthp ${CASE})
endforeach()

add_executable(test_mthp test_mthp.c)
target_link_libraries(test_mthp PRIVATE hugepolicy dl)
foreach(B ${BACKENDS})
  set(T ${B}_auto_puts_mid_size_blocks_on_64k_folios_where_64k_is_madvise)
  add_test(NAME ${T} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/mthp_enabled.sh 64 madvise $<TARGET_FILE:test_mthp> advised)
  set_tests_properties(${T} PROPERTIES RESOURCE_LOCK thp_enabled SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
    ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=auto")
  set(T ${B}_auto_advises_no_mid_size_block_where_sub_pmd_sizes_are_never)
  add_test(NAME ${T} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/mthp_enabled.sh 64 never $<TARGET_FILE:test_mthp> never)
  set_tests_properties(${T} PROPERTIES RESOURCE_LOCK thp_enabled SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
    ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=auto")
  # the advice is once per mapping: a reused block costs no madvise
  set(T ${B}_auto_makes_no_madvise_per_malloc_of_a_reused_mid_size_block)
  add_test(NAME ${T} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/mthp_enabled.sh 64 madvise $<TARGET_FILE:test_mthp> reuse)
  set_tests_properties(${T} PROPERTIES RESOURCE_LOCK thp_enabled SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
    ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=auto;LD_PRELOAD=$<TARGET_FILE:faultinject>;FI_CALL=hugepage;FI_NTH=2000000000")
endforeach()

# glibc grows a mid-size block by mremap, which takes the whole mapping's
# advice along: the guard is given again (the PMD size inherits madvise here)
set(T system_auto_keeps_the_guard_on_a_mid_size_block_grown_by_realloc)
add_test(NAME ${T} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/mthp_enabled.sh 64 madvise $<TARGET_FILE:test_mthp> realloc)
set_tests_properties(${T} PROPERTIES RESOURCE_LOCK thp_enabled SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
  ENVIRONMENT "HUGEPOLICY_BACKEND=system;HUGEPOLICY_PAGES=auto")

# the backend's own THP setting wins over auto: no mTHP advice either
set(T jemalloc_auto_advises_no_mapping_where_malloc_conf_sets_thp_never)
add_test(NAME ${T} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/mthp_enabled.sh 64 madvise $<TARGET_FILE:test_mthp> user_off)
set_tests_properties(${T} PROPERTIES RESOURCE_LOCK thp_enabled SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
  ENVIRONMENT "HUGEPOLICY_BACKEND=jemalloc;HUGEPOLICY_PAGES=auto;MALLOC_CONF=thp:never")

# perf/run.py --mthp: each configuration with and without the size, the word
# put back at the end (a fake sysfs tree: nothing on the machine changes)
add_test(NAME perf_runner_mthp_runs_each_configuration_with_and_without_the_size
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_perf_mthp.py ${CMAKE_SOURCE_DIR})
