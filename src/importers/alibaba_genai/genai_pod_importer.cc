// Importer for the per-pod metric series of Alibaba's GenAI serving trace
// (alibaba/clusterdata cluster-trace-v2026-GenAI, Stable-Diffusion serving):
//
//   value,timestamp_anon,container_ip                   pod_gpu_duty_cycle_anon, pod_memory_util_anon
//   timestamp_anon,value,container_ip                   pod_gpu_memory_used_bytes_anon
//   timestamp_anon,value,container_ip,request_type      qps
//
// Long format: one row per (timestamp, pod), rows of all pods interleaved; one Series per
// pod (and request type for QPS). Timestamps are Unix seconds shifted by the publisher, so
// they are consistent with each other but say nothing about the real time of day.
// container_ip is an MD5 of the pod's IP and is kept as SeriesEntity::pod.
//
// Two files share the first header, so which metric `value` is can only come from the
// file name the publisher gave it (duty cycle -> kGpuUtilPct in %, memory_util -> the
// container's host-memory utilization ratio). A file named otherwise gets Metric::kOther
// "value" rather than a guess.
#include <cmath>
#include <string>
#include <vector>

#include "base/text.h"
#include "importers/builtin_importers.h"
#include "importers/common/civil_time.h"
#include "importers/common/series_collector.h"
#include "importers/common/line_reader.h"

namespace kraken {
namespace {

constexpr std::string_view kValueFirstHeader = "value,timestamp_anon,container_ip";
constexpr std::string_view kTimeFirstHeader = "timestamp_anon,value,container_ip";
constexpr std::string_view kQpsHeader = "timestamp_anon,value,container_ip,request_type";

std::string_view StripLineEnd(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

std::string_view FirstLine(std::string_view head) {
  if (StartsWith(head, "\xEF\xBB\xBF")) head.remove_prefix(3);
  return StripLineEnd(head.substr(0, head.find('\n')));
}

struct Layout {
  size_t value_column = 0;
  size_t time_column = 1;
  size_t pod_column = 2;
  size_t request_type_column = 0;  // 0 = none (column 0 is never the request type)
  size_t columns = 3;
};

std::optional<Layout> LayoutOf(std::string_view header) {
  if (header == kValueFirstHeader) return Layout{0, 1, 2, 0, 3};
  if (header == kTimeFirstHeader) return Layout{1, 0, 2, 0, 3};
  if (header == kQpsHeader) return Layout{1, 0, 2, 3, 4};
  return std::nullopt;
}

// What `value` means, from the header and the publisher's file name.
Series PrototypeFor(std::string_view header, std::string_view display_name) {
  Series s;
  std::string_view base = BaseName(display_name);
  if (header == kQpsHeader) {
    s.source_name = "qps";
    s.entity.labels["unit"] = "requests/s";
  } else if (base.find("gpu_duty_cycle") != std::string_view::npos) {
    s.metric = Metric::kGpuUtilPct;  // GPU duty cycle = share of time a kernel ran, in %
    s.source_name = "pod_gpu_duty_cycle";
  } else if (base.find("gpu_memory_used_bytes") != std::string_view::npos) {
    s.metric = Metric::kFbUsedBytes;
    s.source_name = "pod_gpu_memory_used_bytes";
  } else if (base.find("memory_util") != std::string_view::npos) {
    s.source_name = "pod_memory_util";  // container (host) memory, 0..1
    s.entity.labels["unit"] = "ratio";
  } else {
    s.source_name = "value";
    s.entity.labels["unit"] = "unknown (file name does not say which metric)";
  }
  return s;
}

class GenAiPodImporter final : public Importer {
 public:
  const ImporterDescriptor& descriptor() const override {
    static const ImporterDescriptor kDescriptor{
        "alibaba-genai-pod",
        "Alibaba GenAI serving trace (2026): per-pod GPU duty cycle, GPU memory, memory utilization, QPS",
        "pod_gpu_duty_cycle_anon.csv, pod_gpu_memory_used_bytes_anon.csv, pod_memory_util_anon.csv, qps.csv "
        "(.gz too)"};
    return kDescriptor;
  }

  SniffResult Sniff(std::string_view head) const override {
    return LayoutOf(FirstLine(head)) ? SniffResult::kYes : SniffResult::kNo;
  }

  Status Import(ImportInput& input, ProfileSink& sink) const override {
    prometheus::LineReader reader(*input.stream, input.progress);
    std::string_view line;
    KRAKEN_ASSIGN_OR_RETURN(bool any, reader.Next(&line));
    if (!any) return InvalidInput("line 1: empty file");
    if (StartsWith(line, "\xEF\xBB\xBF")) line.remove_prefix(3);
    std::string header(StripLineEnd(line));
    std::optional<Layout> layout = LayoutOf(header);
    if (!layout) return InvalidInput("line 1: not an Alibaba GenAI per-pod header");
    const Series prototype = PrototypeFor(header, input.display_name);

    SeriesCollector collector;
    int64_t rows = 0, bad_rows = 0;
    bool last_row_bad = false;
    std::vector<std::string_view> fields;
    std::string key;
    while (true) {
      KRAKEN_ASSIGN_OR_RETURN(bool more, reader.Next(&line));
      if (!more) break;
      line = StripLineEnd(line);
      if (Trim(line).empty()) continue;
      fields = Split(line, ',');
      last_row_bad = true;
      if (fields.size() != layout->columns || reader.overlong()) {
        ++bad_rows;
        continue;
      }
      std::optional<int64_t> time_ns = ParseUnixSecondsNs(fields[layout->time_column]);
      std::optional<double> value = ParseDouble(fields[layout->value_column]);
      if (!time_ns || !value || !std::isfinite(*value)) {
        ++bad_rows;
        continue;
      }
      last_row_bad = false;
      ++rows;
      std::string_view pod = Trim(fields[layout->pod_column]);
      std::string_view request_type =
          layout->request_type_column == 0 ? std::string_view() : Trim(fields[layout->request_type_column]);
      key.assign(pod);
      key += '\n';
      key += request_type;
      Series& s = collector.Get(key, prototype);
      if (s.samples.empty()) {
        s.entity.pod = std::string(pod);
        if (!request_type.empty()) s.entity.labels["request_type"] = std::string(request_type);
        if (pod.empty()) s.entity.labels["attribution"] = "no container_ip";
      }
      s.samples.push_back(Sample{*time_ns, *value});
    }
    KRAKEN_RETURN_IF_ERROR(reader.CheckLastRowComplete(last_row_bad));
    if (rows == 0) return InvalidInput("line 2: GenAI per-pod header but no valid rows");

    Profile profile;
    profile.series = collector.Finish("genai", &profile.import_counters);
    profile.import_counters["genai_rows"] = rows;
    if (bad_rows > 0) profile.import_counters["genai_bad_rows"] = bad_rows;
    profile.metadata.attributes["clock"] = "Unix seconds shifted by the publisher (anonymized)";
    sink.AddProfile(input, descriptor().name, std::move(profile));
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Importer> CreateGenAiPodImporter() { return std::make_unique<GenAiPodImporter>(); }

}  // namespace kraken
