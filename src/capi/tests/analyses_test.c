/* Every analysis of the C API on real files, compared byte for byte with the document the
 * CLI prints for the same inputs and settings. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "c_test.h"

static const char* kResnet = "kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
static const char* kPhilly = "helios/philly_node_sequence.csv.gz";
static const char* kNodes = "alibaba-gpu-v2023/openb_node_list_gpu_node.csv";

static char* Data(const char* relative) { return strdup(kt_data_path(relative)); }
static char* Orion(const char* stem) {
  char* relative = kt_format("orion/%s.csv", stem);
  char* path = Data(relative);
  free(relative);
  return path;
}

/* The CLI's standard output for `args` (which must succeed). */
static char* Cli(const char* args) {
  int code = -1;
  char* out = kt_kraken(args, &code);
  if (code != 0) kt_fail(__FILE__, __LINE__, args);
  return out;
}

/* Checks that a call succeeded and gave the CLI's bytes; frees both. */
/* The call first, then its document: C leaves the order of arguments unspecified. */
#define EXPECT_CLI_DOCUMENT(call, cli_args)         \
  do {                                              \
    kraken_status call_status_ = (call);            \
    ExpectCliDocument(call_status_, out, cli_args); \
  } while (0)

static void ExpectCliDocument(kraken_status status, char* document, const char* cli_args) {
  KT_CHECK_STATUS(status, KRAKEN_OK);
  char* expected = Cli(cli_args);
  KT_CHECK_SAME(document, expected);
  free(expected);
  kraken_free(document);
}

static void AnalyzeIsTheCliDocument(void) {
  char* trace = Data(kResnet);
  const char* inputs[] = {trace};
  char* out = NULL;
  char* args = kt_format("analyze --json '%s'", trace);
  EXPECT_CLI_DOCUMENT(kraken_analyze(inputs, 1, NULL, &out), args);
  free(args);
  args = kt_format("analyze --json --device a100-40gb-pcie --window steps --top 3 --linked-only '%s'", trace);
  const char* options = "{\"device\":\"a100-40gb-pcie\",\"window\":\"steps\",\"top\":3,\"linked_only\":true}";
  EXPECT_CLI_DOCUMENT(kraken_analyze(inputs, 1, options, &out), args);
  free(args);
  args = kt_format("analyze --thresholds 10,50 '%s'", trace);
  EXPECT_CLI_DOCUMENT(kraken_analyze(inputs, 1, "{\"thresholds\":\"10,50\",\"output\":\"text\"}", &out), args);
  free(args);
  free(trace);
}

