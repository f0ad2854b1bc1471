#include "report/pack_output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/json_writer.h"
#include "base/text.h"
#include "base/text_table.h"

namespace kraken {
namespace {

using pack::CurvePoint;
using pack::PolicySummary;

const CurvePoint* PointAt(const std::vector<CurvePoint>& curve, int32_t x) {
  for (const CurvePoint& p : curve)
    if (p.arrived_pct == x) return &p;
  return nullptr;
}

std::string Pct(double v) { return std::isnan(v) ? "-" : FormatFixed(v, 2); }

std::string GpuList(const pack::NodeState& n) {
  std::string out;
  for (int32_t g = 0; g < n.gpu_count; ++g) {
    if (g > 0) out += ' ';
    out += std::to_string(n.gpu_free[g]);
  }
  return out.empty() ? "-" : out;
}

std::string MaskList(pack::GpuMask mask) {
  std::string out;
  for (int g = 0; g < pack::kMaxGpusPerNode; ++g)
    if (mask & (1u << g)) {
      if (!out.empty()) out += ',';
      out += std::to_string(g);
    }
  return out.empty() ? "-" : out;
}

std::string PodDescription(const pack::PackProblem& problem, int32_t pod_index) {
  const PodRequest& pod = problem.pods[static_cast<size_t>(pod_index)];
  const pack::PodShape& shape = problem.shapes[static_cast<size_t>(problem.pod_shape[static_cast<size_t>(pod_index)])];
  return pod.name + " (" +
         pack::DescribeShape(shape.cpu_milli, shape.num_gpu, shape.gpu_milli, shape.models, problem.models) + ", " +
         std::to_string(shape.memory_mib) + " MiB)";
}

}  // namespace

const std::vector<std::string>& PackProtocolAssumptions() {
  static const std::vector<std::string> kAssumptions = {
      "Static workload: pods never leave (the FGD paper's protocol); each pod is tried once, a pod that fits nowhere "
      "stays failed.",
      "Pods are shuffled (seeded), then tuned to the target share of GPU capacity by cloning random pods (or removing "
      "random pods above it).",
      "Fit filter: free CPU and memory (Kubernetes NodeResourcesFit), GPU model allowed, a sharing pod inside one "
      "GPU's free milli, whole free GPUs for the others.",
      "Equal scores go to the node of lowest rank, a random order fixed per seed (the reference picks the smallest "
      "randomly prefixed node name).",
      "Randomness is std::mt19937_64 seeded per experiment: results match the Go simulator statistically, not run "
      "by run.",
      "Arrived % counts the GPU requests of all submitted pods, failed ones included; unallocated % = 100 - "
      "allocated GPU milli / capacity.",
  };
  return kAssumptions;
}

std::string RenderPackText(const PackReport& report) {
  const pack::PackProblem& problem = *report.problem;
  std::string out;
  int64_t gpus = problem.gpu_capacity_milli / kMilliPerGpu;
  out += "Cluster: " + std::to_string(problem.nodes.size()) + " nodes, " + std::to_string(gpus) + " GPUs (" +
         report.nodes_file + ")\n";
  out += "Pods:    " + std::to_string(problem.pods.size()) + " (" + report.pods_file + "), GPU request " +
         FormatFixed(100.0 * static_cast<double>(problem.pod_gpu_request_milli) /
                         static_cast<double>(problem.gpu_capacity_milli),
                     1) +
         "% of capacity, tuned to " + FormatFixed(100 * report.tune_ratio, 0) + "%\n";
  out += "Typical pods: " + std::to_string(problem.typical.size()) + " shapes; fragmentation of the empty cluster " +
         FormatFixed(report.empty_cluster_frag_pct, 2) + "%\n";
  out += "Seeds:   " + std::to_string(report.seeds.size()) + " (" + std::to_string(report.seeds.front()) + ".." +
         std::to_string(report.seeds.back()) + "), " + FormatFixed(report.wall_seconds, 1) + " s on " +
         std::to_string(report.threads) + " threads\n\n";
  out += "Unallocated GPU % (median over seeds) by arrived workload %\n";

  std::vector<std::string> columns = {"arrived %"};
  std::vector<TextTable::Align> align = {TextTable::Align::kRight};
  for (const PolicySummary& s : report.summaries) {
    columns.push_back(s.policy);
    align.push_back(TextTable::Align::kRight);
  }
  TextTable table(columns, align);
  for (int32_t x = 75; x <= 130; x += 5) {
    std::vector<std::string> row = {std::to_string(x)};
    bool any = false;
    for (const PolicySummary& s : report.summaries) {
      const CurvePoint* p = PointAt(s.median_curve, x);
      row.push_back(p ? Pct(p->unallocated_pct) : "-");
      any |= p != nullptr;
    }
    if (any) table.AddRow(row);
  }
  out += table.Render();

  out += "\nAt arrived = 100%\n";
  TextTable at100({"policy", "unallocated %", "min..max over seeds", "frag %", "failed pods", "s/experiment"},
                  {TextTable::Align::kLeft, TextTable::Align::kRight, TextTable::Align::kRight,
                   TextTable::Align::kRight, TextTable::Align::kRight, TextTable::Align::kRight});
  for (const PolicySummary& s : report.summaries) {
    double lo = NAN, hi = NAN;
    for (double v : s.unallocated_at_100_by_seed) {
      if (std::isnan(v)) continue;
      lo = std::isnan(lo) ? v : std::min(lo, v);
      hi = std::isnan(hi) ? v : std::max(hi, v);
    }
    const CurvePoint* p = PointAt(s.median_curve, 100);
    at100.AddRow({s.policy, Pct(s.median_unallocated_at_100), Pct(lo) + ".." + Pct(hi), p ? Pct(p->frag_pct) : "-",
                  FormatFixed(s.median_pods_failed, 0) + " (median)",
                  FormatFixed(s.seconds / static_cast<double>(std::max<size_t>(1, report.seeds.size())), 2)});
  }
  out += at100.Render();
  return out;
}

std::string RenderPackJson(const PackReport& report) {
  const pack::PackProblem& problem = *report.problem;
  JsonWriter json;
  json.BeginObject();
  json.Field("nodes_file", report.nodes_file).Field("pods_file", report.pods_file);
  json.Field("nodes", static_cast<int64_t>(problem.nodes.size()))
      .Field("gpus", problem.gpu_capacity_milli / kMilliPerGpu)
      .Field("pods", static_cast<int64_t>(problem.pods.size()))
      .Field("pod_gpu_request_pct", 100.0 * static_cast<double>(problem.pod_gpu_request_milli) /
                                        static_cast<double>(problem.gpu_capacity_milli))
      .Field("typical_pod_shapes", static_cast<int64_t>(problem.typical.size()))
      .Field("empty_cluster_frag_pct", report.empty_cluster_frag_pct)
      .Field("tune", report.tune_ratio);
  json.Key("seeds").BeginArray();
  for (uint64_t s : report.seeds) json.Uint(s);
  json.EndArray();
  json.Field("threads", report.threads).Field("wall_seconds", report.wall_seconds);
  json.Key("policies").BeginArray();
  for (const PolicySummary& s : report.summaries) {
    json.BeginObject().Field("policy", s.policy);
    json.Key("unallocated_pct_at_100");
    std::isnan(s.median_unallocated_at_100) ? json.Null() : json.Number(s.median_unallocated_at_100);
    json.Key("unallocated_pct_at_100_by_seed").BeginArray();
    for (double v : s.unallocated_at_100_by_seed) std::isnan(v) ? json.Null() : json.Number(v);
    json.EndArray();
    json.Field("median_pods_failed", s.median_pods_failed).Field("seconds", s.seconds);
    json.Key("curve").BeginArray();
    for (const CurvePoint& p : s.median_curve)
      json.BeginObject()
          .Field("arrived_pct", p.arrived_pct)
          .Field("unallocated_pct", p.unallocated_pct)
          .Field("frag_pct", p.frag_pct)
          .Field("frag_ratio_pct", p.frag_ratio_pct)
          .EndObject();
    json.EndArray().EndObject();
  }
  json.EndArray().EndObject();
  return json.Take() + "\n";
}

std::string RenderPackExplainText(const PackExplainReport& report) {
  const pack::PackProblem& problem = *report.problem;
  std::string out = "Explained placements (seed " + std::to_string(report.seed) + ", tuned to " +
                    FormatFixed(100 * report.tune_ratio, 0) + "% of GPU capacity)\n";
  for (const PackExplainRun& run : report.runs) {
    out += "\n== " + std::string(run.policy->name()) + " ==\n" + run.policy->Assumptions() + "\n";
    for (const pack::PlacementExplanation& e : run.result.explanations) {
      out += "\nPod #" + std::to_string(e.position) + ": " + PodDescription(problem, e.pod) + "\n";
      out += "  " + std::to_string(e.feasible_nodes) + " nodes fit; chosen: " +
             (e.chosen_node < 0 ? std::string("none (the pod fails)")
                                : problem.nodes[static_cast<size_t>(e.chosen_node)].name) +
             "\n";
      for (const pack::NodeExplanation& c : e.candidates) {
        const ClusterNode& node = problem.nodes[static_cast<size_t>(c.node)];
        out += "  - " + node.name + " (" + (node.gpu_model.empty() ? "no GPU" : node.gpu_model) + ", rank " +
               std::to_string(c.rank) + "): score " + FormatFixed(c.score.score, 4) + ", GPUs " +
               MaskList(c.score.gpus) + "\n";
        out += "      free: " + std::to_string(c.state.cpu_free) + "m CPU, " + std::to_string(c.state.memory_free) +
               " MiB, GPU milli [" + GpuList(c.state) + "]\n";
        for (const pack::ScorePart& part : c.score.parts)
          out += "      " + part.name + " = " + FormatFixed(part.value, 4) +
                 (part.note.empty() ? "" : "  (" + part.note + ")") + "\n";
      }
    }
  }
  out += "\nAssumptions of the protocol:\n";
  for (const std::string& a : PackProtocolAssumptions()) out += "  - " + a + "\n";
  return out;
}

std::string RenderPackExplainJson(const PackExplainReport& report) {
  const pack::PackProblem& problem = *report.problem;
  JsonWriter json;
  json.BeginObject().Field("seed", report.seed).Field("tune", report.tune_ratio);
  json.Key("policies").BeginArray();
  for (const PackExplainRun& run : report.runs) {
    json.BeginObject().Field("policy", run.policy->name()).Field("assumptions", run.policy->Assumptions());
    json.Key("placements").BeginArray();
    for (const pack::PlacementExplanation& e : run.result.explanations) {
      json.BeginObject()
          .Field("position", e.position)
          .Field("pod", problem.pods[static_cast<size_t>(e.pod)].name)
          .Field("pod_shape", PodDescription(problem, e.pod))
          .Field("feasible_nodes", e.feasible_nodes);
      json.Key("chosen_node");
      e.chosen_node < 0 ? json.Null() : json.String(problem.nodes[static_cast<size_t>(e.chosen_node)].name);
      json.Key("candidates").BeginArray();
      for (const pack::NodeExplanation& c : e.candidates) {
        json.BeginObject()
            .Field("node", problem.nodes[static_cast<size_t>(c.node)].name)
            .Field("rank", c.rank)
            .Field("score", c.score.score)
            .Field("cpu_free_milli", c.state.cpu_free)
            .Field("memory_free_mib", c.state.memory_free);
        json.Key("gpu_free_milli").BeginArray();
        for (int32_t g = 0; g < c.state.gpu_count; ++g) json.Int(c.state.gpu_free[g]);
        json.EndArray();
        json.Key("gpus").BeginArray();
        for (int g = 0; g < pack::kMaxGpusPerNode; ++g)
          if (c.score.gpus & (1u << g)) json.Int(g);
        json.EndArray();
        json.Key("parts").BeginArray();
        for (const pack::ScorePart& part : c.score.parts)
          json.BeginObject().Field("name", part.name).Field("value", part.value).Field("note", part.note).EndObject();
        json.EndArray().EndObject();
      }
      json.EndArray().EndObject();
    }
    json.EndArray().EndObject();
  }
  json.EndArray();
  json.Key("protocol_assumptions").BeginArray();
  for (const std::string& a : PackProtocolAssumptions()) json.String(a);
  json.EndArray().EndObject();
  return json.Take() + "\n";
}

}  // namespace kraken
