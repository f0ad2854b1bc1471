// The import counter catalog (model/import_counters.h) is complete and documented: every
// counter the importers emit on real inputs of every format is declared there, and
// docs/json-output.md carries exactly the generated table.
#include "model/import_counters.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken {
namespace {

constexpr char kCounterDocBegin[] = "<!-- import-counters:begin";
constexpr char kCounterDocEnd[] = "<!-- import-counters:end -->";

// Real inputs of every format with counters (some skip, cut or repair on purpose).
const char* const kCounterCatalogSeeds[] = {
    "kineto/hta/call_stack/backward_thread.json",
    "kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "kineto/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz",
    "kineto/param/dlrm_kineto.tar.gz",
    "ncu/gtx1080-cc6.1_vectoradd_page-raw_all-metrics.csv",
    "ncu/rtx5090-cc12.0_llm-perf-opt_classification_summary.csv",
    "nvidia-smi/capture__linux-x86_64__nvidia-h100-mig__590.48.01.txt",
    "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom",
    "dcgm/dcgm-exporter_etc_default-counters.csv",
    "orion/resnet50_4_fwd.csv",
    "helios/earth_vc_sequences/Earth_gpu_number.csv",
    "alibaba-genai-v2026/qps.csv.gz",
    "alibaba-pai-gpu-v2020/mini-batch-time/job_2_norm.csv.gz",
};

TEST(ImportCounterCatalog, EveryCounterEmittedOnRealInputsIsDeclared) {
  std::set<std::string> seen;
  for (const char* relative : kCounterCatalogSeeds) {
    auto profiles = ImportFile(BuiltinImporters(), testing::DataPath(relative));
    ASSERT_TRUE(profiles.ok()) << relative << ": " << profiles.status().message();
    for (const Profile& p : *profiles)
      for (const auto& [name, value] : p.import_counters) {
        seen.insert(name);
        EXPECT_NE(FindImportCounter(name), nullptr) << relative << " counts " << name << ", not in the catalog";
      }
  }
  EXPECT_GE(seen.size(), 15u);  // the seeds do exercise the counters
}

TEST(ImportCounterCatalog, NamesAreUniqueAndDescribed) {
  std::set<std::string_view> names;
  for (const ImportCounterInfo& info : ImportCounterCatalog()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_FALSE(info.description.empty()) << info.name;
  }
  ASSERT_NE(FindImportCounter("kineto_ignored_category:cuda_driver"), nullptr);
  EXPECT_EQ(FindImportCounter("kineto_ignored_category:cuda_driver")->name, "kineto_ignored_category:");
  EXPECT_EQ(FindImportCounter("kineto_events")->name, "kineto_events");
  EXPECT_EQ(FindImportCounter("no_such_counter"), nullptr);
}

// KRAKEN_REGENERATE_DOCS=1 rewrites the section from the catalog instead of failing.
TEST(ImportCounterCatalog, JsonOutputDocCarriesTheGeneratedTable) {
  const std::string path = testing::SourceDir() + "/docs/json-output.md";
  std::string doc = testing::ReadFileOrDie(path);
  size_t begin = doc.find(kCounterDocBegin);
  ASSERT_NE(begin, std::string::npos) << path << " has no " << kCounterDocBegin << " marker";
  begin = doc.find('\n', begin) + 1;
  size_t end = doc.find(kCounterDocEnd, begin);
  ASSERT_NE(end, std::string::npos) << path << " has no " << kCounterDocEnd << " marker";
  const std::string generated = ImportCounterMarkdown();
  if (doc.compare(begin, end - begin, generated) != 0 && std::getenv("KRAKEN_REGENERATE_DOCS") != nullptr) {
    doc.replace(begin, end - begin, generated);
    std::ofstream(path, std::ios::binary) << doc;
    return;
  }
  EXPECT_EQ(doc.substr(begin, end - begin), generated)
      << path << ": the import counter table differs from src/model/import_counters.cc; rerun this test with "
      << "KRAKEN_REGENERATE_DOCS=1 to regenerate it";
}

}  // namespace
}  // namespace kraken
