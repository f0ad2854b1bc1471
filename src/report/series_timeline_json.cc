#include "report/series_timeline_json.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>

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
       {Metric::kFbUsedBytes, Metric::kAllocatorAllocatedBytes, Metric::kAllocatorReservedBytes,
        Metric::kCudaAllocatedBytes}},
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

// Above this many series of one metric in a panel, the panel draws their envelope instead
// (one mean line and the min/max over all of them per time bucket): 143 GenAI pods as 143
// lines of 600 points took the browser 14.8 s and showed nothing a reader could tell apart.
constexpr size_t kMaxLinesPerMetric = 16;

// One reduced line: per bucket its mean time, mean, min and max value.
struct Buckets {
  std::vector<double> t_s, mean, lo, hi;
  void Add(double t_sum, double v_sum, double v_min, double v_max, size_t n) {
    t_s.push_back(t_sum / static_cast<double>(n));
    mean.push_back(v_sum / static_cast<double>(n));
    lo.push_back(v_min);
    hi.push_back(v_max);
  }
};

// Bucket means over equal runs of samples: keeps the shape and the level of the series;
// min and max keep its spikes.
Buckets ReduceByCount(const Series& s, TimeNs start, double scale, size_t max_points) {
  Buckets out;
  const size_t n = s.samples.size();
  const size_t per_bucket = (n + max_points - 1) / max_points;
  for (size_t i = 0; i < n; i += per_bucket) {
    const size_t end = std::min(n, i + per_bucket);
    double t_sum = 0, v_sum = 0, v_min = std::numeric_limits<double>::infinity(), v_max = -v_min;
    for (size_t j = i; j < end; ++j) {
      double v = s.samples[j].value * scale;
      t_sum += static_cast<double>(s.samples[j].time_ns - start) / 1e9;
      v_sum += v;
      v_min = std::min(v_min, v);
      v_max = std::max(v_max, v);
    }
    out.Add(t_sum, v_sum, v_min, v_max, end - i);
  }
  return out;
}

// Many series on one time grid of `max_points` equal buckets: per bucket the mean over
// every sample of every series in it, and their min and max.
Buckets ReduceEnvelope(const std::vector<const Series*>& members, TimeNs start, double scale, size_t max_points) {
  TimeNs first = std::numeric_limits<TimeNs>::max(), last = std::numeric_limits<TimeNs>::min();
  for (const Series* s : members) {
    first = std::min(first, s->samples.front().time_ns);
    last = std::max(last, s->samples.back().time_ns);
  }
  const double width = std::max(1.0, static_cast<double>(last - first) / static_cast<double>(max_points));
  struct Acc {
    double t_sum = 0, v_sum = 0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
    size_t n = 0;
  };
  std::vector<Acc> acc(max_points);
  for (const Series* s : members)
    for (const Sample& sample : s->samples) {
      size_t b = std::min(max_points - 1, static_cast<size_t>(static_cast<double>(sample.time_ns - first) / width));
      double v = sample.value * scale;
      Acc& a = acc[b];
      a.t_sum += static_cast<double>(sample.time_ns - start) / 1e9;
      a.v_sum += v;
      a.lo = std::min(a.lo, v);
      a.hi = std::max(a.hi, v);
      ++a.n;
    }
  Buckets out;
  for (const Acc& a : acc)
    if (a.n > 0) out.Add(a.t_sum, a.v_sum, a.lo, a.hi, a.n);
  return out;
}

void WriteNumbers(JsonWriter& json, std::string_view key, const std::vector<double>& values) {
  json.Key(key).BeginArray();
  for (double x : values) json.Number(x);
  json.EndArray();
}

void WriteLine(JsonWriter& json, const std::string& name, Metric metric, uint64_t samples, size_t series_count,
               bool unix_clock, const Buckets& b) {
  json.BeginObject().Field("name", name).Field("metric", GetMetricInfo(metric).name);
  json.Field("samples", samples).Field("series_count", static_cast<uint64_t>(series_count));
  json.Field("clock", unix_clock ? "unix" : "relative");
  WriteNumbers(json, "t_s", b.t_s);
  WriteNumbers(json, "v", b.mean);
  WriteNumbers(json, "min", b.lo);
  WriteNumbers(json, "max", b.hi);
  json.EndObject();
}

// The panel's lines: each series reduced on its own, or, for a metric with more than
// kMaxLinesPerMetric series on one clock, their envelope as one line.
void WritePanelSeries(JsonWriter& json, const PanelSpec& panel, const std::vector<const Series*>& members,
                      TimeNs unix_start, TimeNs relative_start, size_t max_points) {
  std::map<std::pair<Metric, bool>, std::vector<const Series*>> groups;
  for (const Series* s : members) groups[{s->metric, OnUnixClock(*s)}].push_back(s);
  for (const Series* s : members) {
    const bool unix_clock = OnUnixClock(*s);
    const std::vector<const Series*>& group = groups[{s->metric, unix_clock}];
    const TimeNs start = unix_clock ? unix_start : relative_start;
    if (group.size() <= kMaxLinesPerMetric) {
      WriteLine(json, SeriesName(*s), s->metric, s->samples.size(), 1, unix_clock,
                ReduceByCount(*s, start, panel.scale, max_points));
      continue;
    }
    if (group.front() != s) continue;  // the envelope is written once, at its first member
    uint64_t samples = 0;
    for (const Series* m : group) samples += m->samples.size();
    std::string name = std::to_string(group.size()) + " series " + std::string(GetMetricInfo(s->metric).name) +
                       (s->source_name.empty() ? "" : " (" + s->source_name + ")") + ": mean, min, max";
    WriteLine(json, name, s->metric, samples, group.size(), unix_clock,
              ReduceEnvelope(group, start, panel.scale, max_points));
  }
}

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
    WritePanelSeries(json, panel, members, unix_start, relative_start, max_points);
    json.EndArray().EndObject();
  }
  json.EndArray().EndObject();
  return json.Take();
}

}  // namespace kraken
