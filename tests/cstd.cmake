# tests/cstd.cmake - included from tests/CMakeLists.txt.  One C-standard
# behaviour for every backend x page mode (issue 11, items 8 and 15): how a
# request fails (errno), realloc(p, 0), zero-size and small blocks, usable
# size, and errno across start-up.
add_executable(test_cstd_errors test_cstd_errors.c)
target_link_libraries(test_cstd_errors PRIVATE hugepolicy)
add_executable(test_cstd_blocks test_cstd_blocks.c)
target_link_libraries(test_cstd_blocks PRIVATE hugepolicy)
# start-up in hugepolicy's constructor (main-entry), or in the first malloc
# of the process, made by a library initialised before hugepolicy: later in
# DT_NEEDED, no dependency between the two (as test_race's racer)
add_executable(test_cstd_errno test_cstd_errno.c)
target_link_libraries(test_cstd_errno PRIVATE hugepolicy)
add_library(cstd_first_alloc SHARED test_cstd_errno_lib.c)
add_executable(test_cstd_errno_first test_cstd_errno.c)
target_link_libraries(test_cstd_errno_first PRIVATE hugepolicy cstd_first_alloc)
target_link_options(test_cstd_errno_first PRIVATE -Wl,--no-as-needed)

# name suffix -> command (after the backend argument)
set(CSTD_CASES
  "too_large_requests_fail_with_enomem|test_cstd_errors|too-large"
  "address_space_limit_fails_with_enomem_and_keeps_old_block|test_cstd_errors|address-limit"
  "realloc_to_zero_frees_and_returns_null|test_cstd_errors|realloc-zero"
  "successful_calls_leave_errno_alone|test_cstd_errors|success-errno"
  "zero_size_requests_give_unique_aligned_blocks|test_cstd_blocks|zero-size"
  "small_blocks_meet_c23_alignment|test_cstd_blocks|small-alignment"
  "usable_size_covers_requests_and_realloc_keeps_contents|test_cstd_blocks|usable-size"
  "first_allocation_keeps_errno|test_cstd_errno_first|first-allocation"
  "startup_leaves_errno_zero_for_main|test_cstd_errno|main-entry")

foreach(B ${BACKENDS})
  # the existing matrix (tests/CMakeLists.txt: off, thp) gets auto
  add_test(NAME ${B}_auto_keeps_c_standard_errors COMMAND test_cstd ${B})
  set_tests_properties(${B}_auto_keeps_c_standard_errors PROPERTIES
    ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=auto")
  foreach(P off thp auto)
    foreach(C ${CSTD_CASES})
      string(REPLACE "|" ";" C "${C}")
      list(GET C 0 NAME)
      list(GET C 1 EXE)
      list(GET C 2 ARG)
      set(T ${B}_${P}_${NAME})
      add_test(NAME ${T} COMMAND ${EXE} ${B} ${ARG})
      set_tests_properties(${T} PROPERTIES
        ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=${P}" SKIP_RETURN_CODE 77)
      # mimalloc's thp maps pool pages itself and touches them later: a pool
      # that another test shrinks meanwhile could be a SIGBUS (docs/design.md)
      if(B STREQUAL "mimalloc" AND P STREQUAL "thp")
        set_tests_properties(${T} PROPERTIES RESOURCE_LOCK hugetlb_pool)
      endif()
    endforeach()
  endforeach()
endforeach()

# a thread whose first allocation comes after RLIMIT_AS ran out (issue 11
# item 15): NULL with ENOMEM, no crash, for every backend
add_executable(test_thread_after_exhaustion test_thread_after_exhaustion.c)
target_link_libraries(test_thread_after_exhaustion PRIVATE hugepolicy pthread)
foreach(B ${BACKENDS})
  set(T ${B}_thread_started_after_the_address_space_ran_out_gets_enomem_not_a_crash)
  add_test(NAME ${T} COMMAND sh -c "ulimit -v 400000 && exec \"$0\"" $<TARGET_FILE:test_thread_after_exhaustion>)
  set_tests_properties(${T} PROPERTIES ENVIRONMENT "HUGEPOLICY_BACKEND=${B}" PASS_REGULAR_EXPRESSION "test_thread_after_exhaustion: ok")
endforeach()
