# kraken_add_tests(NAME target SOURCES a_test.cc ... LIBS lib ...)
# One gtest executable per stage; every TEST becomes its own ctest entry so
# failures name the test, and KRAKEN_DATA_DIR points at the shared real data.
function(kraken_add_tests)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;LIBS" ${ARGN})
  if(NOT KRAKEN_BUILD_TESTS)
    return()
  endif()
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_LIBS} kraken_testing GTest::gtest GTest::gtest_main)
  gtest_discover_tests(${ARG_NAME}
    PROPERTIES ENVIRONMENT "KRAKEN_DATA_DIR=${KRAKEN_DATA_DIR};KRAKEN_SOURCE_DIR=${CMAKE_SOURCE_DIR}"
    DISCOVERY_TIMEOUT 60)
endfunction()
