// `kraken diff`'s JSON and text (declared in report/insights_output.h).
#include "base/text.h"
#include "base/text_table.h"
#include "report/insights_output.h"

namespace kraken {
namespace {

using Align = TextTable::Align;

std::string MsText(double ns) { return FormatFixed(ns / 1e6, 3); }
// Built by appending: GCC 12's -Wrestrict misfires on `const char* + std::string&&`.
std::string Signed(double value, int digits) {
  std::string out = value >= 0 ? "+" : "";
  out += FormatFixed(value, digits);
  return out;
}
std::string SignedMs(double ns) { return Signed(ns / 1e6, 3); }
std::string PctText(const DiffEntry& e) {
  if (e.a_ns == 0) return e.b_ns == 0 ? "0" : "new";
  return Signed(e.delta_pct(), 1) + "%";
}

void WriteEntry(JsonWriter& json, const DiffEntry& e) {
  json.BeginObject().Field("scope", DiffScopeName(e.scope)).Field("name", e.name);
  json.Field("status", DiffStatusName(e.status));
  json.Field("a_us", e.a_ns / 1000.0).Field("b_us", e.b_ns / 1000.0).Field("delta_us", e.delta_ns() / 1000.0);
  json.Field("delta_pct", e.delta_pct()).Field("a_count", e.a_count).Field("b_count", e.b_count);
  json.EndObject();
}

void WriteEntries(JsonWriter& json, std::string_view key, const std::vector<DiffEntry>& entries) {
  json.Key(key).BeginArray();
  for (const DiffEntry& e : entries) WriteEntry(json, e);
  json.EndArray();
}

void WriteSide(JsonWriter& json, std::string_view key, const TraceSideSummary& s) {
  json.Key(key).BeginObject().Field("ranks", s.ranks).Field("step_us", s.step_ns / 1000.0);
  json.Field("has_steps", s.has_steps).Field("kernels", static_cast<int64_t>(s.kernels.size()));
  json.Field("operators", static_cast<int64_t>(s.operators.size())).EndObject();
}

std::string EntryTable(const std::vector<DiffEntry>& entries, bool with_scope) {
  TextTable table({"what", "name", "A ms", "B ms", "change ms", "change", "status"},
                  {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kLeft});
  table.SetMaxWidth(1, 70);
  for (const DiffEntry& e : entries)
    table.AddRow({with_scope ? std::string(DiffScopeName(e.scope)) : "", e.name, MsText(e.a_ns), MsText(e.b_ns),
                  SignedMs(e.delta_ns()), PctText(e), std::string(DiffStatusName(e.status))});
  return table.Render();
}

}  // namespace

void WriteTraceDiffJson(JsonWriter& json, const TraceDiff& diff) {
  WriteSide(json, "a", diff.a);
  WriteSide(json, "b", diff.b);
  json.Key("step");
  WriteEntry(json, diff.step);
  WriteEntries(json, "timeline", diff.timeline);
  WriteEntries(json, "kernel_classes", diff.kernel_classes);
  WriteEntries(json, "kernels", diff.kernels);
  WriteEntries(json, "operators", diff.operators);
  WriteEntries(json, "added_kernels", diff.added_kernels);
  WriteEntries(json, "removed_kernels", diff.removed_kernels);
  WriteEntries(json, "ranked", diff.ranked);
}

std::string RenderTraceDiffText(const TraceDiff& diff, const std::string& a_name, const std::string& b_name) {
  std::string out = "A: " + a_name + " (" + std::to_string(diff.a.ranks) + " rank(s))\nB: " + b_name + " (" +
                    std::to_string(diff.b.ranks) + " rank(s))\n";
  out += (diff.step.name == "step" ? "Step time: " : "GPU span (no steps on both sides): ") + MsText(diff.step.a_ns) +
         " ms -> " + MsText(diff.step.b_ns) + " ms (" + SignedMs(diff.step.delta_ns()) + " ms, " + PctText(diff.step) +
         ")\nPer rank; times are per-rank means.\n\nChanges ranked by impact:\n";
  out += EntryTable(diff.ranked, true);
  out += "\nGPU timeline (main window):\n" + EntryTable(diff.timeline, false);
  out += "\nKernel time by class:\n" + EntryTable(diff.kernel_classes, false);
  if (!diff.added_kernels.empty()) out += "\nKernels only in B:\n" + EntryTable(diff.added_kernels, false);
  if (!diff.removed_kernels.empty()) out += "\nKernels only in A:\n" + EntryTable(diff.removed_kernels, false);
  return out;
}

}  // namespace kraken