static void AnalyzeOfABadFileNamesTheFile(void) {
  char* dir = kt_temp_dir("bad_file");
  char* bad = kt_format("%s/broken.json", dir);
  kt_write_file(bad, "{\"traceEvents\": [ {\"ph\": \"X\", ");
  const char* inputs[] = {bad};
  char* out = (char*)1;
  KT_CHECK_STATUS(kraken_analyze(inputs, 1, NULL, &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK(out == NULL);
  KT_CHECK(strncmp(kraken_last_error(), bad, strlen(bad)) == 0); /* "<file>: <position>: ..." */
  KT_CHECK(strchr(kraken_last_error(), '\n') == NULL);
  /* The CLI says the same after "kraken: error: ". */
  int code = -1;
  char* args = kt_format("analyze '%s' 2>&1", bad);
  char* cli = kt_kraken(args, &code);
  KT_CHECK(code == 2);
  char* line = kt_format("kraken: error: %s\n", kraken_last_error());
  KT_CHECK_SAME(cli, line);
  free(line);
  free(cli);
  free(args);
  char* missing = kt_format("%s/no-such-trace.json", dir);
  inputs[0] = missing;
  kraken_status status = kraken_analyze(inputs, 1, NULL, &out);
  KT_CHECK(status == KRAKEN_ERROR_NOT_FOUND || status == KRAKEN_ERROR_IO);
  KT_CHECK_CONTAINS(kraken_last_error(), missing);
  free(missing);
  free(bad);
  free(dir);
}

static void ReportIsTheCliPageAndData(void) {
  char* trace = Data(kResnet);
  const char* inputs[] = {trace};
  char* out = NULL;
  char* args = kt_format("report --data-only --gpu-hour-cost 4 -o - '%s'", trace);
  EXPECT_CLI_DOCUMENT(kraken_report(inputs, 1, "{\"data_only\":true,\"gpu_hour_cost\":4}", &out), args);
  free(args);
  args = kt_format("report --title 'resnet run' -o - '%s'", trace);
  KT_CHECK_STATUS(kraken_report(inputs, 1, "{\"title\":\"resnet run\"}", &out), KRAKEN_OK);
  KT_CHECK_CONTAINS(out, "<title>kraken report: resnet run</title>");
  char* expected = Cli(args);
  KT_CHECK_SAME(out, expected);
  free(expected);
  kraken_free(out);
  free(args);
  KT_CHECK_STATUS(kraken_report(inputs, 1, "{\"gpu_hour_cost\":-1}", &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "--gpu-hour-cost must be >= 0");
  // max_slowdown is `kraken report --max-slowdown`, the disagg section's budget, with its rule.
  args = kt_format("report --data-only --max-slowdown 40 -o - '%s'", trace);
  EXPECT_CLI_DOCUMENT(kraken_report(inputs, 1, "{\"data_only\":true,\"max_slowdown\":40}", &out), args);
  free(args);
  KT_CHECK_STATUS(kraken_report(inputs, 1, "{\"max_slowdown\":1001}", &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "max_slowdown (--max-slowdown) must be between 0 and 1000");
  free(trace);
}

static void DisaggIsTheCliDocument(void) {
  char* trace = Data(kResnet);
  char* reference = Data("alibaba-dlrm-v2025/disaggregated_DLRM_trace.csv.gz");
  const char* inputs[] = {trace};
  char* out = NULL;
  char* args = kt_format("disagg --json '%s'", trace);
  EXPECT_CLI_DOCUMENT(kraken_disagg(inputs, 1, NULL, &out), args);
  free(args);
  args = kt_format("disagg --json --explain --price 3 --link 10Gbps,20us --link 400Gbps,2us --reference '%s' '%s'",
                   reference, trace);
  char* options = kt_format(
      "{\"explain\":true,\"price\":3,\"link\":[\"10Gbps,20us\",\"400Gbps,2us\"],\"reference\":\"%s\"}", reference);
  EXPECT_CLI_DOCUMENT(kraken_disagg(inputs, 1, options, &out), args);
  free(options);
  free(args);
  args = kt_format("disagg --explain '%s'", trace);
  EXPECT_CLI_DOCUMENT(kraken_disagg(inputs, 1, "{\"explain\":true,\"output\":\"text\"}", &out), args);
  free(args);
  KT_CHECK_STATUS(kraken_disagg(inputs, 1, "{\"link\":\"100Gbps\"}", &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "--link expects BANDWIDTH,LATENCY");
  free(reference);
  free(trace);
}

static void ColocatePairAndOptimizeAreTheCliDocuments(void) {
  char* a = Orion("resnet50_4_fwd");
  char* b = Orion("resnet50_32_fb1");
  char* c = Orion("mobilenetv2_4_fwd");
  char* d = Orion("transformer_xl_8_fb1");
  const char* pair[] = {a, b};
  char* out = NULL;
  char* args = kt_format("colocate --json --mode mps --sm-split 100,100 --rate resnet50_4_fwd=30 '%s' '%s'", a, b);
  EXPECT_CLI_DOCUMENT(
      kraken_colocate(pair, 2, "{\"mode\":\"mps\",\"sm_split\":\"100,100\",\"rate\":{\"resnet50_4_fwd\":30}}", &out),
      args);
  free(args);
  args = kt_format("colocate --explain --qos resnet50_32_fb1=1.5 --timeslice-ms 4 '%s' '%s'", a, b);
  EXPECT_CLI_DOCUMENT(kraken_colocate(pair, 2,
                                      "{\"explain\":true,\"qos\":{\"resnet50_32_fb1\":1.5},\"timeslice_ms\":4,"
                                      "\"output\":\"text\"}",
                                      &out),
                      args);
  free(args);
  const char* four[] = {a, c, b, d};
  args = kt_format("colocate --optimize --json --gpus 2 --max-slowdown 2 --rate 1=15 --rate 2=40 '%s' '%s' '%s' '%s'",
                   a, c, b, d);
  EXPECT_CLI_DOCUMENT(
      kraken_colocate_optimize(four, 4, "{\"gpus\":2,\"max_slowdown\":2,\"rate\":{\"1\":15,\"2\":40}}", &out), args);
  free(args);
  KT_CHECK_STATUS(kraken_colocate(pair, 1, NULL, &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "colocate needs at least two workloads, the inputs give 1");
  KT_CHECK_STATUS(kraken_colocate_optimize(four, 4, NULL, &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "--optimize needs --gpus");
  KT_CHECK_STATUS(kraken_colocate(pair, 2, "{\"qos\":{\"nosuch\":2}}", &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "--qos: no workload named 'nosuch'");
  KT_CHECK_STATUS(kraken_colocate(pair, 2, "{\"qos\":[2]}", &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "option 'qos' must be an object of numbers");
  free(a);
  free(b);
  free(c);
  free(d);
}

static void InterferenceIsColocateInOneMode(void) {
  char* a = Orion("resnet50_4_fwd");
  char* b = Orion("mobilenetv2_4_fwd");
  char* out = NULL;
  char* args = kt_format("colocate --json --mode timeslice '%s' '%s'", a, b);
  EXPECT_CLI_DOCUMENT(kraken_predict_interference(a, b, NULL, &out), args);
  free(args);
  args = kt_format("colocate --json --mode mps --sm-split 70,30 '%s' '%s'", a, b);
  EXPECT_CLI_DOCUMENT(kraken_predict_interference(a, b, "{\"mode\":\"mps\",\"sm_split\":\"70,30\"}", &out), args);
  free(args);
  args = kt_format("colocate --json --mode mig --device a100-40gb-sxm '%s' '%s'", a, b);
  EXPECT_CLI_DOCUMENT(kraken_predict_interference(a, b, "{\"mode\":\"mig\",\"device\":\"a100-40gb-sxm\"}", &out), args);
  free(args);
  KT_CHECK_STATUS(kraken_predict_interference(a, b, "{\"mode\":\"all\"}", &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "mode must be timeslice, mps or mig, got 'all'");
  free(a);
  free(b);
}

static void TemporalIsTheCliDocument(void) {
  char* philly = Data(kPhilly);
  const char* inputs[] = {philly};
  char* out = NULL;
  char* args = kt_format("temporal '%s' --series 0 --horizon 1h --json", philly);
  EXPECT_CLI_DOCUMENT(kraken_temporal(inputs, 1, "{\"series\":\"0\",\"horizon\":\"1h\"}", &out), args);
  free(args);
  args = kt_format("temporal '%s' --series active --explain", philly);
  EXPECT_CLI_DOCUMENT(
      kraken_temporal(inputs, 1, "{\"series\":[\"active\"],\"explain\":true,\"output\":\"text\"}", &out), args);
  free(args);
  KT_CHECK_STATUS(kraken_temporal(inputs, 1, "{\"explain\":true}", &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_STATUS(kraken_temporal(inputs, 1, "{\"series\":\"nothing-like-it\"}", &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "--series 'nothing-like-it' matches no series");
  KT_CHECK_STATUS(kraken_temporal(inputs, 1, "{\"horizon\":\"1x\"}", &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "--horizon expects durations");
  free(philly);
}

static void MigPlanIsTheCliDocument(void) {
  char* trace = Data(kResnet);
  const char* inputs[] = {trace};
  char* out = NULL;
  char* args = kt_format("mig-plan --json --gpu a100-80gb-sxm '%s' --workload bert:12:0.25", trace);
  EXPECT_CLI_DOCUMENT(kraken_mig_plan(inputs, 1, "{\"gpu\":\"a100-80gb-sxm\",\"workload\":[\"bert:12:0.25\"]}", &out),
                      args);
  free(args);
  EXPECT_CLI_DOCUMENT(kraken_mig_plan(NULL, 0, "{\"headroom\":\"0%\",\"workload\":\"a:9:0.2\",\"explain\":true}", &out),
                      "mig-plan --json --explain --headroom 0% --workload a:9:0.2");
  args = kt_format("mig-plan --json --gpu a100-80gb-sxm --max-slowdown 25 '%s'", trace);
  EXPECT_CLI_DOCUMENT(kraken_mig_plan(inputs, 1, "{\"gpu\":\"a100-80gb-sxm\",\"max_slowdown\":25}", &out), args);
  free(args);
  KT_CHECK_STATUS(kraken_mig_plan(NULL, 0, "{\"max_slowdown\":1001,\"workload\":\"a:1:0.1\"}", &out),
                  KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "max_slowdown (--max-slowdown) must be between 0 and 1000");
  KT_CHECK_STATUS(kraken_mig_plan(NULL, 0, NULL, &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "no workloads");
  KT_CHECK_STATUS(kraken_mig_plan(NULL, 0, "{\"gpu\":\"v100-sxm2\",\"workload\":\"a:1:0.1\"}", &out),
                  KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "has no MIG geometry");
  free(trace);
}

static void PackIsTheCliDocument(void) {
  char* nodes = Data(kNodes);
  char* pods = Data("alibaba-gpu-v2023/openb_pod_list_multigpu20.csv");
  char* out = NULL;
  /* The explanation of single placements has no timing: byte for byte. */
  char* args = kt_format(
      "pack --nodes '%s' --pods '%s' --policy FGD,Kraken --seeds 42 --explain-pod 0 "
      "--explain-pod 5 --explain-top 3 --json 2>/dev/null",
      nodes, pods);
  EXPECT_CLI_DOCUMENT(
      kraken_pack(nodes, pods, "{\"policy\":\"FGD,Kraken\",\"seeds\":\"42\",\"explain_pod\":[0,5],\"explain_top\":3}",
                  &out),
      args);
  free(args);
  /* The sweep carries its wall-clock seconds, which differ between any two runs. */
  args = kt_format("pack --nodes '%s' --pods '%s' --policy BestFit,FGD --seeds 1-2 --json 2>/dev/null", nodes, pods);
  KT_CHECK_STATUS(kraken_pack(nodes, pods, "{\"policy\":\"BestFit,FGD\",\"seeds\":\"1-2\"}", &out), KRAKEN_OK);
  char* expected = Cli(args);
  kt_mask_number(out, "wall_seconds");
  kt_mask_number(out, "seconds");
  kt_mask_number(expected, "wall_seconds");
  kt_mask_number(expected, "seconds");
  KT_CHECK_CONTAINS(out, "\"policy\": \"FGD\"");
  KT_CHECK_SAME(out, expected);
  free(expected);
  kraken_free(out);
  free(args);
  KT_CHECK_STATUS(kraken_pack(nodes, pods, "{\"policy\":\"Tetris\"}", &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "--policy: unknown policy 'Tetris'");
  KT_CHECK_STATUS(kraken_pack(nodes, "/nonexistent/pods.csv", NULL, &out), KRAKEN_ERROR_NOT_FOUND);
  KT_CHECK_CONTAINS(kraken_last_error(), "/nonexistent/pods.csv");
  free(pods);
  free(nodes);
}

static void DiffIsTheCliDocument(void) {
  char* a = Data("kineto/hta/trace_diff/control/control.json.gz");
  char* b = Data("kineto/hta/trace_diff/test/test.json.gz");
  const char* inputs[] = {a, b};
  char* out = NULL;
  char* args = kt_format("diff --json --top 4 '%s' '%s'", a, b);
  EXPECT_CLI_DOCUMENT(kraken_diff(inputs, 2, "{\"top\":4}", &out), args);
  free(args);
  KT_CHECK_STATUS(kraken_diff(inputs, 1, NULL, &out), KRAKEN_ERROR_INVALID_ARGUMENT);
  KT_CHECK_CONTAINS(kraken_last_error(), "exactly two inputs");
  free(b);
  free(a);
}

int main(int argc, char** argv) {
  static const kt_case cases[] = {
      {"AnalyzeIsTheCliDocument", AnalyzeIsTheCliDocument},
      {"AnalyzeOfABadFileNamesTheFile", AnalyzeOfABadFileNamesTheFile},
      {"ReportIsTheCliPageAndData", ReportIsTheCliPageAndData},
      {"DisaggIsTheCliDocument", DisaggIsTheCliDocument},
      {"ColocatePairAndOptimizeAreTheCliDocuments", ColocatePairAndOptimizeAreTheCliDocuments},
      {"InterferenceIsColocateInOneMode", InterferenceIsColocateInOneMode},
      {"TemporalIsTheCliDocument", TemporalIsTheCliDocument},
      {"MigPlanIsTheCliDocument", MigPlanIsTheCliDocument},
      {"PackIsTheCliDocument", PackIsTheCliDocument},
      {"DiffIsTheCliDocument", DiffIsTheCliDocument},
  };
  return kt_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
