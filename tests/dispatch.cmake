# tests/dispatch.cmake - included from tests/CMakeLists.txt.  The hot path
# of the malloc family (integration/hp_dispatch.h, issue 8 item 5, issue 19
# item 7): malloc and free are a check and one jump to the backend's own
# functions, every new block is 16-aligned, free's cold path below
# HP_LOW_END still reaches the backend, and malloc still refuses sizes
# above PTRDIFF_MAX with ENOMEM.
add_executable(test_dispatch test_dispatch.c $<TARGET_OBJECTS:hugepolicy_objs> $<TARGET_OBJECTS:hp_policy>)
add_dependencies(test_dispatch hpje_archive)
target_include_directories(test_dispatch PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(test_dispatch PRIVATE ${HPJE_DIR}/libhpje.a dl m pthread)

foreach(B ${BACKENDS})
  foreach(P off thp auto hugetlb)
    set(T ${B}_${P}_malloc_and_free_jump_to_the_backend_itself)
    add_test(NAME ${T} COMMAND test_dispatch ${B} direct)
    set(U ${B}_${P}_malloc_above_ptrdiff_max_fails_with_enomem)
    add_test(NAME ${U} COMMAND test_dispatch ${B} impossible)
    set(V ${B}_${P}_free_below_the_low_end_still_reaches_the_backend)
    add_test(NAME ${V} COMMAND test_dispatch ${B} low)
    set_tests_properties(${T} ${U} ${V} PROPERTIES
      ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=${P}" SKIP_RETURN_CODE 77)
    if((B STREQUAL "mimalloc" AND P STREQUAL "thp") OR P STREQUAL "hugetlb")
      set_tests_properties(${T} ${U} ${V} PROPERTIES RESOURCE_LOCK hugetlb_pool)
    endif()
  endforeach()
endforeach()
