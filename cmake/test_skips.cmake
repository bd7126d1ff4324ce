# Every test may report a missing prerequisite with exit code 77 (tests/prereq.sh
# for shell tests, TEST_MISSING in tests/unit/test.h): ctest shows it as
# skipped, never as passed (and under CI=true the tests fail instead). Deferred
# to the end of CMakeLists.txt so that it covers tests registered anywhere in it.
function(deltac_tests_skip_code)
  get_property(tests DIRECTORY ${CMAKE_SOURCE_DIR} PROPERTY TESTS)
  if(tests)
    set_tests_properties(${tests} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL deltac_tests_skip_code)
