// Importer for nvidia-smi output: --query-gpu / --query-compute-apps / --query-accounted-apps
// CSV, dmon, pmon, the -q report and -L, each as a plain log, or many of them concatenated in
// a capture with '####' banners (nvidia_gpu_exporter's captures). One file = one node =
// one Profile: devices merged across commands, one series per (metric, field, entity).
#include <cstdint>
#include <string>
#include <string_view>

#include "base/text.h"
#include "importers/builtin_importers.h"
#include "importers/nvidia_smi/capture_sections.h"
#include "importers/nvidia_smi/dmon_pmon.h"
#include "importers/nvidia_smi/gpu_list.h"
#include "importers/nvidia_smi/profile_builder.h"
#include "importers/nvidia_smi/query_csv.h"
#include "importers/nvidia_smi/smi_q_report.h"

namespace kraken {
namespace {

using namespace nvidia_smi;

bool LooksBinary(std::string_view head) {
  size_t control = 0;
  for (char c : head) {
    auto u = static_cast<unsigned char>(c);
    if (u == 0) return true;
    if (u < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\x1b') ++control;
  }
  return control * 20 > head.size();
}

std::string_view FirstNonBlankLine(std::string_view text, size_t* line_number = nullptr) {
  size_t number = 0;
  for (std::string_view line : Lines(text)) {
    ++number;
    if (!Trim(line).empty()) {
      if (line_number != nullptr) *line_number = number;
      return Trim(line);
    }
  }
  return {};
}

// A query CSV section: a header, and before it only rows of its width (,noheader rows
// logged before the header was). Looks at `max_lines` lines at most.
bool LooksLikeQueryCsv(std::string_view body, size_t max_lines = SIZE_MAX) {
  std::vector<std::string_view> before;
  for (std::string_view line : Lines(body)) {
    if (max_lines-- == 0) return false;
    if (Trim(line).empty()) continue;
    if (auto columns = ParseQueryHeader(Trim(line))) {
      for (std::string_view row : before)
        if (Split(row, ',').size() != columns->size()) return false;
      return true;
    }
    before.push_back(line);
  }
  return false;
}

bool IsPreamble(const Section& section) {
  return section.phase.empty() && section.command.empty() && ContainsIgnoreCase(section.title, "capture");
}

// How far into the head the sniffer looks for a query header after ,noheader rows.
constexpr size_t kSniffLines = 20;

class NvidiaSmiImporter final : public Importer {
 public:
  const ImporterDescriptor& descriptor() const override {
    static const ImporterDescriptor kDescriptor{
        "nvidia-smi",
        "nvidia-smi output: --query-gpu/--query-compute-apps CSV (also -l logs, noheader/nounits), dmon, pmon, "
        "-q, -L, and captures that concatenate them",
        "*.csv, *.txt, *.log as nvidia-smi printed them"};
    return kDescriptor;
  }

  SniffResult Sniff(std::string_view head) const override {
    if (head.empty() || LooksBinary(head)) return SniffResult::kNo;
    if (StartsWithCaptureBanner(head)) return SniffResult::kYes;
    if (head.find("=NVSMI LOG=") != std::string_view::npos) return SniffResult::kYes;
    // Only complete lines: the head may end inside one.
    size_t last_newline = head.rfind('\n');
    std::string_view complete = last_newline == std::string_view::npos ? head : head.substr(0, last_newline);
    std::string_view first = FirstNonBlankLine(complete);
    if (first.empty()) return SniffResult::kNo;
    if (ParseMonitorHeader(first) || IsGpuListLine(first)) return SniffResult::kYes;
    if (LooksLikeQueryCsv(complete, kSniffLines)) return SniffResult::kYes;
    return SniffResult::kNo;
  }

  Status Import(ImportInput& input, ProfileSink& sink) const override {
    KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadAll(*input.stream));
    Profile& profile = sink.NewProfile(input, descriptor().name);
    profile.metadata.accelerator_vendor = Vendor::kNvidia;
    ProfileBuilder builder(&profile);
    int usable = 0, skipped = 0;
    for (const Section& section : SplitSections(text)) {
      builder.set_phase(section.phase == "capabilities" ? std::string() : section.phase);
      switch (ReadSection(section, builder)) {
        case Outcome::kUsable:
          ++usable;
          break;
        case Outcome::kSkipped:
          ++skipped;
          break;
        case Outcome::kEmpty:
          builder.Count("nvidia_smi_empty_sections");
          break;
        case Outcome::kMetadata:
          break;
      }
    }
    if (usable == 0) {
      size_t line = 1;
      FirstNonBlankLine(text, &line);
      sink.profiles().pop_back();
      return InvalidInput("line " + std::to_string(line) +
                          ": no nvidia-smi output with samples or devices (query CSV, dmon, pmon, -q, -L); " +
                          std::to_string(skipped) + " section(s) of other output");
    }
    builder.Count("nvidia_smi_sections_read", usable);
    if (skipped > 0) builder.Count("nvidia_smi_sections_skipped", skipped);
    builder.Finish();
    return Status::Ok();
  }

 private:
  enum class Outcome { kUsable, kSkipped, kEmpty, kMetadata };

  static Outcome ReadSection(const Section& section, ProfileBuilder& builder) {
    std::string_view first = FirstNonBlankLine(section.body);
    if (IsPreamble(section)) {
      ParseCapturePreamble(section, builder);
      return Outcome::kMetadata;
    }
    if (first.empty()) return Outcome::kEmpty;
    if (ContainsReport(section.body)) return ParseReport(section, builder) > 0 ? Outcome::kUsable : Outcome::kSkipped;
    if (ParseMonitorHeader(first)) return ParseMonitor(section, builder) ? Outcome::kUsable : Outcome::kSkipped;
    if (LooksLikeQueryCsv(section.body)) return ParseQueryCsv(section, builder) ? Outcome::kUsable : Outcome::kSkipped;
    if (IsGpuListLine(first)) return ParseGpuList(section, builder) ? Outcome::kUsable : Outcome::kSkipped;
    if (ParseVersion(section, builder)) return Outcome::kMetadata;
    // Help text, topo -m, nvlink -s, the default table, symbol lists: no samples, no devices.
    return Outcome::kSkipped;
  }
};

}  // namespace

std::unique_ptr<Importer> CreateNvidiaSmiImporter() { return std::make_unique<NvidiaSmiImporter>(); }

}  // namespace kraken
