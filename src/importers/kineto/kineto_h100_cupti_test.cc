// Golden tests of the Kineto importer on the traces recorded on a real NVIDIA H100
// (examples/nvidia-h100-80gb-hbm3, docs/validation.md run 2): kraken's own CUPTI trace must
// import like torch.profiler's trace of the same 20 ResNet-50 steps. Expected counts were
// taken from the files with Python's gzip + json (events of cat kernel, gpu_memcpy,
// gpu_memset; ProfilerStep#N CPU ranges; deviceProperties).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <ostream>
#include <string>

#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "model/device_catalog.h"

namespace kraken {
namespace {

Profile ImportH100Example(const std::string& name) {
  auto result = ImportFile(BuiltinImporters(),
                           testing::SourceDir() + "/examples/nvidia-h100-80gb-hbm3/" + name);
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok() || result->empty()) return Profile();
  EXPECT_EQ(result->size(), 1u);
  return std::move((*result)[0]);
}

size_t CountH100MemoryOps(const Profile& p, MemoryOpKind kind) {
  return static_cast<size_t>(
      std::count_if(p.memory_ops.begin(), p.memory_ops.end(), [&](const MemoryOp& m) { return m.kind == kind; }));
}

// The device of every H100 trace: deviceProperties name and numSms, recognised as h100-sxm.
void ExpectH100Device(const Profile& p) {
  EXPECT_EQ(p.metadata.format, "kineto");
  EXPECT_EQ(p.metadata.accelerator_vendor, Vendor::kNvidia);
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(p.devices[0].sm_count, 132);
  EXPECT_EQ(p.devices[0].compute_major, 9);
  const DeviceSpec* spec = MatchDeviceSpec(p.devices[0].name, p.devices[0].memory_bytes);
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->id, "h100-sxm");
}

// ProfilerStep#0..19 on the CPU timeline (the GPU projections are not steps).
void ExpectTwentySteps(const Profile& p) {
  ASSERT_EQ(p.steps.size(), 20u);
  for (size_t i = 0; i < p.steps.size(); ++i) EXPECT_EQ(p.steps[i].step_number, static_cast<int64_t>(i));
}

// What each recorded trace of the two workloads holds, as counted when it was committed.
struct H100TraceCounts {
  const char* file;
  size_t kernels, memcpys, memsets;
};

// gtest names the parameter by its file instead of dumping its bytes.
void PrintTo(const H100TraceCounts& counts, std::ostream* out) { *out << counts.file; }

class KinetoH100WorkloadTraceTest : public ::testing::TestWithParam<H100TraceCounts> {};

TEST_P(KinetoH100WorkloadTraceTest, ImportsDeviceStepsAndActivity) {
  const H100TraceCounts& want = GetParam();
  Profile p = ImportH100Example(want.file);
  ExpectH100Device(p);
  ExpectTwentySteps(p);
  EXPECT_EQ(p.kernels.size(), want.kernels);
  EXPECT_EQ(CountH100MemoryOps(p, MemoryOpKind::kMemcpy), want.memcpys);
  EXPECT_EQ(CountH100MemoryOps(p, MemoryOpKind::kMemset), want.memsets);
  EXPECT_EQ(p.import_counters.count("kineto_malformed_events"), 0u);
}

// The CUPTI traces hold the whole run (model setup and 5 warm-up steps too); torch.profiler's
// only the 20 profiled steps.
INSTANTIATE_TEST_SUITE_P(Recorded, KinetoH100WorkloadTraceTest,
                         ::testing::Values(H100TraceCounts{"resnet50-train.cupti.json.gz", 18421, 481, 1354},
                                           H100TraceCounts{"resnet50-train.pt.trace.json.gz", 14740, 0, 1080},
                                           H100TraceCounts{"bert-infer.cupti.json.gz", 4101, 226, 302},
                                           H100TraceCounts{"bert-infer.pt.trace.json.gz", 3120, 20, 240}),
                         [](const ::testing::TestParamInfo<H100TraceCounts>& info) {
                           std::string name = info.param.file;
                           name = name.substr(0, name.find(".json"));
                           for (char& c : name)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

TEST(KinetoH100CuptiTest, KernelMixTrace) {
  Profile p = ImportH100Example("kernel-mix.cupti.json.gz");
  ExpectH100Device(p);
  EXPECT_TRUE(p.steps.empty());  // kernel_mix marks no ProfilerStep
  EXPECT_EQ(p.kernels.size(), 109u);
  EXPECT_EQ(CountH100MemoryOps(p, MemoryOpKind::kMemcpy), 42u);
  EXPECT_EQ(CountH100MemoryOps(p, MemoryOpKind::kMemset), 21u);
  // The earliest kernel, as written: saxpy, ts 456456.031 us, dur 288.55 us, stream 13,
  // correlation 135.
  auto first = std::min_element(p.kernels.begin(), p.kernels.end(),
                                [](const Kernel& a, const Kernel& b) { return a.start_ns < b.start_ns; });
  ASSERT_NE(first, p.kernels.end());
  EXPECT_EQ(p.Name(first->name), "(anonymous namespace)::saxpy(int, float, float const*, float*)");
  EXPECT_EQ(first->start_ns, 456456031);
  EXPECT_EQ(first->duration_ns, 288550);
  EXPECT_EQ(first->stream, 13);
  EXPECT_EQ(first->correlation_id, 135);
}

}  // namespace
}  // namespace kraken
