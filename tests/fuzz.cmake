# tests/fuzz.cmake - included from tests/CMakeLists.txt
# libFuzzer targets (tests/fuzz/): the option table, every /proc and /sys
# parser the probe uses (files served from the input by vfs.c), the cgroup
# walk, smaps_rollup, the escaping of printed text, the line reader.  Built
# with clang's -fsanitize=fuzzer,address,undefined (Debian: clang,
# libclang-rt-14-dev) when it is there; each runs ~4 s here (LABELS fuzz)
# over its seeds and regression inputs (tests/fuzz/corpus/<target>/);
# perf/fuzz/run.sh is the long job.
option(HUGEPOLICY_FUZZ "Build the libFuzzer targets (clang) and run each briefly" ON)
if(NOT HUGEPOLICY_FUZZ)
  return()
endif()
find_program(HP_CLANG NAMES clang clang-16 clang-15 clang-14)
set(FUZZ_OUT ${CMAKE_CURRENT_BINARY_DIR}/fuzz)
if(HP_CLANG)
  file(MAKE_DIRECTORY ${FUZZ_OUT})
  execute_process(COMMAND sh -c "printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n > 9 ? 0 : 0; }\\n' | ${HP_CLANG} -x c -fsanitize=fuzzer,address,undefined -o ${FUZZ_OUT}/libfuzzer_check -"
    RESULT_VARIABLE HP_LIBFUZZER_RC OUTPUT_QUIET ERROR_QUIET)
endif()
if(NOT HP_CLANG OR NOT HP_LIBFUZZER_RC EQUAL 0)
  message(STATUS "fuzz: no clang with libFuzzer (Debian: clang libclang-rt-14-dev); fuzz tests skipped")
  return()
endif()

set(FUZZ_SRC ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
set(FUZZ_TARGETS options probe cgroup smaps escape readlines)
file(GLOB FUZZ_DEPS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/policy/*.[ch] ${CMAKE_SOURCE_DIR}/include/*.h
  ${CMAKE_SOURCE_DIR}/pages/pages.c ${CMAKE_SOURCE_DIR}/pages/hp_pages.h
  ${FUZZ_SRC}/*.[ch] ${CMAKE_CURRENT_SOURCE_DIR}/sanitize/textcheck.h)
list(TRANSFORM FUZZ_TARGETS PREPEND ${FUZZ_OUT}/fuzz_ OUTPUT_VARIABLE FUZZ_BINS)
add_custom_command(OUTPUT ${FUZZ_BINS}
  COMMAND sh ${FUZZ_SRC}/build.sh ${CMAKE_SOURCE_DIR} ${FUZZ_OUT} ${HP_CLANG}
  DEPENDS ${FUZZ_DEPS} ${FUZZ_SRC}/build.sh
  COMMENT "Building the libFuzzer targets with ${HP_CLANG}")
add_custom_target(fuzz_targets ALL DEPENDS ${FUZZ_BINS})

set(FUZZ_NAMES
  options options_table_keeps_its_rules_on_fuzzed_values
  probe probe_parses_fuzzed_proc_and_sys_files_safely
  cgroup cgroup_room_is_one_answer_with_or_without_a_root
  smaps smaps_rollup_fields_parse_safely
  escape escaped_text_stays_printable_and_json_valid
  readlines line_reader_hands_over_each_line_once)
while(FUZZ_NAMES)
  list(POP_FRONT FUZZ_NAMES T N)
  add_test(NAME fuzz_${N} COMMAND sh ${FUZZ_SRC}/run_short.sh ${FUZZ_OUT}/fuzz_${T}
    ${FUZZ_SRC}/corpus/${T} ${FUZZ_OUT}/work/${T} 4)
  set_tests_properties(fuzz_${N} PROPERTIES LABELS fuzz TIMEOUT 180)
endwhile()
