// Robustness of every importer against damaged input: real files from shared/data are
// truncated, bit-flipped, spliced and stripped, deterministically, and fed to the
// import driver. Each run must end in either profiles or a one-line error naming the
// input; under AddressSanitizer (make test) any memory error fails the suite. This is
// the always-on part of the fuzzing; fuzz/ holds the coverage-guided libFuzzer target.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "base/byte_stream.h"
#include "base/json_writer.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "report/profile_export.h"

namespace kraken {
namespace {

// Small real inputs of every format; the decompressed text is what gets damaged.
const char* const kSeeds[] = {
    "kineto/hta/call_stack/backward_thread.json",
    "kineto/hta/trace_compare/base/base.json.gz",
    "kineto/hta/triton_example/triton_example.json.gz",
    "kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "kineto/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz",
    "kineto/hta/large_integer_trace/rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz",
    "kineto/hta/trace_file_list/inference_rank_1.json.gz",
    "ncu/a100-cc8.0_sgemm_nersc-roofline-metrics_details.csv",
    "ncu/gtx1080-cc6.1_vectoradd_page-raw_all-metrics.csv",
    "ncu/rtx5090-cc12.0_gemv-bf16_memory-bound_kernel_0001_section_SpeedOfLight_RooflineChart.csv",
    "ncu/rtx5090-cc12.0_llm-perf-opt_classification_summary.csv",
    "nvidia-smi/capture__linux-x86_64__nvidia-h100-mig__590.48.01.txt",
    "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom",
    "dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt",
    "dcgm/dcgm-exporter_etc_default-counters.csv",
    "orion/resnet50_4_fwd.csv",
    "helios/earth_vc_sequences/Earth_gpu_number.csv",
    "alibaba-genai-v2026/qps.csv.gz",
    "alibaba-pai-gpu-v2020/mini-batch-time/job_2_norm.csv.gz",
};

// Real files whose kraken export is damaged too (kraken's own format has no file in
// shared/data): a timeline with steps and syncs, and a capture with series and MIG.
const char* const kExportedSeeds[] = {
    "kineto/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz",
    "nvidia-smi/capture__linux-x86_64__nvidia-h100-mig__590.48.01.txt",
};

std::string Decompressed(const std::string& path) {
  auto file = OpenFileStream(path);
  EXPECT_TRUE(file.ok());
  if (!file.ok()) return "";
  std::unique_ptr<ByteStream> stream = std::move(file).value();
  auto head = ReadUpTo(*stream, 2);
  stream = MakePrefixedStream(*head, std::move(stream));
  if (LooksGzipped(*head)) stream = MakeGzipStream(std::move(stream));
  auto all = ReadAll(*stream);
  EXPECT_TRUE(all.ok());
  return all.ok() ? *all : "";
}

std::string Mutate(const std::string& in, std::mt19937_64& rng) {
  std::string s = in;
  if (s.empty()) return s;
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % std::max<size_t>(n, 1)); };
  switch (rng() % 7) {
    case 0:  // truncate
      s.resize(pick(s.size()));
      break;
    case 1:  // flip bytes
      for (int i = 0; i < 1 + static_cast<int>(rng() % 16); ++i) s[pick(s.size())] ^= static_cast<char>(1 << (rng() % 8));
      break;
    case 2:  // structural characters in random places
      for (int i = 0; i < 1 + static_cast<int>(rng() % 8); ++i) s[pick(s.size())] = "{}[]\",:\\\n\0"[rng() % 10];
      break;
    case 3: {  // duplicate a chunk elsewhere
      size_t a = pick(s.size()), len = pick(std::min<size_t>(s.size() - a, 4096));
      s.insert(pick(s.size()), s.substr(a, len));
      break;
    }
    case 4: {  // delete a chunk
      size_t a = pick(s.size());
      s.erase(a, pick(std::min<size_t>(s.size() - a, 4096)));
      break;
    }
    case 5:  // digits become letters or huge numbers
      for (char& c : s)
        if (c >= '0' && c <= '9' && rng() % 64 == 0) c = (rng() % 2) ? 'x' : '9';
      break;
    default:  // random bytes appended
      for (int i = 0; i < 64; ++i) s.push_back(static_cast<char>(rng()));
      break;
  }
  return s;
}

std::string ExportedForRobustness(const std::string& path) {
  auto profiles = ImportFile(BuiltinImporters(), path);
  EXPECT_TRUE(profiles.ok() && profiles->size() == 1) << path;
  if (!profiles.ok() || profiles->empty()) return "";
  JsonWriter json;
  WriteProfileJson((*profiles)[0], json);
  return json.Take();
}

TEST(ImportersRobustnessTest, DamagedInputsEndInProfilesOrAOneLineError) {
  std::vector<std::pair<std::string, std::string>> inputs;  // name, undamaged text
  for (const char* seed : kSeeds) inputs.emplace_back(seed, Decompressed(testing::DataPath(seed)));
  for (const char* seed : kExportedSeeds)
    inputs.emplace_back(std::string("export of ") + seed, ExportedForRobustness(testing::DataPath(seed)));
  std::mt19937_64 rng(20261122);
  int errors = 0, imported = 0;
  for (const auto& [seed, original] : inputs) {
    ASSERT_FALSE(original.empty()) << seed;
    for (int round = 0; round < 40; ++round) {
      std::string damaged = Mutate(original, rng);
      auto result = ImportBuffer(BuiltinImporters(), "damaged-input", damaged);
      if (result.ok()) {
        ++imported;
        continue;
      }
      ++errors;
      const std::string& message = result.status().message();
      EXPECT_EQ(message.rfind("damaged-input", 0), 0u) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
  // Both outcomes must occur: damage is detected, and benign damage is tolerated.
  EXPECT_GT(errors, 0);
  EXPECT_GT(imported, 0);
}

TEST(ImportersRobustnessTest, RandomBytesAreRejected) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::string junk(1 + rng() % 3000, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    auto result = ImportBuffer(BuiltinImporters(), "junk", junk);
    EXPECT_FALSE(result.ok());
  }
}

}  // namespace
}  // namespace kraken
