/* A minimal harness for the C tests of libkraken (plain C99: these programs check that the
 * ABI is usable from C, without any C++ in the test). Each program lists its cases; ctest
 * runs one case per entry (`program CASE`). Real data comes from the shared data folder:
 * $KRAKEN_DATA_DIR, else the folder CMake was configured with; a missing file fails. */
#ifndef KRAKEN_CAPI_TESTS_C_TEST_H_
#define KRAKEN_CAPI_TESTS_C_TEST_H_

#include <stddef.h>

#include "kraken/kraken.h"

/* Failures of the running case; the case fails when any check did. */
extern int kt_failures;

void kt_fail(const char* file, int line, const char* what);

#define KT_CHECK(cond)                               \
  do {                                               \
    if (!(cond)) kt_fail(__FILE__, __LINE__, #cond); \
  } while (0)

/* A call's status, with the library's message when it is not the expected one. */
#define KT_CHECK_STATUS(call, expected)                                  \
  do {                                                                   \
    kraken_status kt_status_ = (call);                                   \
    if (kt_status_ != (expected)) {                                      \
      kt_fail_status(__FILE__, __LINE__, #call, kt_status_, (expected)); \
    }                                                                    \
  } while (0)
void kt_fail_status(const char* file, int line, const char* call, kraken_status got, kraken_status expected);

/* `text` contains `part` (both may be NULL: that fails). */
#define KT_CHECK_CONTAINS(text, part) kt_check_contains(__FILE__, __LINE__, (text), (part))
void kt_check_contains(const char* file, int line, const char* text, const char* part);

/* Byte-equal documents; on a difference the offset and both sides around it are printed. */
#define KT_CHECK_SAME(got, expected) kt_check_same(__FILE__, __LINE__, (got), (expected))
void kt_check_same(const char* file, int line, const char* got, const char* expected);

/* Absolute path of a file of the shared data (static buffer per call: copy it to keep). */
char* kt_data_path(const char* relative);
/* A fixture of the source tree (tests/fixtures/...). */
char* kt_source_path(const char* relative);
/* A fresh empty directory for the case, removed after it unless the case failed. */
char* kt_temp_dir(const char* name);
/* The path of CMake target `target`'s file in this build (the kraken binary, the NVML replay
 * library, ...), from the list CMake writes at the build folder's root
 * (kraken_built_files.txt), found above this executable: no test object holds a path of the
 * clone. A target not listed fails the case and gives a path that does not exist. Static
 * buffer per call: copy it to keep. */
const char* kt_built_file(const char* target);
#define KRAKEN_NVML_REPLAY_LIBRARY kt_built_file("kraken_nvml_replay")
/* Standard output of `kraken ARGS` (the binary built with the library); *exit_code gets
 * its exit status. Returned text is malloc'd. */
char* kt_kraken(const char* args, int* exit_code);
/* The whole file (malloc'd), NULL when unreadable. */
char* kt_read_file(const char* path);
/* Writes `text` to `path`. */
void kt_write_file(const char* path, const char* text);
/* A printf into a malloc'd string. */
char* kt_format(const char* format, ...);
/* Replaces the number after every `"KEY": ` with 0 (timings that differ run to run). */
void kt_mask_number(char* document, const char* key);

typedef struct {
  const char* name;
  void (*run)(void);
} kt_case;

/* Runs the case named argv[1] (every case without an argument); exit status 0 when all
 * checks passed. */
int kt_main(int argc, char** argv, const kt_case* cases, size_t count);

#endif /* KRAKEN_CAPI_TESTS_C_TEST_H_ */
