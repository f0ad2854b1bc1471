/* The profile store through the C API: import and save, list, export, and every analysis
 * on stored ids ("1", "db:2"), each compared with the CLI's document for the same store. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "c_test.h"

static const char* kResnet = "kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
static const char* kPhilly = "helios/philly_node_sequence.csv.gz";

static char* Cli(const char* args) {
  int code = -1;
  char* out = kt_kraken(args, &code);
  if (code != 0) kt_fail(__FILE__, __LINE__, args);
  return out;
}

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

/* A store holding the resnet trace as profile 1 and the Philly series as profile 2. */
static char* MakeStore(const char* name) {
  char* dir = kt_temp_dir(name);
  char* db = kt_format("%s/kraken.db", dir);
  char* resnet = strdup(kt_data_path(kResnet));
  char* philly = strdup(kt_data_path(kPhilly));
  const char* files[] = {resnet, philly};
  char* options = kt_format("{\"db\":\"%s\"}", db);
  char* out = NULL;
  KT_CHECK_STATUS(kraken_import(files, 2, options, &out), KRAKEN_OK);
  KT_CHECK_CONTAINS(out, "\"stored_ids\": [\n    1,\n    2\n  ]");
  kraken_free(out);
  free(options);
  free(philly);
  free(resnet);
  free(dir);
  return db;
}

static void ImportIsTheCliDocument(void) {
  char* dir = kt_temp_dir("import");
  char* resnet = strdup(kt_data_path(kResnet));
  const char* files[] = {resnet};
  char* out = NULL;
  /* Without saving: `kraken import --json FILE`. */
  char* args = kt_format("import --json '%s'", resnet);
  EXPECT_CLI_DOCUMENT(kraken_import(files, 1, "{\"store\":false}", &out), args);
  free(args);
  /* Saved: the same database path and id as `kraken import --json --db` on a fresh store. */
  char* db_lib = kt_format("%s/lib.db", dir);
  char* db_cli = kt_format("%s/cli.db", dir);
  char* options = kt_format("{\"db\":\"%s\"}", db_lib);
  KT_CHECK_STATUS(kraken_import(files, 1, options, &out), KRAKEN_OK);
  args = kt_format("import --json '%s' --db '%s'", resnet, db_cli);
  char* expected = Cli(args);
  char* cli_db_field = kt_format("\"db\": \"%s\"", db_cli);
  char* lib_db_field = kt_format("\"db\": \"%s\"", db_lib);
  KT_CHECK_CONTAINS(expected, cli_db_field);
  char* at = strstr(expected, cli_db_field);
  if (at != NULL) { /* cli.db -> lib.db: same length */
    memcpy(at, lib_db_field, strlen(lib_db_field));
  }
  KT_CHECK_SAME(out, expected);
  kraken_free(out);
  free(expected);
  free(lib_db_field);
  free(cli_db_field);
  free(args);
  free(options);
  free(db_cli);
  free(db_lib);
  free(resnet);
  free(dir);
}

static void ListAndExportAreTheCliDocuments(void) {
  char* db = MakeStore("list_export");
  char* options = kt_format("{\"db\":\"%s\"}", db);
  char* out = NULL;
  char* args = kt_format("list --json --db '%s'", db);
  EXPECT_CLI_DOCUMENT(kraken_list_profiles(options, &out), args);
  free(args);
  args = kt_format("export 2 --db '%s'", db);
  EXPECT_CLI_DOCUMENT(kraken_export_profile("2", options, &out), args);
  free(args);
  args = kt_format("export 1 --db '%s'", db);
  EXPECT_CLI_DOCUMENT(kraken_export_profile("db:1", options, &out), args);
  free(args);
  KT_CHECK_STATUS(kraken_export_profile("7", options, &out), KRAKEN_ERROR_NOT_FOUND);
  KT_CHECK_STATUS(kraken_export_profile("seven", options, &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK_CONTAINS(kraken_last_error(), "'seven' is not a profile id");
  free(options);
  free(db);
}

static void EveryAnalysisTakesStoredIds(void) {
  char* db = MakeStore("ids");
  char* options = kt_format("{\"db\":\"%s\"}", db);
  const char* one[] = {"1"};
  const char* two[] = {"db:2"};
  char* out = NULL;
  char* args = kt_format("analyze --json --db '%s' 1", db);
  EXPECT_CLI_DOCUMENT(kraken_analyze(one, 1, options, &out), args);
  free(args);
  args = kt_format("disagg --json --db '%s' 1", db);
  EXPECT_CLI_DOCUMENT(kraken_disagg(one, 1, options, &out), args);
  free(args);
  args = kt_format("mig-plan --json --db '%s' db:1", db);
  EXPECT_CLI_DOCUMENT(kraken_mig_plan(one, 1, options, &out), args);
  free(args);
  char* temporal_options = kt_format("{\"db\":\"%s\",\"series\":\"active\",\"horizon\":\"1h\"}", db);
  args = kt_format("temporal --json --series active --horizon 1h --db '%s' db:2", db);
  EXPECT_CLI_DOCUMENT(kraken_temporal(two, 1, temporal_options, &out), args);
  free(args);
  free(temporal_options);
  /* A stored id and the file it was imported from give the same analysis. */
  const char* file[] = {kt_data_path(kResnet)};
  char* from_file = NULL;
  KT_CHECK_STATUS(kraken_disagg(file, 1, NULL, &from_file), KRAKEN_OK);
  KT_CHECK_STATUS(kraken_disagg(one, 1, options, &out), KRAKEN_OK);
  KT_CHECK_SAME(out, from_file);
  kraken_free(out);
  kraken_free(from_file);
  /* Unknown id, and no database at all. */
  const char* nine[] = {"9"};
  KT_CHECK_STATUS(kraken_analyze(nine, 1, options, &out), KRAKEN_ERROR_NOT_FOUND);
  char* missing = kt_format("{\"db\":\"%s.missing\"}", db);
  KT_CHECK_STATUS(kraken_analyze(one, 1, missing, &out), KRAKEN_ERROR_NOT_FOUND);
  KT_CHECK_CONTAINS(kraken_last_error(), "no profile database here");
  free(missing);
  free(options);
  free(db);
}

static void ImportOfABadFileSavesNothing(void) {
  char* dir = kt_temp_dir("import_bad");
  char* bad = kt_format("%s/garbage.csv", dir);
  kt_write_file(bad, "\x01\x02 this is no profile \x03\n");
  char* db = kt_format("%s/kraken.db", dir);
  char* options = kt_format("{\"db\":\"%s\"}", db);
  const char* files[] = {bad};
  char* out = NULL;
  KT_CHECK_STATUS(kraken_import(files, 1, options, &out), KRAKEN_ERROR_INVALID_INPUT);
  KT_CHECK(strncmp(kraken_last_error(), bad, strlen(bad)) == 0);
  KT_CHECK_STATUS(kraken_list_profiles(options, &out), KRAKEN_OK);
  KT_CHECK_CONTAINS(out, "\"profiles\": []");
  kraken_free(out);
  free(options);
  free(db);
  free(bad);
  free(dir);
}

int main(int argc, char** argv) {
  static const kt_case cases[] = {
      {"ImportIsTheCliDocument", ImportIsTheCliDocument},
      {"ListAndExportAreTheCliDocuments", ListAndExportAreTheCliDocuments},
      {"EveryAnalysisTakesStoredIds", EveryAnalysisTakesStoredIds},
      {"ImportOfABadFileSavesNothing", ImportOfABadFileSavesNothing},
  };
  return kt_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
