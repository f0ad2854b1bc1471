// Reads back kraken's own profile export (`kraken export ID --format json`, `kraken profile
// --out FILE`, the C API's kraken_session_profile; keys in docs/store.md): every section
// the exporter writes, into the same model fields. The file is streamed like a Kineto
// trace (JsonStreamWalker): each record of each array is parsed on its own, so memory is
// bounded by the model, not by the file. A record that cannot be read is counted in
// kraken_json_unreadable_<section> and skipped; a file that is not an export of a version
// this kraken knows is refused whole.
#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "importers/builtin_importers.h"
#include "importers/common/json_stream_walker.h"
#include "importers/importer.h"
#include "importers/kraken_json/kraken_json_sections.h"

namespace kraken {
namespace {

using kraken_json::od::parser;
using kraken_json::od::value;
using kraken_json::ReadContext;
using kraken_json::Section;

constexpr ImporterDescriptor kDescriptor{
    "kraken-json", "kraken's own profile export (kraken export --format json, kraken profile --out)",
    "one JSON object starting with \"kraken_profile_version\""};

constexpr int64_t kVersion = 1;  // the newest kraken_profile_version this importer reads
constexpr std::string_view kVersionKey = "kraken_profile_version";

std::optional<Section> SectionOf(std::string_view key) {
  for (const auto& [name, section] : kraken_json::kSectionKeys)
    if (name == key) return section;
  return std::nullopt;
}

// Parses one piece the walker handed over (it stays readable kJsonReadPadding bytes past
// its end, which simdjson needs) and gives its root value to `read`; false when the piece
// is damaged or `read` refuses it.
template <typename F>
bool ParsePiece(parser& json, std::string_view piece, F&& read) {
  kraken_json::od::document doc;
  value root;
  if (json.iterate(piece.data(), piece.size(), piece.size() + kJsonReadPadding).get(doc) != simdjson::SUCCESS ||
      doc.get_value().get(root) != simdjson::SUCCESS)
    return false;
  return read(root);
}

Status CheckVersion(std::string_view text) {
  int64_t version = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
  if (ec != std::errc() || end != text.data() + text.size() || version < 1) {
    // The value is quoted only when short and printable: errors are one line.
    bool quotable = text.size() <= 32 && std::all_of(text.begin(), text.end(), [](char c) { return c >= ' ' && c < 127; });
    return InvalidInput("kraken_profile_version must be a positive integer" +
                        (quotable ? ", not " + std::string(text) : std::string()));
  }
  if (version > kVersion)
    return InvalidInput("kraken_profile_version " + std::to_string(version) + " is newer than this kraken reads (" +
                        std::to_string(kVersion) + "); read it with a newer kraken");
  return Status::Ok();
}

// One import: the profile being filled and what was skipped on the way.
class ExportReader {
 public:
  explicit ExportReader(Profile& profile) : profile_(profile) { context_.strings = &profile.strings; }

  // The members that are not streamed arrays: the version, metadata, import counters.
  Status OnMember(std::string_view key, std::string_view raw) {
    if (!version_seen_) {
      if (key != kVersionKey) return InvalidInput(std::string("expected \"") + std::string(kVersionKey) + "\" first");
      version_seen_ = true;
      return CheckVersion(raw);
    }
    if (key == "metadata") {
      ProfileMetadata metadata = profile_.metadata;
      if (ParsePiece(json_, raw, [&](value& v) { return kraken_json::ReadMetadata(v, metadata, context_); })) {
        profile_.metadata = std::move(metadata);
      } else {
        ++skipped_["kraken_json_unreadable_metadata"];
      }
    } else if (key == "import_counters") {
      ReadImportCounters(raw);
    } else if (SectionOf(key)) {
      ++skipped_["kraken_json_unreadable_" + std::string(key)];  // a section that is not an array
    } else {
      // A key this version does not know (a later writer's): counted, never silently lost.
      ++skipped_["kraken_json_skipped_" + std::string(key)];
    }
    return Status::Ok();
  }

  // One record of a streamed section. Import checked that the version comes first, so
  // it was read before any record.
  void OnElement(std::string_view section_key, std::string_view element) {
    std::optional<Section> known = SectionOf(section_key);
    if (!known) return;  // only the sections are streamed
    Section section = *known;
    bool ok = ParsePiece(json_, element, [&](value& v) {
      return kraken_json::AppendRecord(section, v, profile_, context_);
    });
    if (!ok) ++skipped_["kraken_json_unreadable_" + std::string(section_key)];
    // Kernels and ranges point into these two by position in the file.
    if (section == Section::kKernelCounters) counters_at_.push_back(ok ? Last(profile_.kernel_counters) : -1);
    if (section == Section::kCollectives) collectives_at_.push_back(ok ? Last(profile_.collectives) : -1);
  }

