/* Profiling sessions on the NVML replay library (docs/nvml-capture-format.md): h100.nvml
 * frames 0-4 are idle, frames 5-9 run pids 11327 (2690646016 B), 11328 (1616904192 B) and
 * 11345 (16452157440 B, SM 99 %) at device utilization 100 %. KRAKEN_NVML_REPLAY_PID_MAP
 * reports 11345 as this test process and 11327 as its first child, so the session's tree
 * (this process and its descendants) owns them, as `kraken profile`'s tree owns them when
 * mapped onto its command. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "c_test.h"

static void UseReplay(const char* capture, const char* pid_map) {
  char* fixture = kt_format("tests/fixtures/nvml/%s", capture);
  setenv("KRAKEN_NVML_REPLAY", kt_source_path(fixture), 1);
  setenv("KRAKEN_NVML_REPLAY_PID_MAP", pid_map, 1);
  unsetenv("KRAKEN_NVML_LIBRARY");
  free(fixture);
}

static void SleepMs(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0) {
  }
}

static pid_t StartSleeper(void) {
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sleep", "sleep", "30", (char*)NULL);
    _exit(127);
  }
  return pid;
}

static void StopSleeper(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

/* The part of a run document from "workload_type" to "stored": the figures of the run,
 * without what says how it was started and where it went. */
static char* Figures(const char* document) {
  const char* from = document != NULL ? strstr(document, "\"workload_type\"") : NULL;
  const char* to = document != NULL ? strstr(document, "\"stored\"") : NULL;
  if (from == NULL || to == NULL || to < from) return strdup("(no figures)");
  return strndup(from, (size_t)(to - from));
}

static kraken_session* Start(const char* options) {
  kraken_session* session = NULL;
  KT_CHECK_STATUS(kraken_session_start(options, &session), KRAKEN_OK);
  return session;
}

static void SessionFiguresAreThoseOfKrakenProfile(void) {
  UseReplay("h100.nvml", "11345:self,11327:self/0");
  pid_t child = StartSleeper();
  char* dir = kt_temp_dir("session_figures");
  char* options = kt_format(
      "{\"nvml_library\":\"%s\",\"interval\":\"50ms\",\"samples\":10,\"db\":\"%s/kraken.db\","
      "\"out\":\"%s/run.json\",\"name\":\"bert-training\"}",
      KRAKEN_NVML_REPLAY_LIBRARY, dir, dir);
  kraken_session* session = Start(options);
  /* Waits for the 10 passes (0.5 s, longer on a loaded machine) rather than for a fixed
   * time that a loaded machine can outlast. */
  int64_t passes = -1;
  for (int waited_ms = 0; waited_ms < 60000; waited_ms += 10) {
    KT_CHECK_STATUS(kraken_session_passes(session, &passes), KRAKEN_OK);
    if (passes >= 10) break;
    SleepMs(10);
  }
  KT_CHECK(passes == 10);
  char* run = NULL;
  KT_CHECK_STATUS(kraken_session_stop(session, &run), KRAKEN_OK);
  KT_CHECK_CONTAINS(run, "\"stop_reason\": \"the pass limit was reached\"");
  KT_CHECK_CONTAINS(run, "\"passes\": 10");
  KT_CHECK_CONTAINS(run, "\"tree_memory_peak_bytes\": 19142803456"); /* 11345 + 11327 */
  KT_CHECK_CONTAINS(run, "\"passes_present\": 5");
  KT_CHECK_CONTAINS(run, "\"passes_shared\": 5"); /* 11328 is not in the tree */
  KT_CHECK_CONTAINS(run, "\"profile_id\": 1");
  char* file_field = kt_format("\"file\": \"%s/run.json\"", dir);
  KT_CHECK_CONTAINS(run, file_field);
  free(file_field);
  StopSleeper(child);

  /* `kraken profile` on the same capture, the map onto its command's tree. */
  setenv("KRAKEN_NVML_LIBRARY", KRAKEN_NVML_REPLAY_LIBRARY, 1);
  setenv("KRAKEN_NVML_REPLAY_PID_MAP", "11345:self/0,11327:self/0/0", 1);
  int code = -1;
  char* cli = kt_kraken("profile --no-store --json --interval 50ms --samples 10 -- sh -c 'sleep 3; exit 0'", &code);
  KT_CHECK(code == 0);
  char* ours = Figures(run);
  char* theirs = Figures(cli);
  KT_CHECK(strlen(ours) > 200);
  KT_CHECK_SAME(ours, theirs);
  free(theirs);
  free(ours);
  free(cli);
  kraken_free(run);
  kraken_session_free(session);
  free(options);
  free(dir);
}

