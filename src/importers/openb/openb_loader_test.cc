// The openb loader on the real trace files (shared/data/alibaba-gpu-v2023). Expected
// counts were taken from the files with Python's csv module and match SOURCES.md.
#include "importers/openb/openb_loader.h"

#include <gtest/gtest.h>

#include <map>

#include "base/testing/test_data.h"

namespace kraken {
namespace {

std::string OpenbPath(const std::string& file) { return testing::DataPath("alibaba-gpu-v2023/" + file); }

struct PodStats {
  size_t pods = 0, cpu_only = 0, sharing = 0;
  int64_t gpu_milli = 0, cpu_milli = 0;
  std::map<int, int> by_num_gpu;
};

PodStats Stats(const OpenbPodList& list) {
  PodStats s;
  s.pods = list.pods.size();
  for (const PodRequest& p : list.pods) {
    if (p.num_gpu == 0) ++s.cpu_only;
    if (p.IsGpuSharing()) ++s.sharing;
    s.gpu_milli += p.TotalGpuMilli();
    s.cpu_milli += p.cpu_milli;
    ++s.by_num_gpu[p.num_gpu];
  }
  return s;
}

TEST(OpenbLoaderTest, GpuNodeList) {
  auto list = LoadOpenbNodes(OpenbPath("openb_node_list_gpu_node.csv"));
  ASSERT_TRUE(list.ok()) << list.status().message();
  ASSERT_EQ(list->nodes.size(), 1213u);
  int64_t gpus = 0, cpu = 0, mem = 0;
  std::map<std::string, int64_t> gpus_by_model;
  for (const ClusterNode& n : list->nodes) {
    gpus += n.gpu_count;
    cpu += n.cpu_milli;
    mem += n.memory_mib;
    gpus_by_model[n.gpu_model] += n.gpu_count;
  }
  EXPECT_EQ(gpus, 6212);
  EXPECT_EQ(cpu, 107'018'000);
  EXPECT_EQ(mem, 503'828'480);
  EXPECT_EQ(gpus_by_model["G2"], 4392);
  EXPECT_EQ(gpus_by_model["T4"], 842);
  EXPECT_EQ(gpus_by_model["G3"], 312);
  EXPECT_EQ(gpus_by_model["P100"], 265);
  EXPECT_EQ(gpus_by_model["V100M32"], 204);
  EXPECT_EQ(gpus_by_model["V100M16"], 195);
  EXPECT_EQ(gpus_by_model["A10"], 2);
  EXPECT_EQ(list->nodes[0].name, "openb-node-0000");
  EXPECT_EQ(list->nodes[0].cpu_milli, 64000);
  EXPECT_EQ(list->nodes[0].memory_mib, 262144);
  EXPECT_EQ(list->nodes[0].gpu_count, 2);
  EXPECT_EQ(list->nodes[0].gpu_model, "P100");
  EXPECT_TRUE(list->counters.empty());
}

TEST(OpenbLoaderTest, AllNodeListHasCpuOnlyNodes) {
  auto list = LoadOpenbNodes(OpenbPath("openb_node_list_all_node.csv"));
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_EQ(list->nodes.size(), 1523u);
  size_t cpu_only = 0;
  for (const ClusterNode& n : list->nodes)
    if (n.gpu_count == 0) {
      ++cpu_only;
      EXPECT_TRUE(n.gpu_model.empty());
    }
  EXPECT_EQ(cpu_only, 310u);
}

TEST(OpenbLoaderTest, DefaultPodList) {
  auto list = LoadOpenbPods(OpenbPath("openb_pod_list_default.csv"));
  ASSERT_TRUE(list.ok()) << list.status().message();
  PodStats s = Stats(*list);
  EXPECT_EQ(s.pods, 8152u);
  EXPECT_EQ(s.cpu_only, 1088u);
  EXPECT_EQ(s.sharing, 3078u);
  EXPECT_EQ(s.gpu_milli, 6'086'800);
  EXPECT_EQ(s.cpu_milli, 85'436'012);
  EXPECT_EQ(s.by_num_gpu, (std::map<int, int>{{0, 1088}, {1, 6989}, {2, 16}, {4, 15}, {8, 44}}));
  // openb-pod-0001: 6000 mCPU, 12288 MiB, one GPU at 460 milli.
  const PodRequest& p = list->pods[1];
  EXPECT_EQ(p.name, "openb-pod-0001");
  EXPECT_EQ(p.cpu_milli, 6000);
  EXPECT_EQ(p.memory_mib, 12288);
  EXPECT_EQ(p.num_gpu, 1);
  EXPECT_EQ(p.gpu_milli, 460);
  EXPECT_TRUE(p.gpu_spec.empty());
  EXPECT_TRUE(list->counters.empty());
}

TEST(OpenbLoaderTest, EveryPodListInTheFolder) {
  struct Expected {
    const char* file;
    size_t pods, sharing;
    int64_t gpu_milli;
  };
  const Expected files[] = {
      {"openb_pod_list_gpushare20.csv", 8152, 2324, 6'531'500},
      {"openb_pod_list_gpushare40.csv", 8152, 4001, 5'641'250},
      {"openb_pod_list_gpushare60.csv", 8152, 5233, 4'908'340},
      {"openb_pod_list_gpushare80.csv", 8152, 6279, 4'408'190},
      {"openb_pod_list_gpushare100.csv", 8152, 7064, 3'952'670},
      {"openb_pod_list_multigpu20.csv", 8324, 3078, 7'086'800},
      {"openb_pod_list_multigpu30.csv", 8508, 3078, 8'086'800},
      {"openb_pod_list_multigpu40.csv", 8746, 3078, 9'442'800},
      {"openb_pod_list_multigpu50.csv", 9061, 3078, 11'358'800},
  };
  for (const Expected& e : files) {
    auto list = LoadOpenbPods(OpenbPath(e.file));
    ASSERT_TRUE(list.ok()) << list.status().message();
    PodStats s = Stats(*list);
    EXPECT_EQ(s.pods, e.pods) << e.file;
    EXPECT_EQ(s.cpu_only, 1088u) << e.file;
    EXPECT_EQ(s.sharing, e.sharing) << e.file;
    EXPECT_EQ(s.gpu_milli, e.gpu_milli) << e.file;
    EXPECT_TRUE(list->counters.empty()) << e.file;
  }
}

TEST(OpenbLoaderTest, MissingColumnNamesFileAndLine) {
  auto list = ParseOpenbPods("name,cpu_milli,memory_mib,num_gpu\npod-1,1000,10,0\n", "pods.csv");
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.status().message(), "pods.csv: line 1: missing column 'gpu_milli' (not an openb CSV?)");
  auto empty = ParseOpenbNodes("", "nodes.csv");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "nodes.csv: line 1: empty file, expected a CSV header");
  auto missing = LoadOpenbPods("/nonexistent/pods.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "/nonexistent/pods.csv: no such file");
}

TEST(OpenbLoaderTest, BadRowsAreCountedAndSkipped) {
  const char* text =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
      "ok-share,4000,1024,1,500,V100M32|G3\n"
      "ok-cpu,1000,512,0,0,\n"
      "\n"
      "bad-number,12x,1024,1,500,\n"
      "bad-fields,1000,1024,1\n"
      "bad-milli,1000,1024,1,1500,\n"
      "bad-multi,1000,1024,2,500,\n"
      "bad-negative,-1,1024,0,0,\n"
      "odd-cpu-pod,1000,1024,0,300,\n";
  auto list = ParseOpenbPods(text, "pods.csv");
  ASSERT_TRUE(list.ok()) << list.status().message();
  ASSERT_EQ(list->pods.size(), 3u);
  EXPECT_EQ(list->pods[0].gpu_spec, (std::vector<std::string>{"V100M32", "G3"}));
  EXPECT_TRUE(list->pods[0].IsGpuSharing());
  EXPECT_EQ(list->pods[2].num_gpu, 0);
  EXPECT_EQ(list->pods[2].gpu_milli, 0);
  EXPECT_EQ(list->counters.at("openb_bad_rows"), 5);
  EXPECT_EQ(list->counters.at("openb_unparsable_numbers"), 1);
  EXPECT_EQ(list->counters.at("openb_wrong_field_count"), 1);
  EXPECT_EQ(list->counters.at("openb_gpu_milli_out_of_range"), 1);
  EXPECT_EQ(list->counters.at("openb_multi_gpu_not_whole"), 1);
  EXPECT_EQ(list->counters.at("openb_negative_values"), 1);
  EXPECT_EQ(list->counters.at("openb_gpu_milli_without_gpus"), 1);
}

TEST(OpenbLoaderTest, MultiGpuLayoutWithoutSpecColumn) {
  auto list = ParseOpenbPods("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,32000,65536,8,1000\n", "m.csv");
  ASSERT_TRUE(list.ok()) << list.status().message();
  ASSERT_EQ(list->pods.size(), 1u);
  EXPECT_EQ(list->pods[0].TotalGpuMilli(), 8000);
  EXPECT_FALSE(list->pods[0].IsGpuSharing());
}

}  // namespace
}  // namespace kraken
