# kraken_add_tests(NAME target SOURCES a_test.cc ... LIBS lib ...)
# One gtest executable per stage; every TEST becomes its own ctest entry so
# failures name the test. Where the shared real data is comes from kraken_testing
# (KRAKEN_DATA_DIR at configure time, overridable by the environment variable).
function(kraken_add_tests)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;LIBS" ${ARGN})
  if(NOT KRAKEN_BUILD_TESTS)
    return()
  endif()
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_LIBS} kraken_testing GTest::gtest GTest::gtest_main)
  gtest_discover_tests(${ARG_NAME} DISCOVERY_TIMEOUT 60)
endfunction()
