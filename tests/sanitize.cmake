# tests/sanitize.cmake - included from tests/CMakeLists.txt
# hugepolicy under the sanitizers (issue 11, "Proof").  ASan and TSan bring
# their own malloc, so a whole libhugepolicy.so cannot run under them: the
# drivers here link policy/*.c and the hugetlb layer (and, for the start-up
# race, integration/init.c + boot.c with stub backends) straight into a test
# binary, never the malloc entry points.  UBSan has no malloc of its own and
# runs on the whole library in a second build tree (ubsan_whole.sh); valgrind
# memcheck runs real programs under the library (valgrind.sh).  Every part is
# on by default where the compiler supports it; HUGEPOLICY_SANITIZE=OFF
# drops them all.  Each driver also has a planted bug that its sanitizer
# must report, so a test cannot pass because the flags went missing.
option(HUGEPOLICY_SANITIZE "Build and run the sanitizer tests (ASan+UBSan, TSan, UBSan whole, valgrind)" ON)
if(NOT HUGEPOLICY_SANITIZE)
  return()
endif()

include(CheckCSourceCompiles)
include(CheckCSourceRuns)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=address,undefined")
set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=address,undefined")
check_c_source_compiles("int main(void) { return 0; }" HP_SAN_HAVE_ASAN_UBSAN)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=thread")
set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=thread")
check_c_source_runs("int main(void) { return 0; }" HP_SAN_HAVE_TSAN)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)