static void MarksAndStepsAreStoredWithTheProfile(void) {
  UseReplay("h100.nvml", "11345:self");
  char* dir = kt_temp_dir("session_marks");
  char* db = kt_format("%s/kraken.db", dir);
  char* options =
      kt_format("{\"nvml_library\":\"%s\",\"interval\":\"20ms\",\"db\":\"%s\"}", KRAKEN_NVML_REPLAY_LIBRARY, db);
  kraken_session* session = Start(options);
  KT_CHECK_STATUS(kraken_session_mark(session, "warmup"), KRAKEN_OK);
  SleepMs(60);
  KT_CHECK_STATUS(kraken_session_step(session), KRAKEN_OK);
  KT_CHECK_STATUS(kraken_session_mark(session, "train"), KRAKEN_OK);
  for (int i = 0; i < 3; ++i) {
    SleepMs(40);
    KT_CHECK_STATUS(kraken_session_step(session), KRAKEN_OK);
  }
  char* profile = NULL;
  KT_CHECK_STATUS(kraken_session_profile(session, &profile), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "still sampling");
  char* run = NULL;
  KT_CHECK_STATUS(kraken_session_stop(session, &run), KRAKEN_OK);
  KT_CHECK_CONTAINS(run, "\"stop_reason\": \"the session was stopped\"");
  KT_CHECK_STATUS(kraken_session_profile(session, &profile), KRAKEN_OK);
  KT_CHECK_CONTAINS(profile, "\"format\": \"kraken-profile\"");
  KT_CHECK_CONTAINS(profile, "\"step_number\": 3");
  KT_CHECK_CONTAINS(profile, "\"name\": \"warmup\"");
  KT_CHECK_CONTAINS(profile, "\"name\": \"train\"");
  KT_CHECK(strstr(profile, "\"step_number\": 4") == NULL); /* after the last step: no step */

  /* The stored profile holds the same steps and phases; the analyses read it by id. */
  char* store_options = kt_format("{\"db\":\"%s\"}", db);
  char* exported = NULL;
  KT_CHECK_STATUS(kraken_export_profile("1", store_options, &exported), KRAKEN_OK);
  KT_CHECK_CONTAINS(exported, "\"name\":\"train\"");
  KT_CHECK_CONTAINS(exported, "\"step_number\":3");
  const char* ids[] = {"1"};
  char* analysis = NULL;
  KT_CHECK_STATUS(kraken_analyze(ids, 1, store_options, &analysis), KRAKEN_OK);
  /* And so do they the file the profile document is written to. */
  char* path = kt_format("%s/profile.json", dir);
  kt_write_file(path, profile);
  const char* files[] = {path};
  char* from_file = NULL;
  KT_CHECK_STATUS(kraken_analyze(files, 1, NULL, &from_file), KRAKEN_OK);
  KT_CHECK_CONTAINS(from_file, "\"steps\"");

  /* A stopped session takes no more marks, steps or stops. */
  KT_CHECK_STATUS(kraken_session_mark(session, "late"), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_STATUS(kraken_session_step(session), KRAKEN_ERROR_INVALID_ARGUMENT);
  char* again = NULL;
  KT_CHECK_STATUS(kraken_session_stop(session, &again), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "stopped already");
  kraken_free(from_file);
  free(path);
  kraken_free(analysis);
  kraken_free(exported);
  free(store_options);
  kraken_free(profile);
  kraken_free(run);
  kraken_session_free(session);
  free(options);
  free(db);
  free(dir);
}

static void APidSetIsFollowedUntilItEnds(void) {
  pid_t child = StartSleeper();
  char* map = kt_format("11345:%ld", (long)child);
  UseReplay("h100.nvml", map);
  char* options = kt_format("{\"nvml_library\":\"%s\",\"interval\":\"20ms\",\"pids\":[%ld],\"store\":false}",
                            KRAKEN_NVML_REPLAY_LIBRARY, (long)child);
  kraken_session* session = Start(options);
  SleepMs(1000); /* frames 5-9 come around (at 20 ms a pass): the child owns 11345's memory */
  StopSleeper(child);
  SleepMs(500); /* the sampling thread notices within a poll slice */
  char* run = NULL;
  KT_CHECK_STATUS(kraken_session_stop(session, &run), KRAKEN_OK);
  KT_CHECK_CONTAINS(run, "\"stop_reason\": \"the profiled process tree ended\"");
  char* pid_field = kt_format("\"attached_pid\": %ld", (long)child);
  KT_CHECK_CONTAINS(run, pid_field);
  KT_CHECK_CONTAINS(run, "\"tree_memory_peak_bytes\": 16452157440");
  KT_CHECK_CONTAINS(run, "\"stored\": {\n    \"db\": null,\n    \"profile_id\": null,\n    \"file\": null\n  }");
  free(pid_field);
  kraken_free(run);
  kraken_session_free(session);
  free(options);
  free(map);
}

static void SessionsThatCannotStartSayWhy(void) {
  UseReplay("h100.nvml", "");
  kraken_session* session = (kraken_session*)1;
  KT_CHECK_STATUS(kraken_session_start("{\"nvml_library\":\"/nonexistent/libnvidia-ml.so.1\"}", &session),
                  KRAKEN_ERROR_NOT_FOUND);
  KT_CHECK(session == NULL);
  KT_CHECK_CONTAINS(kraken_last_error(), "cannot load the NVML library /nonexistent/libnvidia-ml.so.1");
  /* kernel_capture reads the trace of kraken's CUPTI tracer, which only the CUDA driver
   * injects at a process's start: this process was started without it. (With it:
   * src/app/session_kernels_test.cc.) */
  unsetenv("CUDA_INJECTION64_PATH");
  char* options = kt_format("{\"nvml_library\":\"%s\",\"kernel_capture\":true}", KRAKEN_NVML_REPLAY_LIBRARY);
  KT_CHECK_STATUS(kraken_session_start(options, &session), KRAKEN_ERROR_UNSUPPORTED);
  KT_CHECK(session == NULL);
  KT_CHECK_CONTAINS(kraken_last_error(), "kernel capture is not available in this session: kernels are recorded by "
                                         "kraken's CUPTI tracer, which the CUDA driver injects only when a process "
                                         "starts, and this process was started without it; start it under kraken "
                                         "profile --kernels -- CMD");
  setenv("CUDA_INJECTION64_PATH", "/opt/nsight/libToolsInjection64.so", 1);
  KT_CHECK_STATUS(kraken_session_start(options, &session), KRAKEN_ERROR_UNSUPPORTED);
  KT_CHECK_CONTAINS(kraken_last_error(), "(CUDA_INJECTION64_PATH names /opt/nsight/libToolsInjection64.so, not "
                                         "kraken's tracer)");
  unsetenv("CUDA_INJECTION64_PATH");
  free(options);
  KT_CHECK_STATUS(kraken_session_start("{\"pids\":[2147483646]}", &session), KRAKEN_ERROR_NOT_FOUND);
  KT_CHECK_CONTAINS(kraken_last_error(), "pid 2147483646: no such process");
  KT_CHECK_STATUS(kraken_session_start("{\"interval\":\"soon\"}", &session), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "interval: 'soon' is not a duration");
  KT_CHECK_STATUS(kraken_session_start("{\"sampling_interval\":100}", &session), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "unknown option 'sampling_interval'");
}

static void FreeingARunningSessionStopsIt(void) {
  UseReplay("h100.nvml", "");
  char* options = kt_format("{\"nvml_library\":\"%s\",\"interval\":\"10ms\"}", KRAKEN_NVML_REPLAY_LIBRARY);
  kraken_session* session = Start(options);
  SleepMs(50);
  kraken_session_free(session); /* joins the sampling thread; ASan/LSan see no leak */
  free(options);
}

int main(int argc, char** argv) {
  static const kt_case cases[] = {
      {"SessionFiguresAreThoseOfKrakenProfile", SessionFiguresAreThoseOfKrakenProfile},
      {"MarksAndStepsAreStoredWithTheProfile", MarksAndStepsAreStoredWithTheProfile},
      {"APidSetIsFollowedUntilItEnds", APidSetIsFollowedUntilItEnds},
      {"SessionsThatCannotStartSayWhy", SessionsThatCannotStartSayWhy},
      {"FreeingARunningSessionStopsIt", FreeingARunningSessionStopsIt},
  };
  return kt_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
