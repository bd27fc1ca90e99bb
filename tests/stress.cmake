# tests/stress.cmake - included from tests/CMakeLists.txt
# Stress: random malloc-family traffic from 4 threads for ~3 s per backend x
# page mode, every block's pattern checked (tests/stress.c); and fault
# injection: libc calls made to fail under hugepolicy (tests/faultinject.c,
# driven by tests/test_faults.sh).
add_executable(stress stress.c)
target_link_libraries(stress PRIVATE hugepolicy pthread)
add_library(faultinject SHARED faultinject.c)
target_link_libraries(faultinject PRIVATE dl)
set_target_properties(faultinject PROPERTIES C_VISIBILITY_PRESET hidden)

set(STRESS_POOL sh ${CMAKE_CURRENT_SOURCE_DIR}/hugetlb_pool.sh 64)
foreach(B ${BACKENDS})
  foreach(P off thp hugetlb auto)
    set(T ${B}_${P}_stress_keeps_every_block_intact)
    set(CMD $<TARGET_FILE:stress> -t 4 -s 3 --expect-backend ${B} --expect-huge)
    if(P STREQUAL hugetlb)
      add_test(NAME ${T} COMMAND ${STRESS_POOL} ${CMD})
    else()
      add_test(NAME ${T} COMMAND ${CMD})
    endif()
    set_tests_properties(${T} PROPERTIES
      ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=${P}" TIMEOUT 60)
    # hugetlb takes the pool (mimalloc's thp does not: large_os_pages means
    # THP there, its MAP_HUGETLB mmaps are refused, mimalloc_os.c)
    if(P STREQUAL hugetlb)
      set_tests_properties(${T} PROPERTIES RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77)
    endif()

    # fault injection: every fault kind x N x once/from for this backend x mode
    set(T ${B}_${P}_survives_injected_faults_without_leaks_or_floods)
    set(CMD sh ${CMAKE_CURRENT_SOURCE_DIR}/test_faults.sh $<TARGET_FILE:stress>
      $<TARGET_FILE:faultinject> ${LIB} --backends ${B} --modes ${P})
    if(P STREQUAL hugetlb)
      add_test(NAME ${T} COMMAND ${STRESS_POOL} ${CMD})
      set_tests_properties(${T} PROPERTIES RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77)
    else()
      add_test(NAME ${T} COMMAND ${CMD})
    endif()
    set_tests_properties(${T} PROPERTIES TIMEOUT 120)
    if(B STREQUAL mimalloc AND P STREQUAL thp)
      set_tests_properties(${T} PROPERTIES RESOURCE_LOCK hugetlb_pool)
    endif()
  endforeach()

  # fork in the middle: the children check the blocks they inherit
  set(T ${B}_auto_stress_fork_children_see_intact_blocks)
  add_test(NAME ${T} COMMAND $<TARGET_FILE:stress> -t 4 -s 3 --fork --expect-backend ${B})
  set_tests_properties(${T} PROPERTIES ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=auto" TIMEOUT 60)
endforeach()
# the system backend's hugetlb blocks across fork: the children only read and
# unmap inherited blocks (no copy-on-write of pool pages)
add_test(NAME system_hugetlb_stress_fork_children_see_intact_blocks
  COMMAND ${STRESS_POOL} $<TARGET_FILE:stress> -t 4 -s 3 --fork --expect-backend system)
set_tests_properties(system_hugetlb_stress_fork_children_see_intact_blocks PROPERTIES
  ENVIRONMENT "HUGEPOLICY_BACKEND=system;HUGEPOLICY_PAGES=hugetlb" TIMEOUT 60
  RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77)
# mimalloc + hugetlb across a fork while other threads allocate, with the
# pool exhausted: with mimalloc's segments on the pool the child died of
# SIGBUS 6 of 6 times (another parent thread wrote the shared pages while
# the child copied them); now only big blocks are on the pool
add_test(NAME mimalloc_hugetlb_stress_fork_children_see_intact_blocks
  COMMAND ${STRESS_POOL} $<TARGET_FILE:stress> -t 4 -s 3 --fork --expect-backend mimalloc)
set_tests_properties(mimalloc_hugetlb_stress_fork_children_see_intact_blocks PROPERTIES
  ENVIRONMENT "HUGEPOLICY_BACKEND=mimalloc;HUGEPOLICY_PAGES=hugetlb" TIMEOUT 60
  RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77)
