# tests/dispatch.cmake - included from tests/CMakeLists.txt.  The hot path
# of the malloc family (integration/hp_dispatch.h, issue 8 item 5): malloc
# and free are a check and one jump to the backend's own functions, and
# malloc still refuses sizes above PTRDIFF_MAX with ENOMEM.
add_executable(test_dispatch test_dispatch.c $<TARGET_OBJECTS:hugepolicy_objs> $<TARGET_OBJECTS:hp_policy>)
add_dependencies(test_dispatch hpje_archive)
target_include_directories(test_dispatch PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(test_dispatch PRIVATE ${HPJE_DIR}/libhpje.a dl m pthread)

foreach(B ${BACKENDS})
  foreach(P off thp auto)
    set(T ${B}_${P}_malloc_and_free_jump_to_the_backend_itself)
    add_test(NAME ${T} COMMAND test_dispatch ${B} direct)
    set(U ${B}_${P}_malloc_above_ptrdiff_max_fails_with_enomem)
    add_test(NAME ${U} COMMAND test_dispatch ${B} impossible)
    set_tests_properties(${T} ${U} PROPERTIES
      ENVIRONMENT "HUGEPOLICY_BACKEND=${B};HUGEPOLICY_PAGES=${P}" SKIP_RETURN_CODE 77)
    if(B STREQUAL "mimalloc" AND P STREQUAL "thp")
      set_tests_properties(${T} ${U} PROPERTIES RESOURCE_LOCK hugetlb_pool)
    endif()
  endforeach()
endforeach()
