#define _POSIX_C_SOURCE 200809L
#include "c_test.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int kt_failures = 0;

void kt_fail(const char* file, int line, const char* what) {
  fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
  ++kt_failures;
}

void kt_fail_status(const char* file, int line, const char* call, kraken_status got, kraken_status expected) {
  fprintf(stderr, "%s:%d: %s returned %d, expected %d; last error: %s\n", file, line, call, (int)got, (int)expected,
          kraken_last_error());
  ++kt_failures;
}

void kt_check_contains(const char* file, int line, const char* text, const char* part) {
  if (text != NULL && part != NULL && strstr(text, part) != NULL) return;
  fprintf(stderr, "%s:%d: expected to find \"%s\" in: %.400s\n", file, line, part ? part : "(null)",
          text ? text : "(null)");
  ++kt_failures;
}

void kt_check_same(const char* file, int line, const char* got, const char* expected) {
  if (got != NULL && expected != NULL && strcmp(got, expected) == 0) return;
  if (got == NULL || expected == NULL) {
    fprintf(stderr, "%s:%d: a document is NULL (got %p, expected %p)\n", file, line, (const void*)got,
            (const void*)expected);
    ++kt_failures;
    return;
  }
  size_t at = 0;
  while (got[at] != '\0' && got[at] == expected[at]) ++at;
  size_t from = at > 60 ? at - 60 : 0;
  fprintf(stderr, "%s:%d: documents differ at byte %zu (sizes %zu and %zu)\n  got:      %.120s\n  expected: %.120s\n",
          file, line, at, strlen(got), strlen(expected), got + from, expected + from);
  ++kt_failures;
}

static const char* built_file_in(const char* target, char* out, size_t size);

static const char* data_dir(void) {
  static char configured[4096];
  const char* dir = getenv("KRAKEN_DATA_DIR");
  return dir != NULL && *dir != '\0' ? dir : built_file_in("data_dir", configured, sizeof(configured));
}

char* kt_format(const char* format, ...) {
  va_list args;
  va_start(args, format);
  int size = vsnprintf(NULL, 0, format, args);
  va_end(args);
  char* text = malloc((size_t)size + 1);
  va_start(args, format);
  vsnprintf(text, (size_t)size + 1, format, args);
  va_end(args);
  return text;
}

char* kt_data_path(const char* relative) {
  static char path[4096];
  int size = snprintf(path, sizeof(path), "%s/%s", data_dir(), relative);
  struct stat st;
  if (size < 0 || (size_t)size >= sizeof(path) || stat(path, &st) != 0) {
    fprintf(stderr, "real data file missing: %s\n", path);
    ++kt_failures;
  }
  return path;
}

char* kt_source_path(const char* relative) {
  static char path[4096];
  static char source_dir[4096];
  int size = snprintf(path, sizeof(path), "%s/%s", built_file_in("source_dir", source_dir, sizeof(source_dir)), relative);
  if (size < 0 || (size_t)size >= sizeof(path)) {
    fprintf(stderr, "source path too long: %s\n", relative);
    ++kt_failures;
  }
  return path;
}

/* The running case's temp dirs: removed when it passes, kept (and named) when it fails. */
enum { kMaxTempDirs = 16 };
static char* temp_dirs[kMaxTempDirs];
static size_t temp_dir_count = 0;

static void remove_dir(const char* path) {
  char* command = kt_format("rm -rf '%s'", path);
  if (system(command) != 0) fprintf(stderr, "cannot remove the temp dir %s\n", path);
  free(command);
}

char* kt_temp_dir(const char* name) {
  const char* base = getenv("TMPDIR");
  char* path = kt_format("%s/kraken_ctest_%s_%ld", base != NULL && *base != '\0' ? base : "/tmp", name, (long)getpid());
  char* command = kt_format("rm -rf '%s' && mkdir -p '%s'", path, path);
  if (system(command) != 0) kt_fail(__FILE__, __LINE__, "cannot make the temp dir");
  free(command);
  if (temp_dir_count < kMaxTempDirs) temp_dirs[temp_dir_count++] = kt_format("%s", path);
  return path;
}

static void end_temp_dirs(int keep) {
  for (size_t i = 0; i < temp_dir_count; ++i) {
    if (keep) {
      fprintf(stderr, "kept for a look: %s\n", temp_dirs[i]);
    } else {
      remove_dir(temp_dirs[i]);
    }
    free(temp_dirs[i]);
  }
  temp_dir_count = 0;
}

