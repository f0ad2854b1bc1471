// The evaluation of `kraken temporal` on the shared cluster series: imports every Helios
// and Alibaba GenAI series file, runs the periodicity detector and the rolling-origin
// forecast evaluation on every series, and prints one row per series plus the summary per
// group (share of series with MASE < 0.9 at 1 h and 24 h) and the time each stage took.
// docs/temporal.md quotes its output; temporal_evaluation_test.cc asserts the key numbers.
//
//   kraken_temporal_bench [DATA_DIR] [--rows]     (DATA_DIR defaults to ../shared/data)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "analysis/temporal/temporal_analysis.h"
#include "importers/registry.h"

namespace {

using kraken::temporal::TemporalReport;

struct GroupStats {
  size_t series = 0, periodic = 0, constant = 0;
  size_t n1 = 0, below1 = 0, n24 = 0, below24 = 0;
  std::vector<double> mase1, mase24;
};

double Median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

std::string Cell(const kraken::temporal::HorizonEvaluation& h) {
  if (!h.evaluated || std::isnan(h.mase)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", h.mase);
  return buf;
}

const std::vector<std::pair<std::string, std::string>>& SeriesFiles() {  // (family, path under DATA_DIR)
  static const std::vector<std::pair<std::string, std::string>> files = {
      {"helios", "helios/philly_node_sequence.csv.gz"},
      {"helios", "helios/earth_vc_sequences/vc3sl_cluster_sequence_vc.csv.gz"},
      {"helios", "helios/earth_vc_sequences/vc8Sj_cluster_sequence_vc.csv.gz"},
      {"helios", "helios/earth_vc_sequences/vcJkd_cluster_sequence_vc.csv.gz"},
      {"helios", "helios/earth_vc_sequences/vcMod_cluster_sequence_vc.csv.gz"},
      {"helios", "helios/earth_vc_sequences/vcTJs_cluster_sequence_vc.csv.gz"},
      {"helios", "helios/earth_vc_sequences/vcdI0_cluster_sequence_vc.csv.gz"},
      {"helios", "helios/earth_vc_sequences/vchbv_cluster_sequence_vc.csv.gz"},
      {"helios", "helios/earth_vc_sequences/vcpDC_cluster_sequence_vc.csv.gz"},
      {"helios-daily", "helios/earth_vc_sequences/Earth_gpu_number.csv"},
      {"genai", "alibaba-genai-v2026/pod_gpu_duty_cycle_anon.csv.gz"},
      {"genai", "alibaba-genai-v2026/pod_gpu_memory_used_bytes_anon.csv.gz"},
      {"genai", "alibaba-genai-v2026/pod_memory_util_anon.csv.gz"},
      {"genai", "alibaba-genai-v2026/qps.csv.gz"},
  };
  return files;
}

struct BenchTotals {
  std::map<std::string, GroupStats> groups;
  double import_s = 0, analyze_s = 0;
  size_t total_series = 0;
};

void CountInGroup(const TemporalReport& r, GroupStats& st) {
  ++st.series;
  st.periodic += r.periodicity.verdict == kraken::temporal::PeriodVerdict::kPeriodic;
  st.constant += r.periodicity.verdict == kraken::temporal::PeriodVerdict::kConstant;
  for (size_t k = 0; k < r.forecast.horizons.size(); ++k) {
    const auto& h = r.forecast.horizons[k];
    if (!h.evaluated || std::isnan(h.mase)) continue;
    (k == 0 ? st.n1 : st.n24)++;
    (k == 0 ? st.below1 : st.below24) += h.mase < 0.9;
    (k == 0 ? st.mase1 : st.mase24).push_back(h.mase);
  }
}

void PrintSeriesRow(const TemporalReport& r) {
  const auto& p = r.periodicity;
  std::string period = p.verdict == kraken::temporal::PeriodVerdict::kPeriodic
                           ? std::to_string(p.period / 60'000'000'000) + "min"
                           : kraken::temporal::PeriodVerdictName(p.verdict);
  double top = p.candidates.empty() ? 0 : p.candidates.front().acf;
  std::printf("%-45s %-22s acf=%.3f str=%.2f top=%.3f@%zu  mase1=%s mase24=%s  vsnaive1=%.3f vsnaive24=%.3f\n",
              r.name.c_str(), period.c_str(), p.acf, p.strength, top, p.candidates.empty() ? 0 : p.candidates.front().lag,
              Cell(r.forecast.horizons[0]).c_str(), Cell(r.forecast.horizons[1]).c_str(),
              r.forecast.horizons[0].ratio_vs_naive, r.forecast.horizons[1].ratio_vs_naive);
}

// Imports one file and analyzes its every series; false when the import failed.
bool BenchFile(const std::string& data, const std::string& family, const std::string& relative, bool rows,
               BenchTotals& totals) {
  auto t0 = std::chrono::steady_clock::now();
  auto profiles = kraken::ImportFile(kraken::BuiltinImporters(), data + "/" + relative);
  auto t1 = std::chrono::steady_clock::now();
  if (!profiles.ok()) {
    std::fprintf(stderr, "%s\n", profiles.status().message().c_str());
    return false;
  }
  double file_import = std::chrono::duration<double>(t1 - t0).count();
  totals.import_s += file_import;
  size_t samples = 0;
  for (const auto& p : *profiles) {
    for (const kraken::Series& s : p.series) {
      samples += s.samples.size();
      TemporalReport r = kraken::temporal::AnalyzeTemporal(s);
      ++totals.total_series;
      std::string group = family + "/" + s.source_name;
      if (family == "genai") group = family + "/" + s.source_name;
      for (const std::string& g : {group, family + "/*"}) CountInGroup(r, totals.groups[g]);
      if (rows && r.forecast.horizons.size() >= 2) PrintSeriesRow(r);
    }
  }
  auto t2 = std::chrono::steady_clock::now();
  totals.analyze_s += std::chrono::duration<double>(t2 - t1).count();
  std::printf("# %-62s import %.3f s (%zu samples, %.1f M samples/s)\n", relative.c_str(), file_import, samples,
              static_cast<double>(samples) / file_import / 1e6);
  return true;
}

void PrintGroupSummary(const std::map<std::string, GroupStats>& groups) {
  std::printf("\n%-40s %6s %8s %8s %14s %14s %10s %10s\n", "group", "series", "periodic", "constant",
              "MASE1h<0.9", "MASE24h<0.9", "med 1h", "med 24h");
  for (const auto& [name, st] : groups) {
    char a[32], b[32];
    std::snprintf(a, sizeof a, "%zu/%zu", st.below1, st.n1);
    std::snprintf(b, sizeof b, "%zu/%zu", st.below24, st.n24);
    std::printf("%-40s %6zu %8zu %8zu %14s %14s %10.3f %10.3f\n", name.c_str(), st.series, st.periodic, st.constant, a,
                b, Median(st.mase1), Median(st.mase24));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string data = "../shared/data";
  bool rows = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--rows") == 0) rows = true;
    else data = argv[i];
  }
  BenchTotals totals;
  for (const auto& [family, relative] : SeriesFiles())
    if (!BenchFile(data, family, relative, rows, totals)) return 2;
  PrintGroupSummary(totals.groups);
  std::printf("\n%zu series: import %.2f s, analysis %.2f s\n", totals.total_series, totals.import_s, totals.analyze_s);
  return 0;
}
