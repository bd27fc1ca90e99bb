# auto's whole-heap THP once the heap is large and dense (policy/promote.c,
# pages/heap_promote.c, issue 8): per backend that promotes, a dense heap
# is promoted and gets THP, HUGEPOLICY_PROMOTE=off, a small and a sparse
# heap (also beside 512 MiB the program mapped itself: ownmap) are not, nor
# a small heap beside 384 MiB of big blocks (big; bigdense is, and
# bigsparse: a dense heap beside a big block half touched); read
# back from /proc/self/smaps (VmFlags hg, AnonHugePages)
add_executable(test_promote test_promote.c)
target_link_libraries(test_promote PRIVATE hugepolicy)
foreach(BE jemalloc mimalloc)
  foreach(MODE dense off small sparse ownmap costly big bigdense bigsparse)
    set(T ${BE}_auto_promotion_${MODE}_heap)
    add_test(NAME ${T} COMMAND test_promote ${MODE})
    set(E "HUGEPOLICY_BACKEND=${BE};HUGEPOLICY_PAGES=auto")
    if(MODE STREQUAL "off")
      set(E "${E};HUGEPOLICY_PROMOTE=off")
    elseif(MODE STREQUAL "costly")
      set(E "${E};HUGEPOLICY_FAULT_COST=2,5000")     # 5 ms per THP fault against 512 x 2 us
    elseif(MODE MATCHES "^big")
      # every big block advised: under measure, which blocks go back to
      # base pages (their own THP faults timed) depends on the host
      set(E "${E};HUGEPOLICY_FAULT_COST=off")
    endif()
    set_tests_properties(${T} PROPERTIES ENVIRONMENT "${E}" SKIP_RETURN_CODE 77)
  endforeach()
endforeach()
# verbose: the promotion is said when it happens (the config line, printed
# at start-up before any sample, says "not promoted")
foreach(BE jemalloc mimalloc)
  set(T ${BE}_auto_promotion_is_said_when_it_happens)
  add_test(NAME ${T} COMMAND sh -c "out=$(\"$1\" dense 2>&1); rc=$?; echo \"$out\"; [ $rc -eq 0 ] && echo \"$out\" | grep -q ']: heap promoted at [0-9]* MiB resident of [0-9]* MiB mapped'"
    sh $<TARGET_FILE:test_promote>)
  set_tests_properties(${T} PROPERTIES
    ENVIRONMENT "HUGEPOLICY_BACKEND=${BE};HUGEPOLICY_PAGES=auto;HUGEPOLICY_VERBOSE=1")
endforeach()
# the rule itself: every row of the table, with its reason
add_executable(test_promote_rule test_promote_rule.c $<TARGET_OBJECTS:hp_policy>)
target_include_directories(test_promote_rule PRIVATE ${CMAKE_SOURCE_DIR}/policy)
add_test(NAME promote_rule_takes_the_first_row_that_holds COMMAND test_promote_rule)
# ... on a THP `always` host (switched by thp_enabled.sh, restored), with
# the except-advised switch (Linux >= 6.18) and without it (the shim): there
# small blocks are kept off THP with MADV_NOHUGEPAGE (jemalloc opt.thp=never,
# mimalloc's segments), which a promoted heap's new memory must not keep
foreach(BE jemalloc mimalloc)
  foreach(K except_advised nohugepage)
    foreach(MODE dense small)
      set(T ${BE}_auto_promotion_${MODE}_heap_on_a_thp_always_host_${K})
      add_test(NAME ${T} COMMAND ${THP_ALWAYS} $<TARGET_FILE:test_promote> ${MODE})
      set(E "HUGEPOLICY_BACKEND=${BE};HUGEPOLICY_PAGES=auto")
      if(K STREQUAL "nohugepage")
        set(E "${E};LD_PRELOAD=$<TARGET_FILE:thp_no_except_advised>")
      endif()
      set_tests_properties(${T} PROPERTIES ENVIRONMENT "${E}" RESOURCE_LOCK thp_enabled SKIP_RETURN_CODE 77
        RUN_SERIAL TRUE)       # the switch is system-wide (thp_always.cmake)
    endforeach()
  endforeach()
endforeach()
# the report says why the heap is promoted or not, for every backend and
# mode (system and mimalloc under off said nothing: promote.reason empty)
foreach(BE system jemalloc mimalloc)
  foreach(MODE off thp auto)
    set(T ${BE}_${MODE}_report_says_why_the_heap_is_or_is_not_promoted)
    add_test(NAME ${T} COMMAND sh -c "out=$(\"$1\" run --stats text -- true 2>&1); echo \"$out\" | grep 'promote\\.'; echo \"$out\" | grep -Eq '^ *promote\\.reason +[a-z]'"
      sh $<TARGET_FILE:hugepolicy-cli>)
    set_tests_properties(${T} PROPERTIES ENVIRONMENT "HUGEPOLICY_BACKEND=${BE};HUGEPOLICY_PAGES=${MODE}")
  endforeach()
endforeach()
# white box, hugepolicy linked statically: NAME runs EXE (from EXE.c)
# with the promotion off at start-up
function(hp_static_test NAME EXE)
  add_executable(${EXE} ${EXE}.c $<TARGET_OBJECTS:hugepolicy_objs> $<TARGET_OBJECTS:hp_policy>)
  add_dependencies(${EXE} hpje_archive)
  target_include_directories(${EXE} PRIVATE ${CMAKE_SOURCE_DIR}/include)
  target_link_libraries(${EXE} PRIVATE ${HPJE_DIR}/libhpje.a dl m pthread)
  add_test(NAME ${NAME} COMMAND ${EXE})
  set_tests_properties(${NAME} PROPERTIES ENVIRONMENT "HUGEPOLICY_PAGES=off" TIMEOUT 300)
endfunction()
# the table of the allocator's mappings, full: a new mapping costs a
# bounded time, however many came since
hp_static_test(promote_remembers_a_mapping_in_bounded_time_once_its_table_is_full test_promote_ranges)
# the big-block set never loses a block to its own rebuild (lock-free
# lookups racing a rebuild missed blocks: they kept their advice and
# stayed in the set)
hp_static_test(advised_set_finds_every_block_while_another_thread_rebuilds_it test_advised_set_race)
