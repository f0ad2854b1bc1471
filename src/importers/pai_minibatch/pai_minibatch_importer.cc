// Importer for the mini-batch-time series of Alibaba PAI (alibaba/clusterdata
// cluster-trace-gpu-v2020/mini-batch-time), written by pandas with its index column:
//
//   job_<n>_norm.csv            ,worker,gpu,time,batch_time_norm      one row per worker and iteration
//   coefficient_variation.csv   ,0,1,2,...,1999                        one row per job, one column per iteration
//
// Both are series over training ITERATIONS, not over time: `time` counts iterations (1, 11,
// 21, ...) and the CoV columns are iteration numbers. There is no clock, so every Series
// has axis = SampleAxis::kIteration and time_ns holds the iteration number.
//   batch_time_norm: a worker's mini-batch time, normalized by the publisher to 0..1000.
//   gpu: the worker's GPU request in % of one GPU.
//   CoV: std/mean of the mini-batch time over the job's 10 workers, per iteration.
#include <cmath>
#include <string>
#include <vector>

#include "base/text.h"
#include "importers/builtin_importers.h"
#include "importers/common/series_collector.h"
#include "importers/common/line_reader.h"

namespace kraken {
namespace {

constexpr std::string_view kWorkerHeader = ",worker,gpu,time,batch_time_norm";

std::string_view StripLineEnd(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// The CoV header is ",0,1,2,...": pandas' column names of a wide table. It is 9 KB long,
// so the sniffer sees only its start; consecutive integers from 0 on are required.
bool LooksLikeIterationColumns(std::string_view head, size_t min_columns) {
  if (!StartsWith(head, ",0,1,2,")) return false;
  std::string_view line = head.substr(0, head.find('\n'));
  std::vector<std::string_view> names = Split(line.substr(1), ',');
  // The last name may be cut by the sniff window: ignore it unless the line ended.
  size_t complete = line.size() < head.size() ? names.size() : names.size() - 1;
  if (complete < min_columns) return false;
  for (size_t i = 0; i < complete; ++i) {
    auto n = ParseInt64(StripLineEnd(names[i]));
    if (!n || *n != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// "path/job_1_norm.csv.gz" -> "job_1"; empty when the name is not the publisher's.
std::string JobFromFileName(std::string_view display_name) {
  std::string_view base = BaseName(display_name);
  size_t at = base.find("_norm");
  if (!StartsWith(base, "job_") || at == std::string_view::npos) return "";
  return std::string(base.substr(0, at));
}

Status ImportWorkerRows(prometheus::LineReader& reader, const std::string& job, Profile* profile) {
  SeriesCollector collector;
  Series prototype;
  prototype.axis = SampleAxis::kIteration;
  prototype.source_name = "batch_time_norm";
  prototype.entity.labels["unit"] = "normalized mini-batch time (0..1000)";
  if (!job.empty()) prototype.entity.labels["job"] = job;
  int64_t rows = 0, bad_rows = 0;
  bool last_row_bad = false;
  std::string_view line;
  while (true) {
    KRAKEN_ASSIGN_OR_RETURN(bool more, reader.Next(&line));
    if (!more) break;
    line = StripLineEnd(line);
    if (Trim(line).empty()) continue;
    std::vector<std::string_view> f = Split(line, ',');
    std::optional<int64_t> worker, gpu, iteration;
    std::optional<double> value;
    if (f.size() == 5 && !reader.overlong()) {
      worker = ParseInt64(f[1]);
      gpu = ParseInt64(f[2]);
      iteration = ParseInt64(f[3]);
      value = ParseDouble(f[4]);
    }
    last_row_bad = !worker || !gpu || !iteration || *iteration < 0 || !value || !std::isfinite(*value);
    if (last_row_bad) {
      ++bad_rows;
      continue;
    }
    ++rows;
    Series& s = collector.Get(std::to_string(*worker), prototype);
    if (s.samples.empty()) {
      s.entity.labels["worker"] = std::to_string(*worker);
      s.entity.labels["gpu_request_pct"] = std::to_string(*gpu);
    }
    s.samples.push_back(Sample{*iteration, *value});
  }
  KRAKEN_RETURN_IF_ERROR(reader.CheckLastRowComplete(last_row_bad));
  if (rows == 0) return InvalidInput("line 2: mini-batch-time header but no valid rows");
  profile->series = collector.Finish("pai_minibatch", &profile->import_counters);
  profile->import_counters["pai_minibatch_rows"] = rows;
  if (bad_rows > 0) profile->import_counters["pai_minibatch_bad_rows"] = bad_rows;
  return Status::Ok();
}

Status ImportCovRows(prometheus::LineReader& reader, std::string_view header, Profile* profile) {
  std::vector<int64_t> iterations;
  std::vector<std::string_view> names = Split(header, ',');
  for (size_t i = 1; i < names.size(); ++i) {
    auto n = ParseInt64(names[i]);
    if (!n || *n < 0) return InvalidInput("line 1: column " + std::to_string(i + 1) + " is not an iteration number");
    iterations.push_back(*n);
  }
  int64_t rows = 0, bad_rows = 0, bad_values = 0;
  bool last_row_bad = false;
  std::string_view line;
  while (true) {
    KRAKEN_ASSIGN_OR_RETURN(bool more, reader.Next(&line));
    if (!more) break;
    line = StripLineEnd(line);
    if (Trim(line).empty()) continue;
    std::vector<std::string_view> f = Split(line, ',');
    last_row_bad = f.size() != iterations.size() + 1 || Trim(f[0]).empty() || reader.overlong();
    if (last_row_bad) {
      ++bad_rows;
      continue;
    }
    ++rows;
    Series& s = profile->series.emplace_back();
    s.axis = SampleAxis::kIteration;
    s.source_name = "minibatch_time_cov";
    s.entity.labels["job"] = std::string(Trim(f[0]));
    s.entity.labels["unit"] = "coefficient of variation over the job's workers";
    s.samples.reserve(iterations.size());
    for (size_t i = 1; i < f.size(); ++i) {
      // Jobs shorter than the widest one leave their last columns empty.
      if (Trim(f[i]).empty()) continue;
      auto v = ParseDouble(f[i]);
      if (!v || !std::isfinite(*v)) {
        ++bad_values;
        continue;
      }
      s.samples.push_back(Sample{iterations[i - 1], *v});
    }
  }
  KRAKEN_RETURN_IF_ERROR(reader.CheckLastRowComplete(last_row_bad));
  if (rows == 0) return InvalidInput("line 2: iteration-column header but no valid rows");
  profile->import_counters["pai_minibatch_rows"] = rows;
  if (bad_rows > 0) profile->import_counters["pai_minibatch_bad_rows"] = bad_rows;
  if (bad_values > 0) profile->import_counters["pai_minibatch_unparsable_values"] = bad_values;
  return Status::Ok();
}

class PaiMinibatchImporter final : public Importer {
 public:
  const ImporterDescriptor& descriptor() const override {
    static const ImporterDescriptor kDescriptor{
        "pai-minibatch", "Alibaba PAI 2020 mini-batch time per worker and iteration, and its CoV per job",
        "job_<n>_norm.csv, coefficient_variation.csv (.gz too)"};
    return kDescriptor;
  }

  SniffResult Sniff(std::string_view head) const override {
    std::string_view first = StripLineEnd(head.substr(0, head.find('\n')));
    if (first == kWorkerHeader) return SniffResult::kYes;
    // Any pandas table with numbered columns starts like this: a likely match, not a sure one.
    return LooksLikeIterationColumns(head, 16) ? SniffResult::kMaybe : SniffResult::kNo;
  }

  Status Import(ImportInput& input, ProfileSink& sink) const override {
    prometheus::LineReader reader(*input.stream, input.progress);
    std::string_view line;
    KRAKEN_ASSIGN_OR_RETURN(bool any, reader.Next(&line));
    if (!any) return InvalidInput("line 1: empty file");
    std::string header(StripLineEnd(line));
    Profile profile;
    if (header == kWorkerHeader) {
      KRAKEN_RETURN_IF_ERROR(ImportWorkerRows(reader, JobFromFileName(input.display_name), &profile));
    } else if (reader.terminated() && LooksLikeIterationColumns(header + "\n", 2)) {
      KRAKEN_RETURN_IF_ERROR(ImportCovRows(reader, header, &profile));
    } else {
      return InvalidInput("line 1: not a PAI mini-batch-time header");
    }
    profile.metadata.attributes["axis"] = "training iteration (no clock in the source)";
    sink.AddProfile(input, descriptor().name, std::move(profile));
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Importer> CreatePaiMinibatchImporter() { return std::make_unique<PaiMinibatchImporter>(); }

}  // namespace kraken
