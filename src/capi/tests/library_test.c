/* The library's identity, its error conventions and option checking, and calls from
 * several threads at once. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "c_test.h"

static const char* kTrace = "kineto/hta/call_stack/backward_thread.json";

static void VersionsMatchTheHeaderAndTheBinary(void) {
  KT_CHECK(kraken_abi_version() == KRAKEN_ABI_VERSION);
  KT_CHECK(strcmp(kraken_version(), KRAKEN_EXPECTED_VERSION) == 0);
  int code = -1;
  char* cli = kt_kraken("--version", &code);
  KT_CHECK(code == 0);
  char* expected = kt_format("kraken %s\n", kraken_version());
  KT_CHECK_SAME(cli, expected);
  free(expected);
  free(cli);
}

static void OptionsThatAreNotAnObjectAreRefused(void) {
  const char* inputs[] = {kt_data_path(kTrace)};
  char* out = (char*)1;
  KT_CHECK_STATUS(kraken_analyze(inputs, 1, "{\"top\": 3", &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK(out == NULL);
  KT_CHECK_CONTAINS(kraken_last_error(), "options are not valid JSON");
  KT_CHECK(kraken_last_error_code() == KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_STATUS(kraken_analyze(inputs, 1, "[1, 2]", &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "options must be a JSON object");
}

static void UnknownKeysAndWrongTypesNameTheKey(void) {
  const char* inputs[] = {kt_data_path(kTrace)};
  char* out = NULL;
  KT_CHECK_STATUS(kraken_analyze(inputs, 1, "{\"devise\": \"h100-sxm\"}", &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "unknown option 'devise'");
  KT_CHECK_CONTAINS(kraken_last_error(), "device"); /* the keys the call knows */
  KT_CHECK_STATUS(kraken_analyze(inputs, 1, "{\"top\": \"ten\"}", &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "option 'top' must be a whole number");
  KT_CHECK_STATUS(kraken_analyze(inputs, 1, "{\"top\": -1}", &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "option 'top' must be a whole number >= 0");
  KT_CHECK_STATUS(kraken_analyze(inputs, 1, "{\"linked_only\": 1}", &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "option 'linked_only' must be true or false");
  KT_CHECK_STATUS(kraken_analyze(inputs, 1, "{\"output\": \"yaml\"}", &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "option 'output' must be \"json\" or \"text\"");
  KT_CHECK_STATUS(kraken_disagg(inputs, 1, "{\"link\": [\"100Gbps,5us\", 7]}", &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "option 'link' must be a string or an array of strings");
  /* A key of another call is unknown here: colocate's "model" is not an optimize key. */
  KT_CHECK_STATUS(kraken_colocate_optimize(inputs, 1, "{\"gpus\": 1, \"model\": \"measured\"}", &out),
                  KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "unknown option 'model'");
  /* null is the same as leaving a key out. */
  KT_CHECK_STATUS(kraken_analyze(inputs, 1, "{\"device\": null, \"top\": 2}", &out), KRAKEN_OK);
  KT_CHECK(out != NULL);
  kraken_free(out);
}

static void BadValuesAreInputErrorsWithTheCliMessage(void) {
  const char* inputs[] = {kt_data_path(kTrace)};
  char* out = NULL;
  KT_CHECK_STATUS(kraken_analyze(inputs, 1, "{\"device\": \"no-such-gpu\"}", &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "unknown device 'no-such-gpu'");
  KT_CHECK_STATUS(kraken_analyze(inputs, 1, "{\"thresholds\": \"50\"}", &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "--thresholds expects LOW,HIGH");
  KT_CHECK_STATUS(kraken_disagg(inputs, 1, "{\"price\": -1}", &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "price (--price) must be >= 0");
}

static void NullPointersAndMissingInputsAreArgumentErrors(void) {
  char* out = NULL;
  KT_CHECK_STATUS(kraken_analyze(NULL, 1, NULL, &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "inputs array is NULL");
  const char* holes[] = {kt_data_path(kTrace), NULL};
  KT_CHECK_STATUS(kraken_analyze(holes, 2, NULL, &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "inputs[1] is NULL");
  KT_CHECK_STATUS(kraken_analyze(holes, 0, NULL, &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "kraken_analyze needs at least one input");
  KT_CHECK_STATUS(kraken_analyze(holes, 1, NULL, NULL), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "out pointer is NULL");
  KT_CHECK_STATUS(kraken_predict_interference(NULL, "x", NULL, &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_STATUS(kraken_pack(NULL, NULL, NULL, &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_STATUS(kraken_cluster_analyze(NULL, NULL, &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_STATUS(kraken_export_profile(NULL, NULL, &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_STATUS(kraken_session_start(NULL, NULL), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_STATUS(kraken_session_step(NULL), KRAKEN_ERROR_INVALID_ARGUMENT);
  int64_t passes = 0;
  KT_CHECK_STATUS(kraken_session_passes(NULL, &passes), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_STATUS(kraken_session_stop(NULL, &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  kraken_free(NULL);
  kraken_session_free(NULL);
}

static void SuccessClearsTheLastError(void) {
  const char* inputs[] = {kt_data_path(kTrace)};
  char* out = NULL;
  KT_CHECK_STATUS(kraken_analyze(inputs, 1, "{\"bogus\": 1}", &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK(strlen(kraken_last_error()) > 0);
  KT_CHECK_STATUS(kraken_analyze(inputs, 1, "", &out), KRAKEN_OK);
  KT_CHECK(strcmp(kraken_last_error(), "") == 0);
  KT_CHECK(kraken_last_error_code() == KRAKEN_OK);
  kraken_free(out);
}

/* Calls from several threads at once give the CLI's document each, and each thread keeps
 * its own last error. */
struct ThreadRun {
  const char* path;
  int fail_on_purpose;
  char* document;
  kraken_status status;
  char error[256];
};

static void* AnalyzeOnThread(void* arg) {
  struct ThreadRun* run = arg;
  const char* inputs[] = {run->path};
  run->status = kraken_analyze(inputs, 1, run->fail_on_purpose ? "{\"window\": \"epochs\"}" : NULL, &run->document);
  strncpy(run->error, kraken_last_error(), sizeof(run->error) - 1);
  return NULL;
}

static void ConcurrentCallsAreIndependent(void) {
  char* path = strdup(kt_data_path(kTrace));
  int code = -1;
  char* args = kt_format("analyze --json '%s'", path);
  char* expected = kt_kraken(args, &code);
  KT_CHECK(code == 0);
  enum { kThreads = 6 };
  struct ThreadRun runs[kThreads];
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    memset(&runs[i], 0, sizeof(runs[i]));
    runs[i].path = path;
    runs[i].fail_on_purpose = i % 3 == 2;
    KT_CHECK(pthread_create(&threads[i], NULL, AnalyzeOnThread, &runs[i]) == 0);
  }
  for (int i = 0; i < kThreads; ++i) {
    pthread_join(threads[i], NULL);
    if (runs[i].fail_on_purpose) {
      KT_CHECK(runs[i].status == KRAKEN_ERROR_INVALID_INPUT);
      KT_CHECK_CONTAINS(runs[i].error, "--window must be 'trace' or 'steps'");
    } else {
      KT_CHECK(runs[i].status == KRAKEN_OK);
      KT_CHECK(strcmp(runs[i].error, "") == 0);
      KT_CHECK_SAME(runs[i].document, expected);
    }
    kraken_free(runs[i].document);
  }
  free(expected);
  free(args);
  free(path);
}

int main(int argc, char** argv) {
  static const kt_case cases[] = {
      {"VersionsMatchTheHeaderAndTheBinary", VersionsMatchTheHeaderAndTheBinary},
      {"OptionsThatAreNotAnObjectAreRefused", OptionsThatAreNotAnObjectAreRefused},
      {"UnknownKeysAndWrongTypesNameTheKey", UnknownKeysAndWrongTypesNameTheKey},
      {"BadValuesAreInputErrorsWithTheCliMessage", BadValuesAreInputErrorsWithTheCliMessage},
      {"NullPointersAndMissingInputsAreArgumentErrors", NullPointersAndMissingInputsAreArgumentErrors},
      {"SuccessClearsTheLastError", SuccessClearsTheLastError},
      {"ConcurrentCallsAreIndependent", ConcurrentCallsAreIndependent},
  };
  return kt_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
