#include "profiling/trial_output.h"

#include <signal.h>

#include <cstdio>

#include "base/json_writer.h"
#include "base/text.h"
#include "base/text_table.h"

namespace kraken::profiling {
namespace {

std::string Num(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  return buffer;
}

std::string ExitText(const TrialExit& exit) {
  std::string text = exit.state;
  if (exit.state == "stopped" && !exit.stop_signal.empty()) {
    text += " (";
    text += exit.stop_signal;
    text += ')';
  }
  if (exit.state == "exited" && exit.exit_code) {
    text += ' ';
    text += std::to_string(*exit.exit_code);
  }
  if (exit.during_warmup) text += " in warmup";
  return text;
}

std::string ThroughputText(const TrialResult& r) {
  if (!r.throughput) return "not measured";
  if (r.throughput->readings == 0) return "no reading";
  return Num(r.throughput->median) + " (n=" + std::to_string(r.throughput->readings) + ")";
}

std::string UtilText(const TrialResult& r) {
  if (!r.sampled) return "not sampled";
  if (!r.gpu.util_p50_pct) return "unknown";
  return Num(*r.gpu.util_p50_pct) + " / " + Num(*r.gpu.util_p95_pct) + " % (" + r.gpu.util_basis + ")";
}

std::string SignalName(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(signal);
}


std::string CommaJoined(const std::set<int32_t>& ids) {
  std::string joined;
  for (int32_t id : ids) {
    if (!joined.empty()) joined += ',';
    joined += std::to_string(id);
  }
  return joined;
}

// The command, the trial's settings, where throughput comes from, the candidates left
// out and whether a signal cut the trial short.
std::string TrialHeaderText(const TrialReport& report) {
  std::string out;
  std::string what;
  for (const std::string& a : report.command) what += (what.empty() ? "" : " ") + a;
  out += "kraken trial: " + what + "\n";
  out += "  candidates: " + std::to_string(report.results.size()) + " run (" + report.candidates_spec + "), warmup " +
         Num(report.warmup_s) + " s, duration " + Num(report.duration_s) + " s, sampled every " +
         Num(report.interval_s) + " s\n";
  out += "  throughput: " + ThroughputSourceText(report) + "\n";
  for (const std::string& why : report.left_out) out += "  left out:   " + why + "\n";
  if (report.stop_signal != 0)
    out += "  interrupted: " + SignalName(report.stop_signal) + "; " + std::to_string(report.candidates_not_run) +
           " candidate(s) not run\n";
  return out;
}

std::string CandidateResultsTable(const TrialReport& report) {
  TextTable table({"#", "candidate", "device", "MIG", "GPU fraction", "exit", "throughput (median)", "util p50 / p95",
                   "memory peak"},
                  {TextTable::Align::kRight, TextTable::Align::kLeft, TextTable::Align::kLeft, TextTable::Align::kLeft,
                   TextTable::Align::kRight, TextTable::Align::kLeft, TextTable::Align::kRight,
                   TextTable::Align::kRight, TextTable::Align::kRight});
  for (size_t i = 0; i < report.results.size(); ++i) {
    const TrialResult& r = report.results[i];
    const TrialCandidate& c = r.candidate;
    std::string fraction = c.gpu_fraction ? Num(*c.gpu_fraction) : "unknown";
    table.AddRow({std::to_string(i + 1), c.uuid, "gpu " + std::to_string(c.gpu_index) + " " + c.device_name,
                  c.mig_profile.empty() ? "-" : c.mig_profile + " (GI " + std::to_string(c.gpu_instance_id) + ")",
                  fraction, ExitText(r.exit), ThroughputText(r), UtilText(r),
                  r.sampled ? FormatBytes(r.gpu.memory_peak_bytes) : "-"});
  }
  return table.Render();
}

// Notes on where a candidate's workload ran when that was not (only) where it was put:
// no process seen at all, other GPUs, or other MIG instances.
std::string PlacementNotesText(const TrialReport& report) {
  std::string out;
  for (size_t i = 0; i < report.results.size(); ++i) {
    const TrialResult& r = report.results[i];
    std::string candidate = "  note: candidate " + std::to_string(i + 1);
    if (r.sampled && r.gpu.passes_present == 0)
      out += candidate + ": no process of the workload appeared in NVML's process list on GPU " +
             std::to_string(r.candidate.gpu_index) +
             ": its memory and SM figures are 0 by absence (it did not use the device, or runs in another pid "
             "namespace)\n";
    const std::set<int32_t>& gpus = r.gpu.gpus_seen;
    if (gpus.size() > 1 || (gpus.size() == 1 && *gpus.begin() != r.candidate.gpu_index)) {
      out += candidate + ": the workload's processes appeared on GPUs " + CommaJoined(gpus) + ", not only on GPU " +
             std::to_string(r.candidate.gpu_index) + "\n";
    }
    // The tree was seen in another MIG instance than the one it was given: CUDA_VISIBLE_DEVICES
    // did not take (or the workload picks its device itself). Said, never hidden.
    if (!r.candidate.mig_profile.empty() && !r.gpu.gpu_instances_seen.empty() &&
        (r.gpu.gpu_instances_seen.size() > 1 || *r.gpu.gpu_instances_seen.begin() != r.candidate.gpu_instance_id)) {
      out += candidate + ": ran in GPU instance " + CommaJoined(r.gpu.gpu_instances_seen) +
             ", not only in its own GPU instance " + std::to_string(r.candidate.gpu_instance_id) + "\n";
    }
  }
  return out;
}

std::string RankingText(const TrialReport& report) {
  std::string out = "  ranking by throughput per GPU fraction (the device catalog has no prices: no per-$ ranking):\n";
  if (report.ranking.ranked.empty()) out += "    none ranked\n";
  for (const RankedCandidate& k : report.ranking.ranked) {
    const TrialResult& r = report.results[k.result];
    out += "    " + std::to_string(k.rank) + ". " + r.candidate.uuid + "  " + Num(k.throughput_per_gpu_fraction) +
           " per GPU (" + Num(r.throughput->median) + " on " + Num(*r.candidate.gpu_fraction) + " GPU), " +
           Num(k.relative_to_best) + " x best\n";
  }
  for (const UnrankedCandidate& u : report.ranking.unranked)
    out += "    unranked: " + report.results[u.result].candidate.uuid + ": " + u.reason + "\n";
  return out;
}

// Where the candidates' profiles were stored, when they were.
std::string StoredProfilesText(const TrialReport& report) {
  if (report.stored_db.empty()) return "";
  std::string ids;
  for (const TrialResult& r : report.results)
    if (r.profile_id > 0) {
      if (!ids.empty()) ids += ", ";
      ids += std::to_string(r.profile_id);
    }
  return "  stored:     profiles " + (ids.empty() ? std::string("none") : ids) + " in " + report.stored_db +
         " (trial.id " + report.trial_id + ")\n";
}

// The command, the trial's settings, the throughput source and what was not run.
void WriteTrialSetup(JsonWriter& json, const TrialReport& report) {
  json.Key("command").BeginArray();
  for (const std::string& a : report.command) json.String(a);
  json.EndArray();
  json.Field("candidates_spec", report.candidates_spec);
  json.Key("warmup_s").ExactNumber(report.warmup_s).Key("duration_s").ExactNumber(report.duration_s);
  json.Key("interval_s").ExactNumber(report.interval_s);
  json.Key("throughput_source").BeginObject();
  json.Field("kind", !report.throughput_regex.empty() ? "regex" : !report.throughput_file.empty() ? "file" : "none");
  json.Key("regex");
  report.throughput_regex.empty() ? json.Null() : json.String(report.throughput_regex);
  json.Key("file");
  report.throughput_file.empty() ? json.Null() : json.String(report.throughput_file);
  json.Field("description", ThroughputSourceText(report)).EndObject();
  json.Key("interrupted_by");
  report.stop_signal != 0 ? json.String(SignalName(report.stop_signal)) : json.Null();
  json.Field("candidates_not_run", static_cast<int64_t>(report.candidates_not_run));
  json.Key("candidates_left_out").BeginArray();
  for (const std::string& why : report.left_out) json.String(why);
  json.EndArray();
}

// Which device (or MIG instance) the candidate is, and the share of a GPU it counts as.
void WriteCandidatePlacement(JsonWriter& json, const TrialCandidate& c) {
  json.Field("uuid", c.uuid).Field("cuda_visible_devices", c.uuid);
  json.Field("gpu_index", static_cast<int64_t>(c.gpu_index)).Field("device_name", c.device_name);
  json.Key("catalog_id");
  c.catalog_id.empty() ? json.Null() : json.String(c.catalog_id);
  json.Key("mig_profile");
  c.mig_profile.empty() ? json.Null() : json.String(c.mig_profile);
  json.Key("gpu_instance_id");
  c.gpu_instance_id >= 0 ? json.Int(c.gpu_instance_id) : json.Null();
  json.Key("compute_instance_id");
  c.compute_instance_id >= 0 ? json.Int(c.compute_instance_id) : json.Null();
  json.Key("gpu_fraction");
  c.gpu_fraction ? json.ExactNumber(*c.gpu_fraction) : json.Null();
  json.Field("fraction_basis", c.fraction_basis);
}

// How the run ended and its throughput readings (null when none was asked for; each
// figure null when nothing was read).
void WriteExitAndThroughput(JsonWriter& json, const TrialResult& r) {
  json.Key("exit").BeginObject().Field("state", r.exit.state);
  json.Key("exit_code");
  r.exit.exit_code ? json.Int(*r.exit.exit_code) : json.Null();
  json.Key("stop_signal");
  r.exit.stop_signal.empty() ? json.Null() : json.String(r.exit.stop_signal);
  json.Field("during_warmup", r.exit.during_warmup).Field("interrupted", r.interrupted).EndObject();
  json.Key("throughput");
  if (!r.throughput) {
    json.Null();
    return;
  }
  const ThroughputFigures& t = *r.throughput;
  json.BeginObject().Field("readings", t.readings).Field("warmup_readings_ignored", t.warmup_readings);
  json.Field("unparsable", t.unparsable);
  for (auto [key, value] : {std::pair{"median", t.median}, {"last", t.last}, {"min", t.min}, {"max", t.max}}) {
    json.Key(key);
    t.readings > 0 ? json.ExactNumber(value) : json.Null();
  }
  json.EndObject();
}

// What sampling the GPU saw while the candidate ran.
void WriteSampledGpuFigures(JsonWriter& json, const TrialResult& r) {
  json.Field("sampled", r.sampled);
  json.Field("sampling_stop", r.sampled ? StopReasonName(r.sampling_stop) : "not sampled");
  json.Field("passes", r.gpu.passes).Field("passes_present", r.gpu.passes_present);
  json.Key("util_pct");
  if (r.gpu.util_p50_pct) {
    json.BeginObject().Field("basis", r.gpu.util_basis).Key("p50").ExactNumber(*r.gpu.util_p50_pct);
    json.Key("p95").ExactNumber(*r.gpu.util_p95_pct).EndObject();
  } else {
    json.Null();
  }
  json.Key("memory_peak_bytes").ExactNumber(r.gpu.memory_peak_bytes);
  json.Key("gpu_instances_seen").BeginArray();
  for (int32_t gi : r.gpu.gpu_instances_seen) json.Int(gi);
  json.EndArray();
  json.Key("gpus_seen").BeginArray();
  for (int32_t g : r.gpu.gpus_seen) json.Int(g);
  json.EndArray();
}

void WriteTrialRanking(JsonWriter& json, const TrialReport& report) {
  json.Key("ranking").BeginObject().Field("by", "throughput per GPU fraction");
  json.Field("per_dollar", "not ranked: the device catalog has no prices");
  json.Key("ranked").BeginArray();
  for (const RankedCandidate& k : report.ranking.ranked) {
    json.BeginObject().Field("rank", static_cast<int64_t>(k.rank));
    json.Field("uuid", report.results[k.result].candidate.uuid);
    json.Key("throughput_per_gpu_fraction").ExactNumber(k.throughput_per_gpu_fraction);
    json.Key("relative_to_best").ExactNumber(k.relative_to_best).EndObject();
  }
  json.EndArray();
  json.Key("unranked").BeginArray();
  for (const UnrankedCandidate& u : report.ranking.unranked)
    json.BeginObject().Field("uuid", report.results[u.result].candidate.uuid).Field("reason", u.reason).EndObject();
  json.EndArray();
  json.EndObject();
}

}  // namespace

std::string ThroughputSourceText(const TrialReport& report) {
  if (!report.throughput_regex.empty())
    return "first capture group of '" + report.throughput_regex + "' in the workload's output, after the warmup";
  if (!report.throughput_file.empty())
    return "the number in " + report.throughput_file + ", written after the warmup";
  return "not measured (no --throughput-regex or --throughput-file): GPU-side facts only";
}

std::string RenderTrialText(const TrialReport& report) {
  std::string out = TrialHeaderText(report);
  out += '\n';
  out += CandidateResultsTable(report);
  out += '\n';
  out += PlacementNotesText(report);
  out += RankingText(report);
  out += StoredProfilesText(report);
  return out;
}

std::string RenderTrialJson(const TrialReport& report) {
  JsonWriter json;
  json.BeginObject().Field("trial_id", report.trial_id);
  WriteTrialSetup(json, report);
  json.Key("candidates").BeginArray();
  for (const TrialResult& r : report.results) {
    json.BeginObject();
    WriteCandidatePlacement(json, r.candidate);
    WriteExitAndThroughput(json, r);
    WriteSampledGpuFigures(json, r);
    json.Key("profile_id");
    r.profile_id > 0 ? json.Int(r.profile_id) : json.Null();
    json.EndObject();
  }
  json.EndArray();
  WriteTrialRanking(json, report);
  json.Key("stored_db");
  report.stored_db.empty() ? json.Null() : json.String(report.stored_db);
  json.EndObject();
  return json.Take() + "\n";
}

std::map<std::string, std::string> TrialAnnotations(const TrialReport& report) {
  JsonWriter json;
  json.BeginArray();
  for (size_t i = 0; i < report.results.size(); ++i) {
    const TrialResult& r = report.results[i];
    const TrialCandidate& c = r.candidate;
    json.BeginObject().Field("candidate", c.uuid).Field("device", c.device_name);
    json.Key("mig_profile");
    c.mig_profile.empty() ? json.Null() : json.String(c.mig_profile);
    json.Key("gpu_fraction");
    c.gpu_fraction ? json.ExactNumber(*c.gpu_fraction) : json.Null();
    bool measured = r.throughput && r.throughput->readings > 0;
    json.Key("throughput_median");
    measured ? json.ExactNumber(r.throughput->median) : json.Null();
    json.Field("readings", r.throughput ? r.throughput->readings : int64_t{0});
    const RankedCandidate* ranked = nullptr;
    for (const RankedCandidate& k : report.ranking.ranked)
      if (k.result == i) ranked = &k;
    json.Key("per_gpu_fraction");
    ranked ? json.ExactNumber(ranked->throughput_per_gpu_fraction) : json.Null();
    json.Key("rank");
    ranked ? json.Int(ranked->rank) : json.Null();
    json.EndObject();
  }
  json.EndArray();
  return {{"kraken.io/trial-id", report.trial_id}, {"kraken.io/trial-throughput", json.Take()}};
}

}  // namespace kraken::profiling
