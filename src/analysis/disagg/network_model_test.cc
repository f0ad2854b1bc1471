// The remote-link model: link parsing, per-transfer arithmetic on a hand-made timeline,
// invariants and figures on real traces.
#include "analysis/disagg/network_model.h"

#include <gtest/gtest.h>

#include "analysis/demand.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken::disagg {
namespace {

RemoteLink Link(const char* text) {
  auto link = ParseRemoteLink(text);
  EXPECT_TRUE(link.ok()) << link.status().message();
  return link.ok() ? *link : RemoteLink{};
}

TEST(RemoteLinkTest, ParsesBandwidthAndLatency) {
  RemoteLink a = Link("100Gbps,5us");
  EXPECT_DOUBLE_EQ(a.bytes_per_s, 12.5e9);
  EXPECT_DOUBLE_EQ(a.latency_s, 5e-6);
  EXPECT_EQ(a.label, "100Gbps,5us");
  EXPECT_DOUBLE_EQ(Link("25Gb/s, 2us").bytes_per_s, 3.125e9);
  EXPECT_DOUBLE_EQ(Link("12.5GB/s,800ns").latency_s, 800e-9);
  EXPECT_DOUBLE_EQ(Link("1.6Tbps,0us").latency_s, 0);
  EXPECT_EQ(ParseRemoteLink("100Gbps").status().message(),
            "--link expects BANDWIDTH,LATENCY (e.g. 100Gbps,5us), got '100Gbps'");
  EXPECT_FALSE(ParseRemoteLink("fast,5us").ok());
  EXPECT_FALSE(ParseRemoteLink("100Gbps,5 parsecs").ok());
  EXPECT_FALSE(ParseRemoteLink("-1Gbps,5us").ok());
  std::vector<RemoteLink> defaults = DefaultRemoteLinks();
  ASSERT_EQ(defaults.size(), 3u);
  EXPECT_EQ(defaults[0].label, "100Gbps,5us");
}

// 10 ms of trace: a kernel from 0 to 4 ms, a 1 MB H2D copy of 100 us at 5 ms (exposed),
// a 4 MB D2H copy of 400 us at 1 ms (under the kernel), launch and sync calls.
Profile HandMade(bool with_copies, bool with_calls) {
  Profile p;
  p.metadata.source = "hand-made";
  Kernel k;
  k.name = p.strings.Intern("gemm");
  k.start_ns = 0;
  k.duration_ns = 4'000'000;
  p.kernels.push_back(k);
  Kernel tail = k;
  tail.start_ns = 9'000'000;
  tail.duration_ns = 1'000'000;
  p.kernels.push_back(tail);
  if (with_copies) {
    MemoryOp h2d;
    h2d.name = p.strings.Intern("Memcpy HtoD");
    h2d.start_ns = 5'000'000;
    h2d.duration_ns = 100'000;
    h2d.bytes = 1'000'000;
    h2d.direction = CopyDirection::kHostToDevice;
    p.memory_ops.push_back(h2d);
    MemoryOp d2h = h2d;
    d2h.start_ns = 1'000'000;
    d2h.duration_ns = 400'000;
    d2h.bytes = 4'000'000;
    d2h.direction = CopyDirection::kDeviceToHost;
    p.memory_ops.push_back(d2h);
  }
  if (with_calls) {
    for (int i = 0; i < 10; ++i) {
      RuntimeCall c;
      c.name = p.strings.Intern(i < 8 ? "cudaLaunchKernel" : "cudaStreamSynchronize");
      c.start_ns = i * 100'000;
      c.duration_ns = 5'000;
      p.runtime_calls.push_back(c);
    }
  }
  return p;
}

TrafficProfile TrafficOf(const Profile& p) {
  WorkloadReport report = CharacterizeWorkload(p);
  auto demands = DeriveDemands(p, report);
  EXPECT_EQ(demands.size(), 1u);
  return ExtractTraffic(p, report, demands[0]);
}

TEST(NetworkModelTest, HandMadeTimelineArithmetic) {
  TrafficProfile t = TrafficOf(HandMade(true, true));
  EXPECT_DOUBLE_EQ(t.span_s, 0.010);
  ASSERT_EQ(t.host_copies.size(), 2u);
  EXPECT_DOUBLE_EQ(t.host_bytes(), 5e6);
  // Of 500 us of copies, the 100 us one does not overlap a kernel.
  EXPECT_DOUBLE_EQ(t.host_copy_exposed_share, 0.2);
  EXPECT_EQ(t.api_calls, 10);
  EXPECT_EQ(t.sync_calls, 2);

  // 100 Gb/s, 5 us: 1 MB takes 80 + 5 = 85 us (< 100 measured), 4 MB 320 + 5 = 325 us (< 400).
  LinkSensitivity fast = EvaluateLink(t, Link("100Gbps,5us"));
  ASSERT_EQ(fast.components.size(), 3u);
  EXPECT_DOUBLE_EQ(fast.components[0].added_hi_s, 0);
  EXPECT_NEAR(fast.components[1].added_lo_s, 2 * 10e-6, 1e-15);   // 2 syncs x round trip
  EXPECT_NEAR(fast.components[1].added_hi_s, 10 * 10e-6, 1e-15);  // every call
  // 25 Gb/s, 10 us: 320 + 10 = 330 us (+230) and 1280 + 10 = 1290 us (+890).
  LinkSensitivity slow = EvaluateLink(t, Link("25Gbps,10us"));
  EXPECT_NEAR(slow.components[0].added_hi_s, 230e-6 + 890e-6, 1e-12);
  EXPECT_NEAR(slow.components[0].added_lo_s, 0.2 * (230e-6 + 890e-6), 1e-12);
  EXPECT_NEAR(slow.slowdown_hi, (1120e-6 + 10 * 20e-6) / 0.010, 1e-12);
  EXPECT_NEAR(slow.slowdown_lo, (0.2 * 1120e-6 + 2 * 20e-6) / 0.010, 1e-12);
}

TEST(NetworkModelTest, NoHostTrafficMeansNoBandwidthSensitivity) {
  // No copies and no calls: nothing crosses the link at any bandwidth or latency.
  TrafficProfile none = TrafficOf(HandMade(false, false));
  for (const char* link : {"1Gbps,100us", "25Gbps,10us", "400Gbps,2us"}) {
    LinkSensitivity s = EvaluateLink(none, Link(link));
    EXPECT_TRUE(s.measured);
    EXPECT_DOUBLE_EQ(s.slowdown_lo, 0);
    EXPECT_DOUBLE_EQ(s.slowdown_hi, 0);
  }
  // Calls but no copies: only the latency matters, the bandwidth does not.
  TrafficProfile calls = TrafficOf(HandMade(false, true));
  EXPECT_DOUBLE_EQ(EvaluateLink(calls, Link("1Gbps,5us")).slowdown_hi, EvaluateLink(calls, Link("400Gbps,5us")).slowdown_hi);
  EXPECT_LT(EvaluateLink(calls, Link("400Gbps,2us")).slowdown_hi, EvaluateLink(calls, Link("400Gbps,5us")).slowdown_hi);
}

struct RealTrace {
  const char* path;
  size_t copies;
  int64_t api_calls;
  int64_t sync_calls;
  size_t collectives;
};

TEST(NetworkModelTest, RealTracesFiguresAndMonotonicity) {
  const RealTrace traces[] = {
      // tb_plugin ResNet-50: 12 pageable input copies of 9,633,920 B.
      {"kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", 12, 11922, 13, 0},
      // DDP CNN on 2 A100s: 21 NCCL kernels with message sizes (15 all-reduce, 6 broadcast).
      {"kineto/hta/nccl_parser_config/nccl_data.json.gz", 0, 8721, 16, 21},
      // DDP on V100s: 2,020 NCCL all-reduces recorded without their arguments.
      {"kineto/hta/df_index_resolver/df_index_resolver.json.gz", 0, 42371, 0, 0},
  };
  for (const RealTrace& r : traces) {
    SCOPED_TRACE(r.path);
    auto profiles = ImportFile(BuiltinImporters(), testing::DataPath(r.path));
    ASSERT_TRUE(profiles.ok());
    TrafficProfile t = TrafficOf((*profiles)[0]);
    EXPECT_EQ(t.host_copies.size(), r.copies);
    EXPECT_EQ(t.api_calls, r.api_calls);
    EXPECT_EQ(t.sync_calls, r.sync_calls);
    EXPECT_EQ(t.collectives.size(), r.collectives);
    // Slower bandwidth or longer latency never makes the workload faster.
    double previous_hi = -1, previous_lo = -1;
    for (const char* link : {"400Gbps,2us", "100Gbps,2us", "25Gbps,2us", "10Gbps,2us", "1Gbps,2us"}) {
      LinkSensitivity s = EvaluateLink(t, Link(link));
      EXPECT_GE(s.slowdown_hi, previous_hi) << link;
      EXPECT_GE(s.slowdown_lo, previous_lo) << link;
      EXPECT_LE(s.slowdown_lo, s.slowdown_hi) << link;
      previous_hi = s.slowdown_hi;
      previous_lo = s.slowdown_lo;
    }
    previous_hi = previous_lo = -1;
    for (const char* link : {"100Gbps,1us", "100Gbps,2us", "100Gbps,5us", "100Gbps,10us", "100Gbps,50us"}) {
      LinkSensitivity s = EvaluateLink(t, Link(link));
      EXPECT_GT(s.slowdown_hi, previous_hi) << link;  // every trace has API calls
      EXPECT_GE(s.slowdown_lo, previous_lo) << link;
      previous_hi = s.slowdown_hi;
      previous_lo = s.slowdown_lo;
    }
  }
}

TEST(NetworkModelTest, PageableInputCopiesOfTheTbPluginResnet) {
  auto profiles = ImportFile(BuiltinImporters(), testing::DataPath("kineto/kineto_tb_plugin/resnet50_num_workers_0/"
                                                                   "worker0.1623143089861.pt.trace.json.gz"));
  ASSERT_TRUE(profiles.ok());
  TrafficProfile t = TrafficOf((*profiles)[0]);
  // Two pageable HtoD copies per step over the 6 profiled steps, none hidden by a kernel.
  EXPECT_EQ(t.pageable_copies, 12);
  EXPECT_DOUBLE_EQ(t.host_bytes(), 115607040);
  EXPECT_DOUBLE_EQ(t.host_copy_exposed_share, 1);
  EXPECT_NEAR(t.span_s, 0.996477, 1e-9);
  // The staged copies ran at about the speed of a 100 Gb/s link already: 24 us added in all;
  // at 25 Gb/s each 9.6 MB copy takes 3.08 ms, 25.6 ms added.
  EXPECT_NEAR(EvaluateLink(t, Link("100Gbps,5us")).components[0].added_hi_s, 2.412288e-05, 1e-11);
  EXPECT_NEAR(EvaluateLink(t, Link("25Gbps,10us")).components[0].added_hi_s, 0.0256222528, 1e-10);
}

TEST(NetworkModelTest, NcclCollectivesCrossTheLink) {
  auto profiles = ImportFile(BuiltinImporters(), testing::DataPath("kineto/hta/nccl_parser_config/nccl_data.json.gz"));
  ASSERT_TRUE(profiles.ok());
  TrafficProfile t = TrafficOf((*profiles)[0]);
  // Ring all-reduce over 2 ranks sends the whole message once; broadcast sends it once.
  EXPECT_DOUBLE_EQ(t.collective_bytes(), 307323096);
  EXPECT_NEAR(t.collective_exposed_share, 0.843265, 1e-6);
  LinkSensitivity s = EvaluateLink(t, Link("25Gbps,10us"));
  EXPECT_NEAR(s.components[2].added_hi_s, 0.0558418, 1e-7);
  EXPECT_NEAR(s.components[2].added_lo_s, 0.0558418 * 0.843265, 1e-6);
  // At 400 Gb/s the ring is faster than the measured NVLink/PCIe kernels: nothing added.
  EXPECT_DOUBLE_EQ(EvaluateLink(t, Link("400Gbps,2us")).components[2].added_hi_s, 0);
}

TEST(NetworkModelTest, SampledPcieRates) {
  auto profiles = ImportFile(BuiltinImporters(),
                             testing::DataPath("dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom"));
  ASSERT_TRUE(profiles.ok());
  const Profile& p = (*profiles)[0];
  WorkloadReport report = CharacterizeWorkload(p);
  auto demands = DeriveDemands(p, report);
  ASSERT_FALSE(demands.empty());
  TrafficProfile t = ExtractTraffic(p, report, demands[0]);
  ASSERT_TRUE(t.has_rates);
  EXPECT_DOUBLE_EQ(t.pcie_bytes_per_s, 33011804.0 + 97863601.0);  // DCGM PCIe TX + RX
  LinkSensitivity s = EvaluateLink(t, Link("1Gbps,5us"));
  EXPECT_NEAR(s.slowdown_hi, (33011804.0 + 97863601.0) / 125e6, 1e-9);
  EXPECT_FALSE(s.saturated);  // 65 MB/s each way on a 125 MB/s link
  EXPECT_TRUE(EvaluateLink(t, Link("0.5Gbps,5us")).saturated);
}

}  // namespace
}  // namespace kraken::disagg
