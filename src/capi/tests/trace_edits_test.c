/* kraken_remove_profiler_step: a real trace loses its ProfilerStep range (the first event
 * of its array) and nothing else; bad calls and files say what is wrong. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "c_test.h"

/* A real trace whose first event is ProfilerStep#552's CPU range. */
static const char* kTrace = "kineto/hta/call_stack/backward_thread.json";

/* A copy of the real trace in a fresh temp dir (malloc'd path); *text gets its bytes. */
static char* CopyOfTrace(const char* dir_name, char** text) {
  *text = kt_read_file(kt_data_path(kTrace));
  KT_CHECK(*text != NULL);
  char* dir = kt_temp_dir(dir_name);
  char* path = kt_format("%s/trace.json", dir);
  kt_write_file(path, *text ? *text : "");
  free(dir);
  return path;
}

static void RemovedStepLeavesEveryOtherByte(void) {
  char* before = NULL;
  char* path = CopyOfTrace("remove_step", &before);
  int removed = -1;
  KT_CHECK_STATUS(kraken_remove_profiler_step(path, 552, &removed), KRAKEN_OK);
  KT_CHECK(removed == 1);
  /* Expected: the text without the first event, from its '{' to the '}' before the
   * first "},\n" that closes it at the array's indentation, and that comma. */
  const char* first = before ? strstr(before, "[\n        {") : NULL;
  const char* close = first ? strstr(first, "\n        },") : NULL;
  KT_CHECK(first != NULL && close != NULL);
  if (first != NULL && close != NULL) {
    size_t begin = (size_t)(first - before) + 10; /* the event's '{' */
    size_t end = (size_t)(close - before) + 11;   /* past its '}' and the comma */
    char* expected = kt_format("%.*s%s", (int)begin, before, before + end);
    char* after = kt_read_file(path);
    KT_CHECK_SAME(after, expected);
    free(after);
    free(expected);
  }
  /* Once gone, a second call finds nothing and writes nothing. */
  char* edited = kt_read_file(path);
  KT_CHECK_STATUS(kraken_remove_profiler_step(path, 552, &removed), KRAKEN_OK);
  KT_CHECK(removed == 0);
  char* again = kt_read_file(path);
  KT_CHECK_SAME(again, edited);
  /* The edited trace is still one that kraken reads. */
  char* args = kt_format("analyze --json '%s'", path);
  int code = -1;
  free(kt_kraken(args, &code));
  KT_CHECK(code == 0);
  free(args);
  free(again);
  free(edited);
  free(before);
  free(path);
}

static void BadCallsAndFilesSayWhatIsWrong(void) {
  int removed = -1;
  KT_CHECK_STATUS(kraken_remove_profiler_step(NULL, 1, &removed), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "the trace path is NULL");
  char* dir = kt_temp_dir("remove_step_bad");
  char* missing = kt_format("%s/absent.json", dir);
  KT_CHECK_STATUS(kraken_remove_profiler_step(missing, 1, NULL), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_STATUS(kraken_remove_profiler_step(missing, 1, &removed), KRAKEN_ERROR_NOT_FOUND);
  KT_CHECK_CONTAINS(kraken_last_error(), missing);
  KT_CHECK(removed == 0);
  /* Not a trace: left as it is, nothing removed, no error. */
  char* text = kt_format("%s/notes.json", dir);
  kt_write_file(text, "not json");
  removed = -1;
  KT_CHECK_STATUS(kraken_remove_profiler_step(text, 1, &removed), KRAKEN_OK);
  KT_CHECK(removed == 0);
  char* content = kt_read_file(text);
  KT_CHECK_SAME(content, "not json");
  free(content);
  free(text);
  free(missing);
  free(dir);
}

int main(int argc, char** argv) {
  static const kt_case cases[] = {
      {"RemovedStepLeavesEveryOtherByte", RemovedStepLeavesEveryOtherByte},
      {"BadCallsAndFilesSayWhatIsWrong", BadCallsAndFilesSayWhatIsWrong},
  };
  return kt_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
