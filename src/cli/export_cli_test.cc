// End-to-end tests of the KRAKEN command spellings on the real binary and real files:
// `kraken export --input FILE --format json,csv,parquet`, `kraken report --input FILE
// --output report.html` and `kraken dashboard --port N --profile FILE`, beside kraken's
// own spellings, and their one-line errors that leave nothing behind.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <simdjson.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

const std::string kExportTrace =
    "kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
const std::string kExportTracePrefix = "worker0.1623143089861.pt.trace.kraken";
const std::string kExportSmi = "nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt";

size_t ExportCsvLines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::vector<std::string> ExportFilesIn(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(ExportCliTest, KrakenSpellingWritesEveryFormatOfATraceInTheCurrentFolder) {
  std::string dir = testing::MakeTempDir("export_cli_spelling");
  // As the KRAKEN design writes it, run from the folder the files should land in.
  RunResult r = testing::RunCommand("cd " + dir + " && " + KRAKEN_BINARY_PATH + " export --input " +
                                    testing::DataPath(kExportTrace) + " --format json,csv,parquet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> expected;
  for (const char* table : {"cpu_ops", "kernels", "memory_ops", "steps"})
    for (const char* format : {"csv", "parquet"})
      expected.push_back(kExportTracePrefix + "." + table + "." + format);
  expected.push_back(kExportTracePrefix + ".json");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ExportFilesIn(dir), expected);
  EXPECT_NE(r.err.find("kraken: wrote " + kExportTracePrefix + ".kernels.parquet"), std::string::npos) << r.err;
  // The trace has no metric series: no samples table (one that has is in the next tests).

  // The trace's 8772 kernels (as `kraken analyze` counts them) are rows, not just a header.
  std::string kernels = testing::ReadFileOrDie(dir + "/" + kExportTracePrefix + ".kernels.csv");
  EXPECT_EQ(kernels.rfind("name,start_ns,duration_ns,device,stream,correlation_id,", 0), 0u);
  EXPECT_EQ(ExportCsvLines(kernels), 8773u);
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.load(dir + "/" + kExportTracePrefix + ".json");
  EXPECT_EQ(doc["kernels"].get_array().size(), 8772u);
  std::string steps = testing::ReadFileOrDie(dir + "/" + kExportTracePrefix + ".steps.csv");
  EXPECT_EQ(ExportCsvLines(steps), doc["steps"].get_array().size() + 1);
  EXPECT_GT(doc["steps"].get_array().size(), 0u);
  std::string parquet = testing::ReadFileOrDie(dir + "/" + kExportTracePrefix + ".kernels.parquet");
  EXPECT_EQ(parquet.substr(0, 4), "PAR1");
  EXPECT_EQ(parquet.substr(parquet.size() - 4), "PAR1");
}

TEST(ExportCliTest, KrakensOwnJsonExportReExportsToTheSameTables) {
  std::string dir = testing::MakeTempDir("export_cli_roundtrip");
  // A trace (timeline tables) and a sampled capture (the samples table).
  for (const std::string& input : {kExportTrace, kExportSmi}) {
    std::string first = dir + "/first", second = dir + "/second";
    std::filesystem::create_directories(first);
    std::filesystem::create_directories(second);
    RunResult r = RunKraken("export --input " + testing::DataPath(input) + " --format json,csv -o " + first + "/p");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // profile_data.json as kraken writes it is an input like any other.
    r = RunKraken("export -i " + first + "/p.json --format csv --output " + second + "/p");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> csvs = ExportFilesIn(second);
    EXPECT_EQ(csvs.size() + 1, ExportFilesIn(first).size()) << input;
    for (const std::string& name : csvs) {
      std::string a = testing::ReadFileOrDie(first + "/" + name);
      EXPECT_GT(ExportCsvLines(a), 1u) << name;
      EXPECT_EQ(a, testing::ReadFileOrDie(second + "/" + name)) << name;
    }
    std::filesystem::remove_all(first);
    std::filesystem::remove_all(second);
  }
}

TEST(ExportCliTest, StoredProfilesKeepTheirSpellingAndNameOneTable) {
  std::string dir = testing::MakeTempDir("export_cli_stored");
  std::string db = dir + "/profiles.db";
  ASSERT_EQ(RunKraken("import --db " + db + " " + testing::DataPath(kExportTrace)).exit_code, 0);
  ASSERT_EQ(RunKraken("import --db " + db + " " + testing::DataPath(kExportSmi)).exit_code, 0);
  // One table to standard output, as before: a sampled capture has only samples.
  RunResult samples = RunKraken("export 2 --format csv --db " + db);
  ASSERT_EQ(samples.exit_code, 0) << samples.err;
  EXPECT_EQ(samples.out.rfind("series,metric,source_name,gpu_index,", 0), 0u);
  EXPECT_GT(ExportCsvLines(samples.out), 10u);
  // A trace has several tables: one must be named to write one file.
  ExpectOneLineError(RunKraken("export 1 --format csv --db " + db), "--table");
  RunResult kernels = RunKraken("export 1 --format csv --table kernels --db " + db);
  ASSERT_EQ(kernels.exit_code, 0) << kernels.err;
  EXPECT_EQ(ExportCsvLines(kernels.out), 8773u);
  // Several formats of a stored profile: PREFIX.* in the folder given.
  RunResult all = RunKraken("export 1 --format parquet,json --table steps,kernels -o " + dir + "/ --db " + db);
  ASSERT_EQ(all.exit_code, 0) << all.err;
  for (const char* name :
       {"profile-1.kraken.json", "profile-1.kraken.steps.parquet", "profile-1.kraken.kernels.parquet"})
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + name)) << name;
  EXPECT_FALSE(std::filesystem::exists(dir + "/profile-1.kraken.cpu_ops.parquet"));
}

