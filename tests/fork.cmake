# tests/fork.cmake - threads and processes: forked children never die because of hugetlb memory
# (backends/hugetlb_fork.c): the parent takes every page the pool has room
# for (the pool raised by a delta), then its children allocate and write
# inherited blocks while the parent writes too.
add_executable(test_fork_hugetlb test_fork_hugetlb.c)
target_link_libraries(test_fork_hugetlb PRIVATE hugepolicy)
foreach(B ${BACKENDS})
  add_test(NAME ${B}_hugetlb_children_of_a_full_pool_live_and_keep_their_data
    COMMAND ${POOL} 24 $<TARGET_FILE:test_fork_hugetlb> ${B})
  set_tests_properties(${B}_hugetlb_children_of_a_full_pool_live_and_keep_their_data PROPERTIES
    ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=hugetlb"
    RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()
# HUGEPOLICY_FORK=inherit: no copy; each child says that it shares the pages
add_test(NAME system_hugetlb_fork_inherit_shares_pages_and_says_so_in_each_child
  COMMAND sh -c "rm -f \"$HUGEPOLICY_LOG\"; exec \"$@\"" sh ${POOL} 24 $<TARGET_FILE:test_fork_hugetlb> system inherit)
set_tests_properties(system_hugetlb_fork_inherit_shares_pages_and_says_so_in_each_child PROPERTIES
  ENVIRONMENT "HUGEPOLICY_BACKEND=system;HUGEPOLICY_PAGES=hugetlb;HUGEPOLICY_FORK=inherit;HUGEPOLICY_LOG=${CMAKE_CURRENT_BINARY_DIR}/fork_inherit.log"
  RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77)

# Python's multiprocessing.Pool(fork), 8 workers, every backend x mode, with
# the parent holding the 24 pages added to the pool (6 x 4 MiB buffers)
foreach(B ${BACKENDS})
  foreach(P off thp hugetlb auto)
    set(T ${B}_${P}_python_fork_pool_of_8_workers_completes_with_a_full_pool)
    add_test(NAME ${T} COMMAND ${POOL} 24 sh ${CMAKE_CURRENT_SOURCE_DIR}/test_mp_pool.sh ${LIB} 6)
    set_tests_properties(${T} PROPERTIES
      ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=${P}"
      RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77 TIMEOUT 180)
  endforeach()
endforeach()

# start-up: a thread that allocates while another runs start-up waits for it
add_executable(test_startup_wait test_startup_wait.c $<TARGET_OBJECTS:hugepolicy_objs> $<TARGET_OBJECTS:hp_policy>)
add_dependencies(test_startup_wait hpje_archive)
target_include_directories(test_startup_wait PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(test_startup_wait PRIVATE ${HPJE_DIR}/libhpje.a dl m pthread)
foreach(B ${BACKENDS})
  add_test(NAME ${B}_second_thread_waits_for_start_up_then_gets_a_backend_block COMMAND test_startup_wait ${B})
  set_tests_properties(${B}_second_thread_waits_for_start_up_then_gets_a_backend_block PROPERTIES
    ENVIRONMENT "HUGEPOLICY_BACKEND=${B}")
endforeach()

# the mapping table's lock (backends/hugetlb_map_lock.c), white box: a signal
# handler on the owning thread may take it at any instruction of a hold, and
# a thread that waits for it sleeps
add_executable(test_tlb_lock test_tlb_lock.c)
target_include_directories(test_tlb_lock PRIVATE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/backends)
target_link_libraries(test_tlb_lock PRIVATE pthread)
add_test(NAME tlb_lock_stays_held_when_a_handler_on_its_thread_takes_it_too COMMAND test_tlb_lock handler)
add_test(NAME tlb_lock_waiter_sleeps_while_the_lock_is_held COMMAND test_tlb_lock sleep)
