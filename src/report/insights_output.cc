#include "report/insights_output.h"

#include "base/text.h"
#include "base/text_table.h"

namespace kraken {
namespace {

using Align = TextTable::Align;

double Us(TimeNs ns) { return static_cast<double>(ns) / 1000.0; }
std::string MsText(double ns) { return FormatFixed(ns / 1e6, 3); }
std::string PctText(double pct) { return FormatFixed(pct, 2); }

void WriteKinds(JsonWriter& json, const std::array<TimeNs, kCriticalPathKinds>& by_kind, TimeNs total) {
  json.BeginObject();
  for (size_t k = 0; k < kCriticalPathKinds; ++k) {
    const auto kind = static_cast<CriticalPathKind>(k);
    json.Key(CriticalPathKindName(kind)).BeginObject();
    json.Field("us", Us(by_kind[k]));
    json.Field("pct", total > 0 ? 100.0 * static_cast<double>(by_kind[k]) / static_cast<double>(total) : 0.0);
    json.Field("bound_by", CriticalPathBoundBy(kind));
    json.EndObject();
  }
  json.EndObject();
}

void WriteCriticalPath(JsonWriter& json, const CriticalPathReport& r) {
  json.Key("critical_path").BeginObject();
  json.Field("total_us", Us(r.total_ns()));
  json.Field("dominant", r.total_ns() > 0 ? CriticalPathKindName(r.dominant()) : std::string_view("none"));
  json.Field("truncated", r.truncated);
  json.Key("by_kind");
  WriteKinds(json, r.by_kind, r.total_ns());
  json.Key("windows").BeginArray();
  for (const CriticalPathWindow& w : r.windows) {
    json.BeginObject().Field("step", w.step_number).Field("start_us", Us(w.window.start_ns));
    json.Field("duration_us", Us(w.window.length())).Field("events_on_path", w.events_on_path).Key("by_kind");
    WriteKinds(json, w.by_kind, w.total_ns());
    json.EndObject();
  }
  json.EndArray();
  json.Key("top").BeginArray();
  for (const CriticalPathItem& item : r.top) {
    json.BeginObject().Field("name", item.name).Field("kind", CriticalPathKindName(item.kind));
    json.Field("us", Us(item.time_ns)).Field("count", item.count).EndObject();
  }
  json.EndArray();
  json.EndObject();
}

void WriteSequences(JsonWriter& json, const std::vector<KernelSequence>& sequences) {
  json.Key("kernel_sequences").BeginArray();
  for (const KernelSequence& s : sequences) {
    json.BeginObject().Key("kernels").BeginArray();
    for (const std::string& k : s.kernels) json.String(k);
    json.EndArray();
    json.Field("count", s.count).Field("kernel_us", Us(s.kernel_time_ns)).Field("gap_us", Us(s.gap_time_ns));
    json.Field("total_us", Us(s.total_ns())).Field("launching_operator", s.launching_operator).EndObject();
  }
  json.EndArray();
}

}  // namespace

void WriteInsightsJson(JsonWriter& json, const PathInsights& insights) {
  WriteCriticalPath(json, insights.critical_path);
  WriteSequences(json, insights.kernel_sequences);
}

void WriteStragglersJson(JsonWriter& json, const StragglerReport& report) {
  json.Key("stragglers").BeginObject();
  json.Field("collectives_matched", report.collectives_matched);
  json.Field("collectives_unmatched", report.collectives_unmatched);
  json.Key("straggler_rank");
  if (report.straggler) {
    json.Int(report.ranks[*report.straggler].rank);
  } else {
    json.Null();
  }
  json.Field("since_step", report.since_step).Field("since_collective", report.since_collective);
  json.Field("others_mean_wait_us", Us(report.others_mean_wait_ns));
  json.Field("compute_vs_others_pct", report.compute_vs_others_pct);
  json.Field("evidence", report.evidence);
  json.Key("ranks").BeginArray();
  for (const RankFigures& f : report.ranks) {
    json.BeginObject().Field("rank", f.rank).Field("source", f.source).Field("steps", f.steps);
    json.Field("step_us", Us(f.step_ns)).Field("compute_us", Us(f.compute_ns)).Field("comm_us", Us(f.comm_ns));
    json.Field("comm_wait_us", Us(f.comm_wait_ns)).Field("last_arrivals", f.last_arrivals).EndObject();
  }
  json.EndArray();
  json.EndObject();
}

std::string RenderInsightsText(const PathInsights& insights) {
  std::string out;
  const CriticalPathReport& r = insights.critical_path;
  if (r.total_ns() > 0) {
    out += "Critical path (" + std::to_string(r.windows.size()) + " window(s), " + MsText(static_cast<double>(r.total_ns())) +
           " ms): most time in " + std::string(CriticalPathKindName(r.dominant())) + "\n";
    TextTable kinds({"kind", "bound by", "ms", "%"}, {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight});
    for (size_t k = 0; k < kCriticalPathKinds; ++k) {
      const auto kind = static_cast<CriticalPathKind>(k);
      if (r.by_kind[k] == 0) continue;
      kinds.AddRow({std::string(CriticalPathKindName(kind)), std::string(CriticalPathBoundBy(kind)),
                    MsText(static_cast<double>(r.by_kind[k])), PctText(r.pct(kind))});
    }
    out += kinds.Render();
    TextTable top({"on the path", "kind", "count", "ms"}, {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight});
    top.SetMaxWidth(0, 70);
    for (const CriticalPathItem& item : r.top)
      top.AddRow({item.name, std::string(CriticalPathKindName(item.kind)), std::to_string(item.count),
                  MsText(static_cast<double>(item.time_ns))});
    out += top.Render();
  }
  if (!insights.kernel_sequences.empty()) {
    out += "Frequent kernel sequences (fusion candidates):\n";
    TextTable seq({"sequence", "count", "kernel ms", "gap ms", "launched by"},
                  {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kLeft});
    seq.SetMaxWidth(0, 90);
    seq.SetMaxWidth(4, 30);
    for (const KernelSequence& s : insights.kernel_sequences) {
      std::string names;
      for (const std::string& k : s.kernels) {
        if (!names.empty()) names += " > ";
        names += k.substr(0, 40);
      }
      seq.AddRow({names, std::to_string(s.count), MsText(static_cast<double>(s.kernel_time_ns)),
                  MsText(static_cast<double>(s.gap_time_ns)), s.launching_operator});
    }
    out += seq.Render();
  }
  return out;
}

std::string RenderStragglersText(const StragglerReport& report) {
  if (report.ranks.empty()) return "";
  std::string out = "Stragglers across " + std::to_string(report.ranks.size()) + " ranks (" +
                    std::to_string(report.collectives_matched) + " collectives matched):\n";
  TextTable table({"rank", "step ms", "compute ms", "comm ms", "comm wait ms", "last arrivals"},
                  {Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight});
  for (const RankFigures& f : report.ranks)
    table.AddRow({std::to_string(f.rank), MsText(static_cast<double>(f.step_ns)), MsText(static_cast<double>(f.compute_ns)),
                  MsText(static_cast<double>(f.comm_ns)), MsText(static_cast<double>(f.comm_wait_ns)),
                  std::to_string(f.last_arrivals)});
  out += table.Render();
  out += report.straggler ? "Straggler: " + report.evidence + "\n" : "No rank stands out.\n";
  return out;
}

}  // namespace kraken