TEST(ExportCliTest, BadRequestsAreOneLineErrorsThatWriteNothing) {
  std::string dir = testing::MakeTempDir("export_cli_errors");
  std::string trace = testing::DataPath(kExportTrace);
  ExpectOneLineError(RunKraken("export --input " + trace + " --format json,xlsx -o " + dir + "/x"),
                     "unknown format 'xlsx'");
  ExpectOneLineError(RunKraken("export --input " + trace + " --format csv,csv -o " + dir + "/x"), "twice");
  ExpectOneLineError(RunKraken("export --input " + trace + " --format csv --table warps -o " + dir + "/x"),
                     "unknown table 'warps'");
  ExpectOneLineError(RunKraken("export --input " + trace + " --format json,csv -o " + dir + "/one.csv"),
                     "names one file");
  ExpectOneLineError(RunKraken("export --input " + dir + "/missing.json --format csv -o " + dir + "/x"),
                     "missing.json");
  ExpectOneLineError(RunKraken("export --format csv -o " + dir + "/x"), "nothing to export");
  ExpectOneLineError(RunKraken("export --input " + trace + " --format parquet -o " + dir + "/no/such/folder/x"),
                     "no/such/folder");
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << ExportFilesIn(dir).front();
  // Exporting a JSON export to its own name would overwrite the input.
  std::string own = dir + "/own.kraken.json";
  ASSERT_EQ(RunKraken("export --input " + trace + " --format json -o " + own).exit_code, 0);
  ExpectOneLineError(RunKraken("export --input " + own + " --format json --output " + own), "overwrite its own input");
}

TEST(ReportCliTest, KrakenSpellingInputAndOutputFlags) {
  std::string dir = testing::MakeTempDir("report_cli_spelling");
  RunResult r = testing::RunCommand("cd " + dir + " && " + KRAKEN_BINARY_PATH + " report --input " +
                                    testing::DataPath(kExportTrace) + " --output report.html");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string html = testing::ReadFileOrDie(dir + "/report.html");
  EXPECT_NE(html.find("<title>kraken report: worker0.1623143089861.pt.trace.json.gz</title>"), std::string::npos);
  // The same document as kraken's own spelling.
  RunResult flags = RunKraken("report --data-only --input " + testing::DataPath(kExportTrace) + " --output -");
  RunResult positional = RunKraken("report --data-only " + testing::DataPath(kExportTrace) + " -o -");
  ASSERT_EQ(flags.exit_code, 0) << flags.err;
  EXPECT_EQ(flags.out, positional.out);
  ExpectOneLineError(RunKraken("report --output " + dir + "/none.html"), "nothing to report");
}

