# tests/cgroup.cmake - included from tests/CMakeLists.txt
# cgroup hugetlb limits (policy/cgroup.c): fixture trees for every layout,
# and the real thing under a parent cgroup's limit.


# every layout, from fixture trees (tests/fixtures/cgroup/<case>/proc/self/...,
# sys/fs/cgroup/...): one test per case, asserting errno, limit, usage, where
add_executable(test_cgroup test_cgroup.c $<TARGET_OBJECTS:hp_policy>)
target_include_directories(test_cgroup PRIVATE ${CMAKE_SOURCE_DIR}/include)
set(CG_FIXTURES ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/cgroup)
foreach(C
    v2_leaf_limit v2_other_size_no_limit v2_hybrid_parent_limit v2_parent_smaller_than_leaf
    v2_parent_usage_counts v2_rsvd_tighter v1_hugetlb v1_no_limit_is_huge_number v1_parent_limit
    v2_no_hugetlb_controller v1_no_hugetlb no_cgroup_mounted cgns_root mount_root_not_slash
    outside_namespace escaped_mount_point size_64KB size_32MB size_512MB size_16GB bad_page_size
    bad_value_garbage bad_value_no_newline bad_value_overflow bad_value_negative bad_value_empty
    bad_value_long bad_usage_missing bad_mountinfo_no_newline bad_mountinfo_missing_fields
    bad_mountinfo_escape bad_cgroup_garbage bad_cgroup_relative_path bad_cgroup_no_newline
    bad_controllers_no_newline missing_mountinfo missing_tree huge_overlay_line_skipped
    huge_cgroup_mount_line huge_cgroup_path long_cgroup_path long_mountinfo_limit_used_up
    huge_unrelated_cgroup_line)
  add_test(NAME cgroup_room_${C} COMMAND test_cgroup ${CG_FIXTURES} ${C})
endforeach()
# the same cases with the two policy files built under ASan+UBSan: malformed
# input must never read out of bounds
include(CheckCSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=address,undefined")
set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=address,undefined")
check_c_source_compiles("int main(void) { return 0; }" HP_HAVE_ASAN)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(HP_HAVE_ASAN)
  add_executable(test_cgroup_asan test_cgroup.c ${CMAKE_SOURCE_DIR}/policy/cgroup.c ${CMAKE_SOURCE_DIR}/policy/readfile.c)
  target_include_directories(test_cgroup_asan PRIVATE ${CMAKE_SOURCE_DIR}/include)
  target_compile_options(test_cgroup_asan PRIVATE -fsanitize=address,undefined -fno-sanitize-recover=all -g)
  target_link_options(test_cgroup_asan PRIVATE -fsanitize=address,undefined)
  add_test(NAME cgroup_room_every_case_is_memory_safe COMMAND test_cgroup_asan ${CG_FIXTURES} all)
endif()

# the real thing, as root: a limit on the parent P of the probe's cgroup C;
# a limit on C seen from a cgroup namespace rooted at C; `inspect` of a
# process in C, run from outside it
foreach(M parent cgns inspect)
  if(M STREQUAL parent)
    set(T cgroup_parent_limit_bounds_probe_available)
  elseif(M STREQUAL inspect)
    set(T cgroup_limit_of_the_inspected_process_not_the_callers)
  else()
    set(T cgroup_namespace_root_limit_bounds_probe_available)
  endif()
  add_test(NAME ${T} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_cgroup_real.sh ${CMAKE_BINARY_DIR} ${M})
  set_tests_properties(${T} PROPERTIES RESOURCE_LOCK hugetlb_pool SKIP_RETURN_CODE 77)
endforeach()
