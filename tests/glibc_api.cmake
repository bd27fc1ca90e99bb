# tests/glibc_api.cmake - glibc's API beyond malloc (mallinfo2, mallinfo,
# malloc_trim, mallopt, malloc_stats, malloc_info) and hugepolicy_stats'
# fields, answered by each backend (integration/glibc_api.c), with 100 MiB
# live in 1 KiB blocks, as ${backend}_${pages}_${case}.  pages=off: the
# backend alone; auto (the default): with hugepolicy's layers in front.
add_executable(test_glibc_api test_glibc_api.c)
target_include_directories(test_glibc_api PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(test_glibc_api PRIVATE hugepolicy pthread)
foreach(B ${BACKENDS})
  foreach(P off auto)
    foreach(C mallinfo2_counts_the_live_heap trim_gives_the_freed_heap_back
        trim_gives_back_what_a_live_thread_freed mallopt_answers_per_backend
        malloc_stats_counts_the_live_heap malloc_info_counts_the_live_heap stats_fields_are_numbers)
      add_test(NAME ${B}_${P}_${C} COMMAND test_glibc_api ${C})
      set_tests_properties(${B}_${P}_${C} PROPERTIES
        ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=${P}" SKIP_RETURN_CODE 77)
    endforeach()
  endforeach()
endforeach()
# ... and in a host that only has it preloaded
foreach(B ${BACKENDS})
  add_test(NAME ${B}_preloaded_host_reaches_mallinfo2_and_malloc_trim
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_glibc_api_preload.sh ${LIB} ${B})
  set_tests_properties(${B}_preloaded_host_reaches_mallinfo2_and_malloc_trim PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
# the record of mimalloc's ranges behind its stats.resident and retained
add_executable(test_mimalloc_maps test_mimalloc_maps.c
  ${CMAKE_SOURCE_DIR}/backends/mimalloc/mimalloc_maps.c ${CMAKE_SOURCE_DIR}/pages/pages.c)
target_include_directories(test_mimalloc_maps PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(test_mimalloc_maps PRIVATE pthread)
foreach(C trims_and_splits_with_munmap is_unknown_when_full)
  add_test(NAME mimalloc_maps_${C} COMMAND test_mimalloc_maps ${C})
endforeach()