char* kt_read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t capacity = 1 << 16, size = 0;
  char* text = malloc(capacity);
  size_t n;
  while ((n = fread(text + size, 1, capacity - size - 1, f)) > 0) {
    size += n;
    if (capacity - size < 2) text = realloc(text, capacity *= 2);
  }
  fclose(f);
  text[size] = '\0';
  return text;
}

void kt_write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "wb");
  if (f == NULL || fputs(text, f) < 0) kt_fail(__FILE__, __LINE__, "cannot write a file");
  if (f != NULL) fclose(f);
}

/* The list's `target=path` lines, read once. */
static char* built_files = NULL;

static void load_built_files(void) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return;
  exe[n] = '\0';
  for (char* slash = strrchr(exe, '/'); slash != NULL && built_files == NULL; slash = strrchr(exe, '/')) {
    *slash = '\0';
    char* list = kt_format("%s/kraken_built_files.txt", exe);
    built_files = kt_read_file(list);
    free(list);
  }
}

/* TARGET's path in the list, into OUT (SIZE bytes); 0 when the list names no TARGET. */
static int find_built_file(const char* target, char* out, size_t size) {
  if (built_files == NULL) load_built_files();
  size_t length = strlen(target);
  for (const char* line = built_files; line != NULL && *line != '\0'; line = strchr(line, '\n')) {
    if (*line == '\n') ++line;
    const char* end = strchr(line, '\n');
    size_t line_size = end != NULL ? (size_t)(end - line) : strlen(line);
    if (line_size > length && strncmp(line, target, length) == 0 && line[length] == '=' &&
        line_size - length - 1 < size) {
      memcpy(out, line + length + 1, line_size - length - 1);
      out[line_size - length - 1] = '\0';
      return 1;
    }
    if (end == NULL) break;
  }
  fprintf(stderr, "no %s in kraken_built_files.txt above this executable\n", target);
  ++kt_failures;
  return 0;
}

/* TARGET's path (or a folder this build was configured with: source_dir, data_dir) in the
   caller's buffer, a path that does not exist when the list lacks it. kt_data_path and
   kt_source_path keep their folders in buffers of their own: kt_built_file's is overwritten
   by its next call. */
static const char* built_file_in(const char* target, char* out, size_t size) {
  return find_built_file(target, out, size) ? out : "/nonexistent/kraken-built-file";
}

const char* kt_built_file(const char* target) {
  static char path[4096];
  return built_file_in(target, path, sizeof(path));
}

char* kt_kraken(const char* args, int* exit_code) {
  char* command = kt_format("'%s' %s", kt_built_file("kraken"), args);
  FILE* pipe = popen(command, "r");
  free(command);
  if (pipe == NULL) {
    kt_fail(__FILE__, __LINE__, "cannot run kraken");
    return NULL;
  }
  size_t capacity = 1 << 16, size = 0;
  char* text = malloc(capacity);
  size_t n;
  while ((n = fread(text + size, 1, capacity - size - 1, pipe)) > 0) {
    size += n;
    if (capacity - size < 2) text = realloc(text, capacity *= 2);
  }
  text[size] = '\0';
  int status = pclose(pipe);
  if (exit_code != NULL) *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return text;
}

void kt_mask_number(char* document, const char* key) {
  char* pattern = kt_format("\"%s\": ", key);
  for (char* at = strstr(document, pattern); at != NULL; at = strstr(at, pattern)) {
    at += strlen(pattern);
    char* end = at;
    while (*end != '\0' && strchr("0123456789.eE+-", *end) != NULL) ++end;
    if (end == at) continue;
    *at = '0';
    memmove(at + 1, end, strlen(end) + 1);
  }
  free(pattern);
}

int kt_main(int argc, char** argv, const kt_case* cases, size_t count) {
  int ran = 0;
  for (size_t i = 0; i < count; ++i) {
    if (argc > 1 && strcmp(argv[1], cases[i].name) != 0) continue;
    int before = kt_failures;
    cases[i].run();
    end_temp_dirs(kt_failures != before);
    fprintf(stderr, "[%s] %s\n", kt_failures == before ? "  OK  " : "FAILED", cases[i].name);
    ++ran;
  }
  if (ran == 0) {
    fprintf(stderr, "no case named %s\n", argc > 1 ? argv[1] : "(none)");
    return 2;
  }
  return kt_failures == 0 ? 0 : 1;
}
