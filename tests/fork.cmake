# tests/fork.cmake - threads and processes: forked children never die because of hugetlb memory
# (pages/hugetlb_fork.c): the parent takes every page the pool has room
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

# the mapping table's lock (pages/hugetlb_map_lock.c), white box: a signal
# handler on the owning thread may take it at any instruction of a hold, and
# a thread that waits for it sleeps
add_executable(test_tlb_lock test_tlb_lock.c)
target_include_directories(test_tlb_lock PRIVATE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/pages)
target_link_libraries(test_tlb_lock PRIVATE pthread)
add_test(NAME tlb_lock_stays_held_when_a_handler_on_its_thread_takes_it_too COMMAND test_tlb_lock handler)
add_test(NAME tlb_lock_waiter_sleeps_while_the_lock_is_held COMMAND test_tlb_lock sleep)

# a multi-threaded parent holding 1100 blocks of 2 MiB on the pool (more
# than the 1024 copies the fork once staged at most), a parent cgroup's
# hugetlb.2MB.max at exactly those pages so no child gets one, and a second
# thread writing into every block: each child writes every block and exits 0,
# and no fork says it left memory exposed.  Needs 1100 pool pages (2.2 GiB)
# and as much again for the copies.
add_test(NAME system_hugetlb_fork_of_1100_blocks_with_a_writing_thread_and_no_pool_page_left
  COMMAND sh -c "rm -f \"$HUGEPOLICY_LOG\"; exec \"$@\"" sh ${POOL} 1100
    sh ${CMAKE_CURRENT_SOURCE_DIR}/hugetlb_cgroup.sh 2306867200 $<TARGET_FILE:test_fork_hugetlb> system writer 1100)
set_tests_properties(system_hugetlb_fork_of_1100_blocks_with_a_writing_thread_and_no_pool_page_left PROPERTIES
  ENVIRONMENT "HUGEPOLICY_BACKEND=system;HUGEPOLICY_PAGES=hugetlb;HUGEPOLICY_THRESHOLD=2M;HUGEPOLICY_LOG=${CMAKE_CURRENT_BINARY_DIR}/fork_1100.log"
  RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77 TIMEOUT 300)
# ... and where the parent has no memory for the copies, the fork says how
# much it left exposed to another thread's writes (the parent's VmSize limit
# leaves no room for a 2 MiB copy)
add_test(NAME system_hugetlb_fork_without_memory_for_the_copies_says_what_it_left_exposed
  COMMAND sh -c "rm -f \"$HUGEPOLICY_LOG\"; exec \"$@\"" sh ${POOL} 16 $<TARGET_FILE:test_fork_hugetlb> system nomem)
set_tests_properties(system_hugetlb_fork_without_memory_for_the_copies_says_what_it_left_exposed PROPERTIES
  ENVIRONMENT "HUGEPOLICY_BACKEND=system;HUGEPOLICY_PAGES=hugetlb;HUGEPOLICY_THRESHOLD=2M;HUGEPOLICY_LOG=${CMAKE_CURRENT_BINARY_DIR}/fork_nomem.log"
  RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77)