set(SAN_DIR ${CMAKE_CURRENT_SOURCE_DIR}/sanitize)
file(GLOB SAN_POLICY CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/policy/*.c)
set(SAN_TLB ${CMAKE_SOURCE_DIR}/pages/hugetlb_map.c ${CMAKE_SOURCE_DIR}/pages/hugetlb_map_lock.c ${CMAKE_SOURCE_DIR}/pages/hugetlb_pages.c)
set(SAN_FORK ${CMAKE_SOURCE_DIR}/pages/hugetlb_fork.c ${CMAKE_SOURCE_DIR}/pages/hugetlb_fork_sigbus.c
  ${CMAKE_SOURCE_DIR}/pages/hugetlb_vmas.c
  ${CMAKE_SOURCE_DIR}/pages/fork_stack.c
  ${CMAKE_SOURCE_DIR}/pages/pages.c)
set(SAN_ENV "ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:strict_string_checks=1"
  "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
  "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1")

function(san_target NAME FLAGS)
  add_executable(${NAME} ${ARGN})
  target_include_directories(${NAME} PRIVATE ${CMAKE_SOURCE_DIR}/include)
  target_compile_options(${NAME} PRIVATE ${FLAGS} -fno-omit-frame-pointer -g)
  target_link_options(${NAME} PRIVATE ${FLAGS})
  target_link_libraries(${NAME} PRIVATE pthread)
endfunction()

# name: what it asserts; command: the driver's argument
function(san_test NAME)
  add_test(NAME ${NAME} COMMAND ${ARGN})
  set_tests_properties(${NAME} PROPERTIES LABELS sanitize ENVIRONMENT "${SAN_ENV}" TIMEOUT 300)
endfunction()

# planted bugs: the sanitizer's own words must appear
function(san_canary NAME REGEX)
  san_test(${NAME} ${ARGN})
  set_tests_properties(${NAME} PROPERTIES PASS_REGULAR_EXPRESSION "${REGEX}")
endfunction()

if(HP_SAN_HAVE_ASAN_UBSAN)
  san_target(san_units "-fsanitize=address,undefined;-fno-sanitize-recover=all"
    ${SAN_DIR}/san_units.c ${SAN_DIR}/san_policy.c ${SAN_DIR}/san_report.c ${SAN_DIR}/san_tlb.c
    ${SAN_DIR}/san_common.c ${SAN_POLICY} ${SAN_TLB} ${CMAKE_SOURCE_DIR}/pages/pages.c)
  san_test(asan_ubsan_option_parser_takes_good_and_refuses_bad_values san_units options)
  san_test(asan_ubsan_plan_over_a_grid_of_probes_keeps_its_rules san_units plan)
  san_test(asan_ubsan_probe_reads_this_machine_within_its_buffers san_units probe)
  san_test(asan_ubsan_escaped_text_json_and_say_lines_stay_in_bounds san_units report)
  san_test(asan_ubsan_hugetlb_table_from_threads_and_hugetlb_mapping san_units tlb)
  # it may take pool pages for a moment (hp_pages_map_hugetlb)
  set_tests_properties(asan_ubsan_hugetlb_table_from_threads_and_hugetlb_mapping PROPERTIES
    RESOURCE_LOCK hugetlb_pool)
  san_canary(asan_reports_a_planted_use_after_free "ERROR: AddressSanitizer: heap-use-after-free" san_units canary-asan)
  san_canary(ubsan_reports_a_planted_signed_overflow "runtime error: signed integer overflow" san_units canary-ubsan)
else()
  message(STATUS "sanitize: ${CMAKE_C_COMPILER_ID} cannot build -fsanitize=address,undefined; ASan tests skipped")
endif()

if(HP_SAN_HAVE_TSAN)
  san_target(san_tsan -fsanitize=thread
    ${SAN_DIR}/san_tsan.c ${SAN_DIR}/san_tlb.c ${SAN_DIR}/san_common.c ${SAN_POLICY} ${SAN_TLB} ${SAN_FORK})
  san_test(tsan_hugetlb_table_from_threads_has_no_data_race san_tsan tlb)
  # it may take pool pages for a moment (hp_pages_map_hugetlb), as its ASan twin
  set_tests_properties(tsan_hugetlb_table_from_threads_has_no_data_race PROPERTIES RESOURCE_LOCK hugetlb_pool)
  san_test(tsan_fork_while_threads_change_the_hugetlb_table san_tsan fork)
  san_test(tsan_options_probe_plan_and_say_from_threads_have_no_data_race san_tsan policy)
  san_canary(tsan_reports_a_planted_data_race "WARNING: ThreadSanitizer: data race" san_tsan canary)
  # start-up itself: init.c + boot.c with stub backends (san_startup.c)
  san_target(san_startup -fsanitize=thread
    ${SAN_DIR}/san_startup.c ${CMAKE_SOURCE_DIR}/integration/init.c ${CMAKE_SOURCE_DIR}/integration/boot.c
    ${SAN_POLICY} ${SAN_TLB} ${SAN_FORK} ${CMAKE_SOURCE_DIR}/pages/thp_switch.c
    ${CMAKE_SOURCE_DIR}/pages/fault_cost.c ${CMAKE_SOURCE_DIR}/pages/fault_measure.c
    ${CMAKE_SOURCE_DIR}/pages/thp_large.c ${CMAKE_SOURCE_DIR}/pages/thp_mid.c ${CMAKE_SOURCE_DIR}/pages/folio_scan.c ${CMAKE_SOURCE_DIR}/pages/advised_set.c
    ${CMAKE_SOURCE_DIR}/pages/heap_promote.c)
  san_test(tsan_start_up_race_runs_start_up_once_and_shares_the_plan san_startup system)
  san_test(tsan_start_up_race_falls_back_from_a_refusing_backend san_startup system)
  set_property(TEST tsan_start_up_race_runs_start_up_once_and_shares_the_plan APPEND PROPERTY
    ENVIRONMENT HUGEPOLICY_BACKEND=system HUGEPOLICY_PAGES=auto)
  set_property(TEST tsan_start_up_race_falls_back_from_a_refusing_backend APPEND PROPERTY
    ENVIRONMENT HUGEPOLICY_BACKEND=mimalloc HUGEPOLICY_VERBOSE=1)
else()
  message(STATUS "sanitize: -fsanitize=thread does not build or run here; TSan tests skipped")
endif()

# UBSan on the whole library: a second tree built with -fsanitize=undefined,
# a subset of its tests (about 130, 1-2 minutes); its pool tests change the
# pool, so this holds the pool lock
set(CMAKE_REQUIRED_FLAGS "-fsanitize=undefined")
set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=undefined")
check_c_source_compiles("int main(void) { return 0; }" HP_SAN_HAVE_UBSAN)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(HP_SAN_HAVE_UBSAN)
  san_test(ubsan_whole_library_passes_its_tests_without_a_report
    sh ${SAN_DIR}/ubsan_whole.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/san-ubsan-tree)
  set_tests_properties(ubsan_whole_library_passes_its_tests_without_a_report PROPERTIES
    TIMEOUT 900 RESOURCE_LOCK hugetlb_pool)
endif()

# valgrind memcheck with hugepolicy's malloc in place (valgrind.sh says what
# it sees under each backend); 77 = valgrind not installed
set(VG sh ${SAN_DIR}/valgrind.sh)
foreach(B ${BACKENDS})
  san_test(valgrind_${B}_c_standard_calls_are_memcheck_clean ${VG} leaks $<TARGET_FILE:test_cstd> ${B})
  san_test(valgrind_${B}_cxx_new_delete_variants_are_memcheck_clean ${VG} leaks $<TARGET_FILE:test_cxx_host> ${B})
  san_test(valgrind_${B}_glibc_tst_malloc_is_memcheck_clean ${VG} leaks $<TARGET_FILE:glibc_tst-malloc>)
  san_test(valgrind_${B}_glibc_tst_realloc_is_memcheck_clean ${VG} leaks $<TARGET_FILE:glibc_tst-realloc>)
endforeach()
# threads under valgrind are slow (one at a time): start-up race and fork for
# the system backend only, where memcheck sees the blocks themselves
san_test(valgrind_system_threads_racing_on_first_allocation_are_memcheck_clean
  ${VG} leaks $<TARGET_FILE:test_race> system)
san_test(valgrind_system_fork_while_threads_allocate_is_memcheck_clean
  ${VG} noleaks $<TARGET_FILE:test_fork> system)
set_tests_properties(valgrind_system_fork_while_threads_allocate_is_memcheck_clean PROPERTIES
  RESOURCE_LOCK hugetlb_pool)
foreach(B ${BACKENDS})
  foreach(T c_standard_calls_are cxx_new_delete_variants_are glibc_tst_malloc_is glibc_tst_realloc_is
      threads_racing_on_first_allocation_are fork_while_threads_allocate_is)
    if(TEST valgrind_${B}_${T}_memcheck_clean)
      set_property(TEST valgrind_${B}_${T}_memcheck_clean APPEND PROPERTY
        ENVIRONMENT HUGEPOLICY_BACKEND=${B} HUGEPOLICY_PAGES=thp)
      set_tests_properties(valgrind_${B}_${T}_memcheck_clean PROPERTIES SKIP_RETURN_CODE 77)
    endif()
  endforeach()
endforeach()
add_executable(vg_canary ${SAN_DIR}/vg_canary.c)
target_link_libraries(vg_canary PRIVATE hugepolicy)
san_canary(valgrind_reports_a_planted_double_free_through_the_system_backend
  "Invalid free\\(\\) / delete" ${VG} leaks $<TARGET_FILE:vg_canary>)
set_property(TEST valgrind_reports_a_planted_double_free_through_the_system_backend APPEND PROPERTY
  ENVIRONMENT HUGEPOLICY_BACKEND=system)