// Starts `kraken dashboard` in the background; its standard error goes to `log`.
pid_t StartDashboard(const std::vector<std::string>& argv, const std::string& log) {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (std::freopen(log.c_str(), "w", stderr) == nullptr) ::_exit(126);
    std::vector<char*> c_argv;
    c_argv.push_back(const_cast<char*>(KRAKEN_BINARY_PATH));
    for (const std::string& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));
    c_argv.push_back(nullptr);
    ::execv(KRAKEN_BINARY_PATH, c_argv.data());
    ::_exit(127);
  }
  return pid;
}

// The page address the dashboard prints once it listens ("" if it never does).
std::string WaitForDashboardUrl(const std::string& log) {
  for (int i = 0; i < 1200; ++i) {  // the import comes first: up to a minute
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t at = text.find("open http://");
    if (at != std::string::npos && text.find('\n', at) != std::string::npos)
      return text.substr(at + 5, text.find('\n', at) - at - 5);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return "";
}

TEST(DashboardCliTest, ServesTheImportedProfileOnItsPageAndCleansUp) {
  std::string dir = testing::MakeTempDir("dashboard_cli");
  std::string log = dir + "/dashboard.log";
  pid_t pid = StartDashboard({"dashboard", "--port", "0", "--profile", testing::DataPath(kExportTrace)}, log);
  ASSERT_GT(pid, 0);
  std::string url = WaitForDashboardUrl(log);
  ASSERT_FALSE(url.empty()) << testing::ReadFileOrDie(log);
  // http://127.0.0.1:PORT/#/workload/1: loopback by default, the profile's own page.
  ASSERT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << url;
  int port = std::atoi(url.c_str() + 17);
  EXPECT_EQ(url.substr(url.find('/', 7)), "/#/workload/1");
  httplib::Client client("127.0.0.1", port);
  auto page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("<!doctype html>"), std::string::npos);
  auto analysis = client.Get("/api/v1/profiles/1/analysis");
  ASSERT_TRUE(analysis);
  ASSERT_EQ(analysis->status, 200) << analysis->body;
  simdjson::dom::parser parser;
  EXPECT_EQ(parser.parse(analysis->body)["kernels"]["count"].get_int64().value(), 8772);
  std::string log_text = testing::ReadFileOrDie(log);
  size_t store_at = log_text.find(" in /");
  ASSERT_NE(store_at, std::string::npos) << log_text;
  std::string store = log_text.substr(store_at + 4, log_text.find(' ', store_at + 4) - store_at - 4);
  EXPECT_TRUE(std::filesystem::exists(store)) << store;
  ::kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  // The temporary store went with it.
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(store).parent_path()));
}

TEST(DashboardCliTest, AGivenStoreKeepsTheProfileAndBadInputFailsBeforeServing) {
  std::string dir = testing::MakeTempDir("dashboard_cli_db");
  RunResult missing = RunKraken("dashboard --port 0 --profile " + dir + "/missing.json --db " + dir + "/k.db");
  ExpectOneLineError(missing, "missing.json");
  ExpectOneLineError(RunKraken("dashboard --port 70000 --profile " + testing::DataPath(kExportSmi)), "--port");
  ExpectOneLineError(RunKraken("dashboard --port 0"), "--profile");
  std::string log = dir + "/dashboard.log";
  pid_t pid = StartDashboard(
      {"dashboard", "--port", "0", "--profile", testing::DataPath(kExportSmi), "--db", dir + "/kept.db"}, log);
  ASSERT_FALSE(WaitForDashboardUrl(log).empty()) << testing::ReadFileOrDie(log);
  ::kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  RunResult list = RunKraken("list --json --db " + dir + "/kept.db");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  simdjson::dom::parser parser;
  EXPECT_EQ(parser.parse(list.out)["profiles"].get_array().size(), 1u);
}

}  // namespace
}  // namespace kraken
