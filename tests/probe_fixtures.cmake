# tests/probe_fixtures.cmake - included from tests/CMakeLists.txt (issue 7)
# `hugepolicy probe --root tests/fixtures/<machine>`: for each machine this
# one is not (tests/fixtures/README), the text and JSON output against
# expected.txt / expected.json, and the plan of every backend x mode against
# plans.txt - all written by hand next to the fixture.
set(PROBE_FIXTURES ${CMAKE_CURRENT_SOURCE_DIR}/fixtures)
set(PROBE_CLI $<TARGET_FILE:hugepolicy-cli>)
set(PROBE_SH sh ${CMAKE_CURRENT_SOURCE_DIR}/test_probe_fixture.sh)
foreach(F
    thp_always thp_madvise thp_never thp_missing defrag_always thp_disable_inherited
    kernel_6_18_except_advised thp_except_advised_inherited surplus_2m_empty pool_1g_only
    pools_both arm64_64k cgroup_v1_limit cgroup_v2_parent_limit cgroup_v2_rsvd_limit kernel_4_4
    malformed_thp malformed_pools truncated)
  add_test(NAME probe_fixture_${F}_text COMMAND ${PROBE_SH} ${PROBE_CLI} ${PROBE_FIXTURES}/${F} text)
  add_test(NAME probe_fixture_${F}_json COMMAND ${PROBE_SH} ${PROBE_CLI} ${PROBE_FIXTURES}/${F} json)
  foreach(B system jemalloc mimalloc)
    foreach(M off thp hugetlb auto)
      add_test(NAME probe_plan_${F}_${B}_${M}
        COMMAND ${PROBE_SH} ${PROBE_CLI} ${PROBE_FIXTURES}/${F} plan ${B} ${M})
    endforeach()
  endforeach()
endforeach()

# the parsers and the THP switch rules, one behaviour each
add_executable(test_probe_units test_probe_units.c $<TARGET_OBJECTS:hp_policy>)
target_include_directories(test_probe_units PRIVATE ${CMAKE_SOURCE_DIR}/include)
add_test(NAME probe_pool_dirnames_are_parsed_strictly COMMAND test_probe_units dirnames)
add_test(NAME probe_root_slash_is_this_machine COMMAND test_probe_units root_slash)
add_test(NAME plan_thp_switch_follows_the_rule_table COMMAND test_probe_units plan_rules)
add_test(NAME plan_takes_no_hugetlb_pages_without_madv_populate_write COMMAND test_probe_units plan_populate)

# --root refuses what is not a directory (exit 1), and needs an argument (2)
add_test(NAME probe_root_must_be_a_directory
  COMMAND sh -c "\"$1\" probe --root /nonexistent-hp-root; [ $? = 1 ] && \"$1\" probe --root; [ $? = 2 ]"
  sh ${PROBE_CLI})

# review finding: cgroup.c is clean under clang -Wall -Wextra -Werror
# (-Wstring-plus-int)
find_program(HP_PROBE_CLANG NAMES clang clang-16 clang-15 clang-14)
if(HP_PROBE_CLANG)
  add_test(NAME cgroup_builds_clean_under_clang_werror
    COMMAND ${HP_PROBE_CLANG} -std=c11 -Wall -Wextra -Werror -fsyntax-only
      -I${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/policy/cgroup.c)
endif()

# a fixture tree whose files are a FIFO and a link to /dev/urandom: the
# probe refuses them instead of blocking on the FIFO or reading forever
add_test(NAME probe_root_refuses_fifos_and_devices_without_hanging
  COMMAND sh -c "d=$(mktemp -d) && cp -r \"$1\"/. \"$d\" && ln -sf /dev/urandom \"$d/proc/self/status\" &&
    rm \"$d/sys/kernel/mm/transparent_hugepage/defrag\" && mkfifo \"$d/sys/kernel/mm/transparent_hugepage/defrag\" &&
    timeout 20 \"$2\" probe --root \"$d\"; rc=$?; rm -rf \"$d\"; exit $rc"
  sh ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/thp_madvise $<TARGET_FILE:hugepolicy-cli>)
set_tests_properties(probe_root_refuses_fifos_and_devices_without_hanging PROPERTIES TIMEOUT 40
  PASS_REGULAR_EXPRESSION "refused +sys/kernel/mm/transparent_hugepage/defrag: not a regular file\n.*refused +proc/self/status")
