/* Cluster analysis from a Prometheus URL through the C API, against a real Prometheus 2.x
 * serving a week of real dcgm-exporter captures (kraken_prometheus_fixture, the history of
 * src/cli/prometheus_cluster_test.cc), compared with `kraken analyze --prometheus`. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "c_test.h"

struct Fixture {
  pid_t pid;
  int stdin_fd; /* closing it stops the fixture */
  char url[256];
  long long end_s;
};

static int StartFixture(struct Fixture* f) {
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0) return 0;
  const char* fixture = kt_built_file("kraken_prometheus_fixture"); /* looked up before the fork */
  f->pid = fork();
  if (f->pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[1]);
    close(out[0]);
    execl(fixture, fixture, (char*)NULL);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  f->stdin_fd = in[1];
  FILE* lines = fdopen(out[0], "r");
  int read = lines != NULL && fscanf(lines, "%255s %lld", f->url, &f->end_s) == 2;
  if (lines != NULL) fclose(lines);
  return read;
}

static void StopFixture(struct Fixture* f) {
  close(f->stdin_fd);
  waitpid(f->pid, NULL, 0);
}

static char* Cli(const char* args) {
  int code = -1;
  char* out = kt_kraken(args, &code);
  if (code != 0) kt_fail(__FILE__, __LINE__, args);
  return out;
}

static void ClusterAnalysisIsTheCliDocument(void) {
  struct Fixture fixture;
  if (!StartFixture(&fixture)) {
    kt_fail(__FILE__, __LINE__, "the Prometheus fixture did not start");
    return;
  }
  char* out = NULL;
  char* options = kt_format(
      "{\"namespace\":\"ml\",\"range\":\"7d\",\"step\":\"30s\",\"gpu_model\":\"a100-40gb-sxm\","
      "\"end\":%lld}",
      fixture.end_s);
  KT_CHECK_STATUS(kraken_cluster_analyze(fixture.url, options, &out), KRAKEN_OK);
  KT_CHECK_CONTAINS(out, "\"pod\": \"trainer-0\"");
  char* args = kt_format(
      "analyze --prometheus %s --end %lld --namespace ml --range 7d --step 30s "
      "--gpu-model a100-40gb-sxm --json",
      fixture.url, fixture.end_s);
  char* expected = Cli(args);
  KT_CHECK_SAME(out, expected);
  free(expected);
  free(args);
  kraken_free(out);
  free(options);

  options = kt_format(
      "{\"namespace\":\"ml\",\"pod\":\"infer-t4\",\"explain\":true,\"output\":\"text\",\"end\":%lld,"
      "\"max_slowdown\":25}",
      fixture.end_s);
  KT_CHECK_STATUS(kraken_cluster_analyze(fixture.url, options, &out), KRAKEN_OK);
  args = kt_format("analyze --prometheus %s --end %lld --namespace ml --pod infer-t4 --explain --max-slowdown 25",
                   fixture.url, fixture.end_s);
  expected = Cli(args);
  KT_CHECK_SAME(out, expected);
  free(expected);
  free(args);
  kraken_free(out);
  free(options);

  KT_CHECK_STATUS(kraken_cluster_analyze(fixture.url, NULL, &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "--prometheus needs --namespace NS");
  KT_CHECK_STATUS(kraken_cluster_analyze(fixture.url, "{\"namespace\":\"ml\",\"range\":\"7x\"}", &out),
                  KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "--range");
  KT_CHECK_STATUS(kraken_cluster_analyze(fixture.url, "{\"namespace\":\"ml\",\"max_slowdown\":-1}", &out),
                  KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "max_slowdown (--max-slowdown) must be between 0 and 1000");
  StopFixture(&fixture);
}

static void AnUnreachableServerIsUnavailable(void) {
  char* out = NULL;
  KT_CHECK_STATUS(kraken_cluster_analyze("http://127.0.0.1:1", "{\"namespace\":\"ml\",\"timeout\":5}", &out),
                  KRAKEN_ERROR_UNAVAILABLE);
  KT_CHECK_CONTAINS(kraken_last_error(), "127.0.0.1:1");
  KT_CHECK(out == NULL);
}

int main(int argc, char** argv) {
  /* A fixture whose reader is gone must not kill the test. */
  signal(SIGPIPE, SIG_IGN);
  static const kt_case cases[] = {
      {"ClusterAnalysisIsTheCliDocument", ClusterAnalysisIsTheCliDocument},
      {"AnUnreachableServerIsUnavailable", AnUnreachableServerIsUnavailable},
  };
  return kt_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
