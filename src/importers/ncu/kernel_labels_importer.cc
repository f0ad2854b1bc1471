// Importer for per-kernel labels another tool wrote next to its ncu reports, such as
// llm-perf-opt's classification_summary.csv ("kernel_id,classification" then
// "kernel_0016_<hash>,compute_bound"). The labels are that tool's heuristic, kept to
// compare kraken's own classification with, never used as kraken's answer. Which tool
// wrote a file cannot be told from its content, so every label gets source "labels"
// and the header's column names are kept as attributes.
#include "base/csv_reader.h"
#include "base/text.h"
#include "importers/builtin_importers.h"

namespace kraken {
namespace {

constexpr std::string_view kSource = "labels";

std::string Unquote(std::string_view field) {
  field = Trim(field);
  if (field.size() >= 2 && field.front() == '"' && field.back() == '"') field = field.substr(1, field.size() - 2);
  return ToLower(Trim(field));
}

bool LooksLikeKernelColumn(const std::string& name) {
  return name.find("kernel") != std::string::npos || name == "name" || name == "id";
}

bool LooksLikeLabelColumn(const std::string& name) {
  for (std::string_view word : {"classification", "label", "bound", "class"})
    if (name.find(word) != std::string::npos) return true;
  return false;
}

class KernelLabelsImporter final : public Importer {
 public:
  const ImporterDescriptor& descriptor() const override {
    static const ImporterDescriptor kDescriptor{
        "kernel-labels", "Per-kernel labels written by another tool (kernel,classification CSV)",
        "two-column CSV: a kernel name/id column and a classification/label/bound column"};
    return kDescriptor;
  }

  // The header is exactly two columns, a kernel column and a label column, and every
  // complete line in the head has two fields: other CSVs (Orion, nvidia-smi, ncu) have
  // more columns.
  SniffResult Sniff(std::string_view head) const override {
    size_t last_newline = head.rfind('\n');
    if (last_newline == std::string_view::npos) return SniffResult::kNo;
    CsvReader reader(head.substr(0, last_newline + 1));
    std::vector<std::string> fields;
    if (!reader.Next(&fields) || fields.size() != 2) return SniffResult::kNo;
    if (!LooksLikeKernelColumn(Unquote(fields[0])) || !LooksLikeLabelColumn(Unquote(fields[1])))
      return SniffResult::kNo;
    while (reader.Next(&fields)) {
      if (reader.unterminated_quote()) return SniffResult::kNo;
      bool blank = fields.size() == 1 && Trim(fields[0]).empty();
      if (!blank && fields.size() != 2) return SniffResult::kNo;
    }
    return SniffResult::kYes;
  }

  Status Import(ImportInput& input, ProfileSink& sink) const override {
    KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadAll(*input.stream));
    CsvReader reader(text);
    std::vector<std::string> header;
    if (!reader.Next(&header) || header.size() != 2)
      return InvalidInput("line 1: a label CSV has two columns: kernel, label");
    std::vector<KernelLabel> labels;
    int64_t malformed = 0;
    std::vector<std::string> fields;
    while (reader.Next(&fields)) {
      if (reader.unterminated_quote())
        return InvalidInput("line " + std::to_string(reader.line()) + ": unterminated quoted field");
      if (fields.size() == 1 && Trim(fields[0]).empty()) continue;
      if (fields.size() != 2 || Trim(fields[0]).empty() || Trim(fields[1]).empty()) {
        ++malformed;
        continue;
      }
      labels.push_back(KernelLabel{std::string(Trim(fields[0])), std::string(Trim(fields[1])), std::string(kSource)});
    }
    if (labels.empty())
      return InvalidInput("line " + std::to_string(reader.line()) + ": label CSV has a header but no label row");
    Profile& profile = sink.NewProfile(input, descriptor().name);
    profile.metadata.kernel_timestamps_valid = false;
    profile.metadata.attributes["labels_kernel_column"] = std::string(Trim(header[0]));
    profile.metadata.attributes["labels_label_column"] = std::string(Trim(header[1]));
    profile.kernel_labels = std::move(labels);
    if (malformed > 0) profile.import_counters["labels_malformed_rows"] = malformed;
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Importer> CreateKernelLabelsImporter() { return std::make_unique<KernelLabelsImporter>(); }

}  // namespace kraken
