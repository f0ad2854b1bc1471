// record-nvml --from-nvidia-smi on edited copies of a real capture: what the converter does
// with input the real captures never show (a phase's -q printed twice, counts NVML's types
// cannot hold, an empty product name). Each case was first found by smi_capture_fuzzer.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "collectors/nvml/capture_format.h"
#include "collectors/nvml/nvml_test_support.h"
#include "collectors/nvml/smi_capture_converter.h"

namespace kraken::nvml {
namespace {

using testing::FindField;

constexpr const char* kH100Capture = "nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt";
constexpr const char* kCorrectableZero = "Correctable Error                              : 0";

std::string H100CaptureText() { return kraken::testing::ReadFileOrDie(kraken::testing::DataPath(kH100Capture)); }

// The section whose banner names `title` ("load :: query (-q)"): from its banner's first
// rule to the next banner's (rules are lines of #).
std::pair<size_t, size_t> SectionBounds(const std::string& text, const std::string& title) {
  const std::string rule = "\n#####";
  size_t title_at = text.find("\n# " + title + "\n");
  if (title_at == std::string::npos) return {std::string::npos, std::string::npos};
  size_t begin = text.rfind(rule, title_at) + 1;
  size_t closing = text.find(rule, title_at + 1);  // the banner's closing rule
  size_t end = text.find(rule, closing + 1);
  return {begin, end == std::string::npos ? text.size() : end + 1};
}

// Every frame's remapped-rows correctable count, as the replay would answer it.
std::multiset<uint64_t> CorrectableCounts(const Capture& c) {
  std::multiset<uint64_t> counts;
  for (const Frame& frame : c.frames)
    if (const FieldAnswer* a = FindField(frame.devices[0], NVML_FI_DEV_REMAPPED_COR)) counts.insert(a->bits);
  return counts;
}

Result<Capture> Convert(const std::string& name, const std::string& text) {
  return CaptureFromNvidiaSmiText(name, text);
}

TEST(SmiCaptureConverterTest, PhaseWithItsReportTwiceKeepsTheLast) {
  std::string text = H100CaptureText();
  auto [begin, end] = SectionBounds(text, "load :: query (-q)");
  ASSERT_NE(begin, std::string::npos);
  std::string second = text.substr(begin, end - begin);
  size_t at = second.find(kCorrectableZero);
  ASSERT_NE(at, std::string::npos);
  second.replace(at + std::string(kCorrectableZero).size() - 1, 1, "7");
  text.insert(end, second);

  Result<Capture> c = Convert("twice.txt", text);
  ASSERT_TRUE(c.ok()) << c.status().message();
  std::multiset<uint64_t> counts = CorrectableCounts(*c);
  ASSERT_EQ(counts.size(), c->frames.size());
  EXPECT_GT(counts.count(7), 0u);  // the load phase's frames: its second report
  EXPECT_GT(counts.count(0), 0u);  // the idle phase's frames
  EXPECT_EQ(counts.count(0) + counts.count(7), counts.size());
}

// A second -q of the load phase that holds no GPU: the phase has no report of its GPUs
// left, so only the idle phase makes frames. (The groups of the first report were once
// kept after it was freed: a use-after-free that smi_capture_fuzzer found under ASan.)
TEST(SmiCaptureConverterTest, PhaseWhoseLastReportHasNoGpuMakesNoFrames) {
  std::string text = H100CaptureText();
  Result<Capture> whole = Convert("whole.txt", text);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  auto [begin, end] = SectionBounds(text, "load :: query (-q)");
  ASSERT_NE(begin, std::string::npos);
  const std::string rule(80, '#');
  text.insert(end, rule + "\n# load :: query (-q)\n# $ nvidia-smi -q\n" + rule + "\n\nTimestamp : -\n\n");

  Result<Capture> c = Convert("empty-second.txt", text);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_GT(c->frames.size(), 0u);
  EXPECT_LT(c->frames.size(), whole->frames.size());
  EXPECT_EQ(CorrectableCounts(*c).count(0), c->frames.size());  // idle frames, their report's 0
}

// NVML answers remapped rows as unsigned int: 2^32 - 1 is kept, 2^32 is left out
// (NOT_SUPPORTED), never written wrapped to 0.
TEST(SmiCaptureConverterTest, CountsOutsideNvmlsTypeAreLeftOutNotWrapped) {
  std::string text = H100CaptureText();
  size_t idle = text.find(kCorrectableZero);
  size_t load = text.find(kCorrectableZero, idle + 1);
  ASSERT_NE(load, std::string::npos);
  const size_t digit = std::string(kCorrectableZero).size() - 1;
  text.replace(load + digit, 1, "4294967295");
  text.replace(idle + digit, 1, "4294967296");

  Result<Capture> c = Convert("huge.txt", text);
  ASSERT_TRUE(c.ok()) << c.status().message();
  std::multiset<uint64_t> counts = CorrectableCounts(*c);
  EXPECT_GT(counts.size(), 0u);
  EXPECT_LT(counts.size(), c->frames.size());  // the idle frames have none
  EXPECT_EQ(counts.count(4294967295u), counts.size());
}

// A fact the capture text could not carry (an empty name) is left out; what is written
// reads back.
TEST(SmiCaptureConverterTest, EmptyProductNameLeavesTheNameOut) {
  std::string text = H100CaptureText();
  const std::string name = "Product Name                                       : NVIDIA H100 80GB HBM3";
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at))
    text.replace(at, name.size(), "Product Name                                       : ");

  Result<Capture> c = Convert("noname.txt", text);
  ASSERT_TRUE(c.ok()) << c.status().message();
  Result<Capture> again = ParseCapture(WriteCapture(*c));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(WriteCapture(*again), WriteCapture(*c));
  EXPECT_FALSE(again->devices[0].name.ok() && again->devices[0].name.value.empty());
}

// The H100 MIG capture with its second MIG device printed as index 0 again: one device per
// index, the first kept, and the capture reads back (the replay refuses an index twice).
TEST(SmiCaptureConverterTest, MigDeviceIndexTwiceKeepsTheFirst) {
  std::string text = kraken::testing::ReadFileOrDie(
      kraken::testing::DataPath("nvidia-smi/capture__linux-x86_64__nvidia-h100-mig__590.48.01.txt"));
  const std::string index_1 = "MIG Device\n        Index                                          : 1";
  size_t at = text.find(index_1);
  ASSERT_NE(at, std::string::npos);
  text[at + index_1.size() - 1] = '0';

  Result<Capture> c = Convert("mig-twice.txt", text);
  ASSERT_TRUE(c.ok()) << c.status().message();
  std::vector<uint32_t> indices, gpu_instances;
  for (const MigFacts& m : c->devices[0].migs) {
    indices.push_back(m.index);
    gpu_instances.push_back(m.gpu_instance_id.value);
  }
  EXPECT_EQ(indices, (std::vector<uint32_t>{0, 2, 3}));
  EXPECT_EQ(gpu_instances, (std::vector<uint32_t>{2, 9, 10}));
  Result<Capture> again = ParseCapture(WriteCapture(*c));
  ASSERT_TRUE(again.ok()) << again.status().message();
}

}  // namespace
}  // namespace kraken::nvml
