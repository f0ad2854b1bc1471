#include "report/series_timeline_json.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "base/json_writer.h"

namespace kraken {
namespace {

struct PanelSpec {
  const char* id;
  const char* title;
  const char* unit;
  double scale;  // multiplies the stored value into `unit`
  std::vector<Metric> metrics;
};

constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

const std::vector<PanelSpec>& Panels() {
  static const std::vector<PanelSpec> kPanels = {
      {"utilization", "GPU utilization", "%", 1.0, {Metric::kGpuUtilPct, Metric::kMemCopyUtilPct}},
      {"sm_activity", "SM activity", "ratio", 1.0, {Metric::kSmActiveRatio, Metric::kSmOccupancyRatio}},
      {"memory", "Memory used", "GiB", 1.0 / kBytesPerGiB,
       {Metric::kFbUsedBytes, Metric::kAllocatorAllocatedBytes, Metric::kAllocatorReservedBytes}},
      {"power", "Power", "W", 1.0, {Metric::kPowerW}},
      {"pcie", "PCIe throughput", "MB/s", 1e-6, {Metric::kPcieTxBytesPerS, Metric::kPcieRxBytesPerS}},
  };
  return kPanels;
}

// "GPU 0 (NVIDIA H100 80GB HBM3) gpu_util_pct": enough to tell series of one panel apart.
std::string SeriesName(const Series& series) {
  std::string name;
  const SeriesEntity& e = series.entity;
  if (!e.hostname.empty()) name += e.hostname + " ";
  if (!e.mig_profile.empty()) name += e.mig_profile + " ";
  if (e.gpu_index >= 0) name += "GPU " + std::to_string(e.gpu_index);
  if (e.gpu_instance_id >= 0) name += " MIG " + std::to_string(e.gpu_instance_id);
  if (e.pid >= 0) name += " pid " + std::to_string(e.pid);
  if (!name.empty()) name += " ";
  name += std::string(GetMetricInfo(series.metric).name);
  // Several sections of one capture can sample the same metric (query CSV, dmon, -q).
  if (!series.source_name.empty()) name += " (" + series.source_name + ")";
  return name;
}

bool Plottable(const Series& s) { return s.axis == SampleAxis::kTimeNs && !s.samples.empty(); }

// Samplers with a wall clock stamp Unix-epoch times; a few sections have none (nvidia-smi
// dmon without -o T: seconds from the section's start). The two cannot share one zero, so
// each family is drawn from its own earliest sample. 1e17 ns is 1973.
constexpr TimeNs kEpochFloorNs = 100'000'000'000'000'000;
bool OnUnixClock(const Series& s) { return s.samples.front().time_ns >= kEpochFloorNs; }

}  // namespace

std::string RenderSeriesTimelineJson(const std::vector<Profile>& profiles, size_t max_points) {
  max_points = std::max<size_t>(max_points, 2);
  constexpr TimeNs kNone = std::numeric_limits<TimeNs>::max();
  TimeNs unix_start = kNone, relative_start = kNone;
  for (const Profile& p : profiles)
    for (const Series& s : p.series) {
      if (!Plottable(s)) continue;
      TimeNs& start = OnUnixClock(s) ? unix_start : relative_start;
      start = std::min(start, s.samples.front().time_ns);
    }

  JsonWriter json(false);
  json.BeginObject();
  if (unix_start == kNone) {
    json.Key("start_unix_s").Null();
  } else {
    json.Field("start_unix_s", static_cast<double>(unix_start) / 1e9);
  }
  json.Key("panels").BeginArray();
  for (const PanelSpec& panel : Panels()) {
    std::vector<const Series*> members;
    for (const Profile& p : profiles)
      for (const Series& s : p.series)
        if (Plottable(s) && std::find(panel.metrics.begin(), panel.metrics.end(), s.metric) != panel.metrics.end())
          members.push_back(&s);
    if (members.empty()) continue;
    json.BeginObject().Field("id", panel.id).Field("title", panel.title).Field("unit", panel.unit);
    json.Key("series").BeginArray();
    for (const Series* s : members) {
      json.BeginObject().Field("name", SeriesName(*s)).Field("metric", GetMetricInfo(s->metric).name);
      json.Field("samples", static_cast<uint64_t>(s->samples.size()));
      const bool unix_clock = OnUnixClock(*s);
      const TimeNs start = unix_clock ? unix_start : relative_start;
      json.Field("clock", unix_clock ? "unix" : "relative");
      // Bucket means over equal runs of samples: keeps the shape and the level of the series.
      const size_t n = s->samples.size();
      const size_t per_bucket = (n + max_points - 1) / max_points;
      std::vector<double> t_s, v;
      for (size_t i = 0; i < n; i += per_bucket) {
        const size_t end = std::min(n, i + per_bucket);
        double t_sum = 0, v_sum = 0;
        for (size_t j = i; j < end; ++j) {
          t_sum += static_cast<double>(s->samples[j].time_ns - start) / 1e9;
          v_sum += s->samples[j].value * panel.scale;
        }
        t_s.push_back(t_sum / static_cast<double>(end - i));
        v.push_back(v_sum / static_cast<double>(end - i));
      }
      json.Key("t_s").BeginArray();
      for (double t : t_s) json.Number(t);
      json.EndArray().Key("v").BeginArray();
      for (double x : v) json.Number(x);
      json.EndArray().EndObject();
    }
    json.EndArray().EndObject();
  }
  json.EndArray().EndObject();
  return json.Take();
}

}  // namespace kraken
