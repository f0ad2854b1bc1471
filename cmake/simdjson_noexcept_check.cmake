# simdjson's implicit conversions (`bool b = element`, `.value()` on an error result, ...)
# throw simdjson_error, and nothing in kraken catches it: one bad field from a file, a
# kubelet or an API server would end the process (a fuzzer found exactly that in the pod-list
# reader). With SIMDJSON_EXCEPTIONS=0 those conversions do not exist, so compiling every
# non-test file that uses simdjson that way turns each throwing call into a build error.
# The objects are not linked anywhere (Debian's libsimdjson is built with exceptions); the
# check runs in the plain build only, and ccache serves it like any other unit.
if(KRAKEN_SANITIZE OR KRAKEN_FUZZ)
  return()
endif()
# The files that use simdjson: those that name it, or include a header of src/ that does.
file(GLOB_RECURSE kraken_noexcept_headers CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/*.h)
set(kraken_noexcept_include_regex "#include [<\"]simdjson\\.h")
foreach(header IN LISTS kraken_noexcept_headers)
  file(STRINGS ${header} uses REGEX "simdjson")
  if(uses)
    file(RELATIVE_PATH relative ${CMAKE_SOURCE_DIR}/src ${header})
    string(REPLACE "." "\\." relative "${relative}")
    string(APPEND kraken_noexcept_include_regex "|#include \"${relative}\"")
  endif()
endforeach()
file(GLOB_RECURSE kraken_noexcept_candidates CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/*.cc)
set(kraken_noexcept_sources "")
foreach(file IN LISTS kraken_noexcept_candidates)
  if(file MATCHES "(_test|_fuzzer|/fake_[^/]*|/testing/[^/]*|/tests/[^/]*)\\.cc$")
    continue()
  endif()
  file(STRINGS ${file} uses REGEX "simdjson|${kraken_noexcept_include_regex}")
  if(uses)
    list(APPEND kraken_noexcept_sources ${file})
  endif()
endforeach()
add_library(kraken_simdjson_noexcept_check OBJECT ${kraken_noexcept_sources})
set_target_properties(kraken_simdjson_noexcept_check PROPERTIES UNITY_BUILD OFF)
target_compile_definitions(kraken_simdjson_noexcept_check PRIVATE SIMDJSON_EXCEPTIONS=0)
# Only the include folders and definitions of what those files build against.
target_link_libraries(kraken_simdjson_noexcept_check PRIVATE
  kraken_app kraken_importers kraken_k8s kraken_promql kraken_server kraken_capi simdjson::simdjson kraken_httplib)
