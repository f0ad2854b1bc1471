# Precompiled headers: gtest/gmock for every test executable and CLI11 for the command line
# are compiled once instead of once per source file (they cost 0.8-3.3 s a file). Test
# executables reuse one precompiled header; the macros they add (KRAKEN_BINARY_PATH, ...)
# are not read by those headers, so the one header stays valid for all of them.
option(KRAKEN_PCH "Precompile the heavy third-party headers" ON)
option(KRAKEN_UNITY "Compile the command line and the test suites as unity builds" ON)
if(KRAKEN_PCH AND KRAKEN_BUILD_TESTS)
  file(WRITE ${CMAKE_BINARY_DIR}/generated/test_pch.cc "// Compiles the test suites' precompiled header.\n")
  add_library(kraken_test_pch STATIC ${CMAKE_BINARY_DIR}/generated/test_pch.cc)
  target_link_libraries(kraken_test_pch PRIVATE GTest::gtest GTest::gmock)
  target_precompile_headers(kraken_test_pch PRIVATE <gtest/gtest.h> <gmock/gmock.h>)
  target_compile_options(kraken_test_pch PRIVATE -O1)
  # A precompiled header is used only with the flags it was made with: the test executables
  # that reuse it compile without -fPIC/-fPIE (the compiler's default), so it does too,
  # whatever CMAKE_POSITION_INDEPENDENT_CODE says for the libraries (libkraken.so).
  set_target_properties(kraken_test_pch PROPERTIES POSITION_INDEPENDENT_CODE OFF)
endif()

# kraken_test_target(target): how every test executable compiles. At -O1: the code under
# test is in the libraries (built -O3); the tests' own code is checked for what it does,
# and -O3 costs up to twice the compile time on gtest's expanded macros.
function(kraken_test_target target)
  target_compile_options(${target} PRIVATE -O1)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE OFF)
  if(KRAKEN_PCH)
    target_precompile_headers(${target} REUSE_FROM kraken_test_pch)
  endif()
endfunction()

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
  kraken_test_target(${ARG_NAME})
  set_target_properties(${ARG_NAME} PROPERTIES UNITY_BUILD ${KRAKEN_UNITY} UNITY_BUILD_BATCH_SIZE 6)
  gtest_discover_tests(${ARG_NAME} DISCOVERY_TIMEOUT 60)
endfunction()
