// Golden tests of the PAI mini-batch-time importer on the real files of
// shared/data/alibaba-pai-gpu-v2020/mini-batch-time (numbers read with Python's csv module).
#include <gtest/gtest.h>

#include <numeric>

#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken {
namespace {

Profile ImportOne(const std::string& relative) {
  auto result = ImportFile(BuiltinImporters(), testing::DataPath(relative));
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok() || result->size() != 1) return Profile();
  return std::move(result->front());
}

const Series* Worker(const Profile& p, const std::string& worker) {
  for (const Series& s : p.series)
    if (s.entity.labels.count("worker") && s.entity.labels.at("worker") == worker) return &s;
  return nullptr;
}

double Sum(const Series& s) {
  return std::accumulate(s.samples.begin(), s.samples.end(), 0.0,
                         [](double acc, const Sample& x) { return acc + x.value; });
}

TEST(PaiMinibatchImporter, WorkerSeriesAreIndexedByIteration) {
  Profile p = ImportOne("alibaba-pai-gpu-v2020/mini-batch-time/job_1_norm.csv.gz");
  EXPECT_EQ(p.metadata.format, "pai-minibatch");
  EXPECT_EQ(p.import_counters.at("pai_minibatch_rows"), 3000);
  ASSERT_EQ(p.series.size(), 10u);
  const Series* w0 = Worker(p, "0");
  ASSERT_NE(w0, nullptr);
  EXPECT_EQ(w0->axis, SampleAxis::kIteration);
  EXPECT_EQ(w0->entity.labels.at("job"), "job_1");
  EXPECT_EQ(w0->entity.labels.at("gpu_request_pct"), "25");
  ASSERT_EQ(w0->samples.size(), 300u);
  EXPECT_EQ(w0->samples.front().time_ns, 1);  // iteration 1, not 1 ns
  EXPECT_EQ(w0->samples.front().value, 476);
  EXPECT_EQ(w0->samples.back().time_ns, 2988);
  EXPECT_EQ(w0->samples.back().value, 487);
  const Series* straggler = Worker(p, "6");  // the README's straggler
  ASSERT_NE(straggler, nullptr);
  EXPECT_EQ(Sum(*straggler), 133550);
}

TEST(PaiMinibatchImporter, UnevenWorkers) {
  Profile p2 = ImportOne("alibaba-pai-gpu-v2020/mini-batch-time/job_2_norm.csv.gz");
  ASSERT_EQ(p2.series.size(), 10u);
  EXPECT_EQ(Worker(p2, "0")->samples.size(), 250u);
  EXPECT_EQ(Worker(p2, "3")->samples.size(), 240u);
  EXPECT_EQ(Sum(*Worker(p2, "6")), 199261);
  Profile p4 = ImportOne("alibaba-pai-gpu-v2020/mini-batch-time/job_4_norm.csv.gz");
  EXPECT_EQ(p4.import_counters.at("pai_minibatch_rows"), 21829);
  EXPECT_EQ(Worker(p4, "9")->samples.size(), 2182u);
  EXPECT_EQ(Worker(p4, "0")->entity.labels.at("gpu_request_pct"), "50");
  EXPECT_EQ(Sum(*Worker(p4, "6")), 680192);
}

TEST(PaiMinibatchImporter, CoefficientOfVariationPerJob) {
  Profile p = ImportOne("alibaba-pai-gpu-v2020/mini-batch-time/coefficient_variation.csv.gz");
  EXPECT_EQ(p.metadata.format, "pai-minibatch");
  ASSERT_EQ(p.series.size(), 100u);
  size_t total = 0, shortest = SIZE_MAX, longest = 0;
  for (const Series& s : p.series) {
    total += s.samples.size();
    shortest = std::min(shortest, s.samples.size());
    longest = std::max(longest, s.samples.size());
  }
  EXPECT_EQ(total, 82739u);
  EXPECT_EQ(shortest, 203u);
  EXPECT_EQ(longest, 2000u);
  const Series& job0 = p.series.front();
  EXPECT_EQ(job0.entity.labels.at("job"), "job_00");
  EXPECT_EQ(job0.axis, SampleAxis::kIteration);
  EXPECT_EQ(job0.samples.front().time_ns, 0);
  EXPECT_DOUBLE_EQ(job0.samples.front().value, 0.0536543687132439);
  EXPECT_EQ(p.series.back().entity.labels.at("job"), "job_99");
}

}  // namespace
}  // namespace kraken