  // After the walk: links checked, counters added.
  Status Finish() {
    if (!version_seen_) return InvalidInput("no \"" + std::string(kVersionKey) + "\": not a kraken profile");
    for (Kernel& k : profile_.kernels) {
      Relink(k.counters_index, counters_at_, "kraken_json_dangling_counters_index");
      Relink(k.collective_index, collectives_at_, "kraken_json_dangling_collective_index");
    }
    for (ProfilerRange& r : profile_.profiler_ranges)
      Relink(r.counters_index, counters_at_, "kraken_json_dangling_counters_index");
    if (context_.bad_samples > 0) skipped_["kraken_json_unreadable_samples"] += context_.bad_samples;
    for (const auto& [name, count] : skipped_) profile_.import_counters[name] += count;
    return Status::Ok();
  }

 private:
  template <typename T>
  static int32_t Last(const std::vector<T>& records) {
    return static_cast<int32_t>(records.size()) - 1;
  }

  // An index written as a position among the file's records, made a position in the
  // profile (records skipped before it shift it); -1 when it names no record read.
  void Relink(int32_t& index, const std::vector<int32_t>& at, const char* counter) {
    if (index == -1) return;
    int32_t relinked = index >= 0 && static_cast<size_t>(index) < at.size() ? at[static_cast<size_t>(index)] : -1;
    if (relinked < 0) ++skipped_[counter];
    index = relinked;
  }

  void ReadImportCounters(std::string_view raw) {
    bool ok = ParsePiece(json_, raw, [&](value& v) {
      kraken_json::od::object counters;
      if (v.get_object().get(counters) != simdjson::SUCCESS) return false;
      for (auto member : counters) {
        kraken_json::od::field field;
        std::string_view name;
        int64_t count = 0;
        if (std::move(member).get(field) != simdjson::SUCCESS || field.unescaped_key().get(name) != simdjson::SUCCESS)
          return false;
        std::string key(name);
        if (field.value().get_int64().get(count) != simdjson::SUCCESS) return false;
        profile_.import_counters[key] = count;
      }
      return true;
    });
    if (!ok) ++skipped_["kraken_json_unreadable_import_counters"];
  }

  Profile& profile_;
  parser json_;
  ReadContext context_;
  bool version_seen_ = false;
  std::vector<int32_t> counters_at_, collectives_at_;
  std::map<std::string, int64_t> skipped_;
};

class KrakenJsonImporter final : public Importer {
 public:
  const ImporterDescriptor& descriptor() const override { return kDescriptor; }

  SniffResult Sniff(std::string_view head) const override {
    size_t start = head.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos || head[start] != '{') return SniffResult::kNo;
    size_t key = head.find("\"kraken_profile_version\"");
    // The writer puts it first: the only key before it is nothing but whitespace.
    return key != std::string_view::npos && head.find_first_not_of(" \t\r\n", start + 1) == key ? SniffResult::kYes
                                                                                                 : SniffResult::kNo;
  }

  Status Import(ImportInput& input, ProfileSink& sink) const override {
    // Refused before reading on (also when the format was forced): a file that is not an
    // export may start with a member far larger than any of an export's.
    if (Sniff(input.head) != SniffResult::kYes)
      return InvalidInput("byte 0: not a kraken profile export (it does not start with {\"" +
                          std::string(kVersionKey) + "\": ...)");
    Profile& profile = sink.NewProfile(input, kDescriptor.name);
    ExportReader reader(profile);
    std::vector<std::string> arrays;
    for (const auto& section : kraken_json::kSectionKeys) arrays.emplace_back(section.key);
    JsonStreamWalker walker(*input.stream, std::move(arrays), input.progress);
    JsonStreamWalker::Callbacks callbacks;
    callbacks.on_element = [&](std::string_view element, uint64_t) {
      reader.OnElement(walker.current_array(), element);
    };
    callbacks.on_member = [&](std::string_view key, std::string_view raw) { return reader.OnMember(key, raw); };
    KRAKEN_RETURN_IF_ERROR(walker.Walk(callbacks));
    // The metadata stays as exported (source: what was profiled, format: its importer),
    // with nothing added: an export read back equals the profile that was exported.
    return reader.Finish();
  }
};

}  // namespace

std::unique_ptr<Importer> CreateKrakenJsonImporter() { return std::make_unique<KrakenJsonImporter>(); }

}  // namespace kraken