# a program's own SIGBUS handler (a reader of a mapped file, in a second
# thread) while a fork has hugepolicy's fork-window handler in its place,
# with the pool left without a page: called as the kernel would call it
add_executable(test_fork_sigbus_handler test_fork_sigbus_handler.c)
target_link_libraries(test_fork_sigbus_handler PRIVATE hugepolicy pthread)
foreach(M altstack nodefer resethand)
  set(T system_hugetlb_fork_window_calls_a_sigbus_handler_with_its_own_flags_${M})
  add_test(NAME ${T} COMMAND ${POOL} 16 $<TARGET_FILE:test_fork_sigbus_handler> ${M})
  set_tests_properties(${T} PROPERTIES
    ENVIRONMENT "HUGEPOLICY_BACKEND=system;HUGEPOLICY_PAGES=hugetlb;HUGEPOLICY_THRESHOLD=2M"
    RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()

# a program with SIGBUS at SIG_DFL dies of SIGBUS as the kernel would have
# killed it, also after a thread saved and put back hugepolicy's window
# handler, and for a SIGBUS no instruction repeats (BUS_MCEERR_AO)
add_executable(test_fork_sigbus_default test_fork_sigbus_default.c)
target_link_libraries(test_fork_sigbus_default PRIVATE hugepolicy pthread)
foreach(M restored restored_fork mceerr_ao)
  set(T system_hugetlb_fork_window_leaves_sig_dfl_to_kill_the_process_${M})
  add_test(NAME ${T} COMMAND ${POOL} 16 $<TARGET_FILE:test_fork_sigbus_default> ${M})
  set_tests_properties(${T} PROPERTIES
    ENVIRONMENT "HUGEPOLICY_BACKEND=system;HUGEPOLICY_PAGES=hugetlb;HUGEPOLICY_THRESHOLD=2M"
    RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()

# _Fork() and clone() without CLONE_VM run no atfork handler: the child
# shares the hugetlb pages copy-on-write (the documented limit): with the
# pool left without a page it reads them, dies of SIGBUS when it writes one;
# a fork() child beside it writes and lives
add_executable(test_fork_unhandled test_fork_unhandled.c)
target_link_libraries(test_fork_unhandled PRIVATE hugepolicy)
foreach(M _Fork clone)
  set(T system_hugetlb_${M}_child_shares_pages_and_dies_only_when_it_writes_with_the_pool_empty)
  add_test(NAME ${T} COMMAND ${POOL} 8 $<TARGET_FILE:test_fork_unhandled> ${M})
  set_tests_properties(${T} PROPERTIES
    ENVIRONMENT "HUGEPOLICY_BACKEND=system;HUGEPOLICY_PAGES=hugetlb;HUGEPOLICY_THRESHOLD=2M"
    RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77 TIMEOUT 60)
endforeach()

# where the pool has room for a copy of every hugetlb page, a two-thread
# parent's fork copies nothing (the child starts out sharing them), its new
# hugetlb blocks leave that room to the copies while they share, and the
# child writes every block and lives
add_executable(test_fork_lazy test_fork_lazy.c)
target_link_libraries(test_fork_lazy PRIVATE hugepolicy pthread)
add_test(NAME system_hugetlb_fork_with_room_for_every_copy_copies_nothing_and_keeps_the_room
  COMMAND ${POOL} 24 $<TARGET_FILE:test_fork_lazy>)
set_tests_properties(system_hugetlb_fork_with_room_for_every_copy_copies_nothing_and_keeps_the_room PROPERTIES
  ENVIRONMENT "HUGEPOLICY_BACKEND=system;HUGEPOLICY_PAGES=hugetlb;HUGEPOLICY_THRESHOLD=2M"
  RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77 TIMEOUT 60)

# a fork from a stack that is hugetlb memory (a malloc'ed sigaltstack or
# thread stack on the pool), with the pool then left without a page, runs
# glibc's fork on a stack of hugepolicy's own (pages/fork_stack.c): the
# child lives, writes its stack and every block; the program's sigaltstack
# is put back.  Seen from the program, that fork is glibc's: a sigaltstack
# its atfork handlers set stays in force, its prepare handler has the room
# of a thread's stack (RLIMIT_STACK), and errno is left as it was by a fork
# that succeeds, also where no stack could be mapped (RLIMIT_AS)
add_executable(test_fork_own_stack test_fork_own_stack.c)
target_link_libraries(test_fork_own_stack PRIVATE hugepolicy pthread)
set(EMPTY with_the_pool_empty_keeps_the_child_alive)
find_program(UNSHARE unshare)
set(PIDNS thread_pidns)
if(NOT UNSHARE)
  message(STATUS "unshare (util-linux) not found: no pid-namespace fork test")
  set(PIDNS "")
endif()
foreach(B system jemalloc mimalloc)
  foreach(M altstack altstack_threads thread ${PIDNS} atfork_sigaltstack atfork_deep errno)
    set(W thread_stack_${EMPTY})
    set(IN "")
    if(M STREQUAL altstack)
      set(W sigaltstack_${EMPTY})
    elseif(M STREQUAL altstack_threads)
      set(W sigaltstack_while_a_thread_writes_${EMPTY})
    elseif(M STREQUAL atfork_sigaltstack)
      set(W sigaltstack_keeps_the_sigaltstack_an_atfork_handler_sets)
    elseif(M STREQUAL atfork_deep)
      set(W sigaltstack_gives_a_prepare_handler_2mib_of_stack)
    elseif(M STREQUAL errno)
      set(W sigaltstack_leaves_errno_when_no_stack_can_be_mapped)
    elseif(M STREQUAL thread_pidns)
      # the parent pid 1 of a namespace, its child pid 1 of another
      set(W thread_stack_as_pid_1_of_a_pid_namespace_${EMPTY})
      set(IN ${UNSHARE} --pid --fork --kill-child)
    endif()
    set(T ${B}_hugetlb_fork_on_a_malloced_${W})
    add_test(NAME ${T} COMMAND ${POOL} 8 ${IN} $<TARGET_FILE:test_fork_own_stack> ${M})
    set_tests_properties(${T} PROPERTIES
      ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=hugetlb;HUGEPOLICY_THRESHOLD=2M"
      RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77 TIMEOUT 60)
  endforeach()
endforeach()

# a multi-threaded parent's child, the pool without a page for its own
# copy: each hugetlb mapping holds its content of an instant between the
# call of fork and the fork (the copy staged in prepare), the rest of its
# memory that of the fork - the documented snapshot, checked by bounds
add_executable(test_fork_snapshot test_fork_snapshot.c)
target_link_libraries(test_fork_snapshot PRIVATE hugepolicy pthread)
foreach(B system jemalloc mimalloc)
  set(T ${B}_hugetlb_fork_child_sees_hugetlb_memory_of_an_instant_between_the_fork_call_and_the_fork)
  add_test(NAME ${T} COMMAND ${POOL} 8 $<TARGET_FILE:test_fork_snapshot>)
  set_tests_properties(${T} PROPERTIES
    ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=hugetlb;HUGEPOLICY_THRESHOLD=2M"
    RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77 TIMEOUT 60)
endforeach()

# hugetlb memory the program mprotect'ed (a PROT_NONE page, a read-only
# page): the fork copies it without reading what it may not, and the child
# gets each page with the protection it had - moved off the pool (single,
# threads: the pool has no page left) or copied from it (room: a cgroup
# limit puts the fork on the copy path, the pool has room)
add_executable(test_fork_protection test_fork_protection.c)
target_link_libraries(test_fork_protection PRIVATE hugepolicy pthread)
foreach(B ${BACKENDS})
  foreach(M single threads)
    set(T ${B}_hugetlb_fork_child_keeps_the_protection_of_mprotected_pages_${M})
    add_test(NAME ${T} COMMAND sh -c "rm -f \"$HUGEPOLICY_LOG\"; exec \"$@\"" sh
      ${POOL} 24 $<TARGET_FILE:test_fork_protection> ${M})
    set_tests_properties(${T} PROPERTIES ENVIRONMENT
      "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=hugetlb;HUGEPOLICY_LOG=${CMAKE_CURRENT_BINARY_DIR}/${T}.log"
      RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77)
  endforeach()
endforeach()
add_test(NAME system_hugetlb_fork_child_keeps_the_protection_of_mprotected_pages_room
  COMMAND ${POOL} 16 sh ${CMAKE_CURRENT_SOURCE_DIR}/hugetlb_cgroup.sh 67108864
    $<TARGET_FILE:test_fork_protection> room)
set_tests_properties(system_hugetlb_fork_child_keeps_the_protection_of_mprotected_pages_room PROPERTIES
  ENVIRONMENT "HUGEPOLICY_BACKEND=system;HUGEPOLICY_PAGES=hugetlb"
  RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77)
