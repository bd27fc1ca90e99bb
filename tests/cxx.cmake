# tests/cxx.cmake - included from tests/CMakeLists.txt
#
# C++ code loaded with dlopen(RTLD_LOCAL) by a C host (how Python loads C++
# extensions): its libstdc++ is not in the global scope, and a failed
# operator new must still throw std::bad_alloc, honour std::set_new_handler
# and give nullptr from nothrow new.  The module limits RLIMIT_AS so that big
# requests fail on every backend.

add_library(cxx_local_module MODULE cxx_local_module.cc)
# the same with libstdc++ linked in (many Python wheels do this): only the
# caller's own object has the runtime, and no std::__throw_bad_alloc
add_library(cxx_local_static_module MODULE cxx_local_module.cc)
target_link_options(cxx_local_static_module PRIVATE -static-libstdc++)
add_executable(test_cxx_local test_cxx_local.c)
target_link_libraries(test_cxx_local PRIVATE hugepolicy dl)

# the real interpreter, not a pyenv shim (a shell script) under LD_PRELOAD
execute_process(COMMAND ${Python3_EXECUTABLE} -c "import sys; print(sys.executable)"
  OUTPUT_VARIABLE CXX_LOCAL_PYTHON OUTPUT_STRIP_TRAILING_WHITESPACE)
set(CXX_LOCAL_CTYPES "import ctypes, os, sys; m = ctypes.CDLL(sys.argv[1], mode=os.RTLD_LOCAL); sys.exit(m.cxx_local_run(sys.argv[2].encode()))")

set(CXX_LOCAL_CASES
  bad_alloc:rtld_local_cxx_new_throws_bad_alloc
  nothrow:rtld_local_cxx_nothrow_new_returns_null
  handler_frees_reserve:rtld_local_cxx_new_handler_frees_memory_and_retry_succeeds
  handler_throws:rtld_local_cxx_new_handler_that_throws_ends_in_catch
  handler_uninstalls:rtld_local_cxx_new_handler_that_uninstalls_ends_in_bad_alloc
  nothrow_handler:rtld_local_cxx_nothrow_new_calls_new_handler)

foreach(B ${BACKENDS})
  set(T_ENV "HUGEPOLICY_BACKEND=${B}")
  set(T_NAMES)
  foreach(C ${CXX_LOCAL_CASES})
    string(REPLACE ":" ";" C ${C})
    list(GET C 0 CASE)
    list(GET C 1 NAME)
    add_test(NAME ${B}_${NAME} COMMAND test_cxx_local ${B} $<TARGET_FILE:cxx_local_module> ${CASE})
    list(APPEND T_NAMES ${B}_${NAME})
  endforeach()
  foreach(C bad_alloc:static_libstdcxx_rtld_local_cxx_new_throws_bad_alloc
      handler_frees_reserve:static_libstdcxx_rtld_local_cxx_new_handler_frees_memory_and_retry_succeeds
      nothrow_handler:static_libstdcxx_rtld_local_cxx_nothrow_new_calls_new_handler)
    string(REPLACE ":" ";" C ${C})
    list(GET C 0 CASE)
    list(GET C 1 NAME)
    add_test(NAME ${B}_${NAME} COMMAND test_cxx_local ${B} $<TARGET_FILE:cxx_local_static_module> ${CASE} static)
    list(APPEND T_NAMES ${B}_${NAME})
  endforeach()
  add_test(NAME ${B}_c_nothrow_new_finds_rtld_local_libstdcxx_new_handler
    COMMAND test_cxx_local ${B} $<TARGET_FILE:cxx_local_module> c_nothrow_finds_local_runtime)
  add_test(NAME ${B}_no_cxx_runtime_nothrow_new_returns_null COMMAND test_cxx_local ${B} - no_runtime_nothrow)
  add_test(NAME ${B}_no_cxx_runtime_throwing_new_aborts_with_one_line COMMAND test_cxx_local ${B} - no_runtime_abort)
  list(APPEND T_NAMES ${B}_c_nothrow_new_finds_rtld_local_libstdcxx_new_handler
    ${B}_no_cxx_runtime_nothrow_new_returns_null ${B}_no_cxx_runtime_throwing_new_aborts_with_one_line)
  set_tests_properties(${T_NAMES} PROPERTIES ENVIRONMENT "${T_ENV}")

  # Python's own way: ctypes.CDLL(mode=RTLD_LOCAL) under LD_PRELOAD
  foreach(C bad_alloc:python_ctypes_rtld_local_cxx_new_throws_bad_alloc
      handler_frees_reserve:python_ctypes_rtld_local_cxx_new_handler_frees_memory_and_retry_succeeds)
    string(REPLACE ":" ";" C ${C})
    list(GET C 0 CASE)
    list(GET C 1 NAME)
    add_test(NAME ${B}_${NAME}
      COMMAND ${CXX_LOCAL_PYTHON} -c "${CXX_LOCAL_CTYPES}" $<TARGET_FILE:cxx_local_module> ${CASE})
    set_tests_properties(${B}_${NAME} PROPERTIES ENVIRONMENT "${T_ENV};LD_PRELOAD=${LIB}")
  endforeach()
endforeach()
