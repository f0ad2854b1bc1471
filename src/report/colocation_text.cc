#include <algorithm>
#include <cmath>

#include "analysis/colocate/join.h"
#include "analysis/colocate/model_validation.h"
#include "base/text.h"
#include "base/text_table.h"
#include "report/colocation_output.h"

namespace kraken {
namespace {

using Align = TextTable::Align;

std::string Fixed(double v, int decimals) { return std::isfinite(v) ? FormatFixed(v, decimals) : "inf"; }

std::string FigureValue(const ColocationFigure& f) {
  if (f.unit == "bytes") return f.assumed ? "-" : FormatBytes(f.value);
  if (f.unit == "bytes/s") return FormatBytes(f.value) + "/s";
  return Fixed(f.value, f.value != 0 && std::abs(f.value) < 0.01 ? 5 : 3) + (f.unit.empty() ? "" : " " + f.unit);
}

const ColocationFigure* FindFigure(const ColocationWorkload& w, const std::string& name) {
  for (const ColocationFigure& f : w.figures)
    if (f.name == name) return &f;
  return nullptr;
}

std::string ShortFigure(const ColocationWorkload& w, const std::string& name) {
  const ColocationFigure* f = FindFigure(w, name);
  if (f == nullptr) return "-";
  if (f->unit == "bytes") return f->assumed ? "n/m" : FormatBytes(f->value);
  std::string s = Fixed(f->value, 2);
  return f->assumed ? s + "*" : s;
}

std::string WorkloadTable(const ColocationReport& r) {
  TextTable table({"#", "workload", "type", "class", "busy", "SM fill", "DRAM", "memory", "period ms"},
                  {Align::kRight, Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight,
                   Align::kRight, Align::kRight});
  table.SetMaxWidth(1, 60);
  for (size_t i = 0; i < r.workloads.size(); ++i) {
    const ColocationWorkload& w = r.workloads[i];
    table.AddRow({std::to_string(i + 1), w.name, w.workload_type, w.work_class, ShortFigure(w, "gpu_busy"),
                  ShortFigure(w, "sm_fill"), ShortFigure(w, "dram_intensity"), ShortFigure(w, "memory"),
                  w.period_s > 0 ? Fixed(w.period_s * 1e3, 1) : "-"});
  }
  return table.Render();
}

std::string QosText(const WorkloadPrediction& p) {
  if (!p.fits_memory) return "no: memory";
  if (p.qos_max_slowdown <= 0) return "-";
  return std::string(p.qos_ok ? "ok" : "VIOLATED") + " (<= " + Fixed(p.qos_max_slowdown, 2) + ")";
}

std::string PredictionTable(const ColocationReport& r) {
  TextTable table({"mode", "workload", "slowdown", "p99 alone ms", "p99 shared ms", "p99 x", "contended", "QoS"},
                  {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight,
                   Align::kLeft, Align::kLeft});
  table.SetMaxWidth(1, 50);
  for (const ModePrediction& m : r.modes) {
    if (!m.feasible && m.workloads.empty()) {
      table.AddRow({ModeLabel(m), "(not possible)", "", "", "", "", m.infeasible_reason, ""});
      continue;
    }
    for (size_t i = 0; i < m.workloads.size(); ++i) {
      const WorkloadPrediction& p = m.workloads[i];
      bool lat = p.latency_predicted;
      table.AddRow({i == 0 ? ModeLabel(m) : "", p.name, Fixed(p.slowdown, 3) + "x", lat ? Fixed(p.p99_alone_ms, 2) : "-",
                    lat ? Fixed(p.p99_colocated_ms, 2) : "-", lat ? Fixed(p.p99_increase, 2) : "-",
                    p.contended_resource, QosText(p)});
    }
  }
  return table.Render();
}

void RenderTerms(std::string& out, const std::vector<FormulaTerm>& terms, const std::string& indent) {
  for (const FormulaTerm& t : terms) out += indent + t.name + " = " + Fixed(t.value, 4) + "   [" + t.formula + "]\n";
}

void RenderNotes(std::string& out, const std::vector<std::string>& notes, const std::string& indent) {
  for (const std::string& n : notes) out += indent + "- " + n + "\n";
}

void RenderExplainInputs(std::string& out, const ColocationReport& r) {
  out += "\nInputs (* = assumed, not measured)\n";
  for (const ColocationWorkload& w : r.workloads) {
    out += "  " + w.name + "\n";
    for (const ColocationFigure& f : w.figures)
      out += "    " + std::string(f.assumed ? "* " : "  ") + f.name + " = " + FigureValue(f) + "   [" + f.basis + "]\n";
  }
}

void RenderParameters(std::string& out, const std::vector<ModelParameter>& params) {
  out += "\nModel parameters\n";
  TextTable table({"parameter", "value", "unit", "source"}, {Align::kLeft, Align::kRight, Align::kLeft, Align::kLeft});
  for (const ModelParameter& p : params) table.AddRow({p.name, Fixed(p.value, 3), p.unit, p.source});
  out += table.Render();
}

}  // namespace

std::string ModeLabel(const ModePrediction& m) {
  std::string s = SharingModeName(m.mode);
  if (m.mode == SharingMode::kMps) {
    bool capped = std::any_of(m.sm_shares.begin(), m.sm_shares.end(), [](double v) { return v < 1; });
    if (capped) {
      std::vector<std::string> parts;
      for (double v : m.sm_shares) parts.push_back(FormatFixed(v * 100, 0));
      s += ' ';
      s += JoinText(parts, "/");
    } else if (!m.sm_shares.empty()) {
      s += " (no SM cap)";
    }
  } else if (m.mode == SharingMode::kMig && !m.mig_profiles.empty()) {
    s += ' ';
    s += JoinText(m.mig_profiles, "+");
  }
  return s;
}

std::string RenderColocationText(const ColocationReport& r, const ColocationOutputOptions& options) {
  std::string out = "kraken colocate: " + std::to_string(r.workloads.size()) + " workloads on one " +
                    (options.device.empty() ? std::string("GPU (device unknown)") : options.device) + ", model " +
                    r.model + "\n\n";
  out += WorkloadTable(r);
  if (!r.modes.empty()) {
    out += "\nPredicted per sharing mode (slowdown: time per unit of work shared / alone; p99 for request-driven "
           "workloads)\n";
    out += PredictionTable(r);
    for (const ModePrediction& m : r.modes) {
      if (!m.feasible && !m.workloads.empty()) out += "  " + ModeLabel(m) + ": not possible: " + m.infeasible_reason + "\n";
    }
    out += "\nMeasured error of the model per mode\n";
    for (const ModePrediction& m : r.modes) out += "  " + ModeLabel(m) + ": " + ValidationText(m.validation) + "\n";
  }
  if (!r.pairs.empty()) {
    out += "\nPair scores (0..1: extra work the pair gets done beyond one GPU's worth)\n";
    TextTable table({"pair", "score", "best mode", "why"}, {Align::kLeft, Align::kRight, Align::kLeft, Align::kLeft});
    table.SetMaxWidth(0, 70);
    for (const PairScore& p : r.pairs) {
      std::string pair = r.workloads[p.a].name + " + " + r.workloads[p.b].name;
      std::string mode = p.model == "class-table" ? "-" : SharingModeName(p.best_mode);
      if (p.model != "class-table" && p.best_mode == SharingMode::kMps && p.sm_split.size() == 2 &&
          (p.sm_split[0] < 1 || p.sm_split[1] < 1))
        mode += " " + FormatFixed(p.sm_split[0] * 100, 0) + "/" + FormatFixed(p.sm_split[1] * 100, 0);
      table.AddRow({pair, Fixed(p.score, 2), mode, p.explanation});
    }
    out += table.Render();
  }
  std::vector<std::string> notes = options.notes;
  // A note several modes share is printed once, with the modes it concerns.
  std::vector<std::pair<std::string, std::vector<std::string>>> mode_notes;
  for (const ModePrediction& m : r.modes) {
    for (const std::string& n : m.notes) {
      auto it = std::find_if(mode_notes.begin(), mode_notes.end(), [&](const auto& e) { return e.first == n; });
      if (it == mode_notes.end()) mode_notes.push_back({n, {ModeLabel(m)}});
      else it->second.push_back(ModeLabel(m));
    }
  }
  for (const auto& [n, labels] : mode_notes) notes.push_back(JoinText(labels, ", ") + ": " + n);
  for (const std::string& n : r.assumptions)
    if (std::find(notes.begin(), notes.end(), n) == notes.end() && !options.explain &&
        (n.rfind("device", 0) == 0 || n.rfind("workloads were", 0) == 0 || n.rfind("class-table", 0) == 0))
      notes.push_back(n);
  if (!notes.empty()) {
    out += "\nNotes\n";
    RenderNotes(out, notes, "  ");
  }
  if (options.explain) {
    RenderExplainInputs(out, r);
    for (const ModePrediction& m : r.modes) {
      out += "\nFormula parts: " + ModeLabel(m) + "\n";
      for (const WorkloadPrediction& p : m.workloads) {
        out += "  " + p.name + "\n";
        RenderTerms(out, p.terms, "    ");
      }
    }
    RenderParameters(out, r.parameters);
    out += "\nAssumptions\n";
    RenderNotes(out, r.assumptions, "  ");
  } else {
    out += "\n(--explain shows every input with its source, each part of the formulas and the assumptions)\n";
  }
  return out;
}

std::string RenderPlacementText(const PlacementResult& result, const ColocationReport& inputs,
                                const ColocationOutputOptions& options) {
  std::string out = "kraken colocate --optimize: " + std::to_string(inputs.workloads.size()) + " workloads, " +
                    std::to_string(result.gpus_available) + " GPU(s) " +
                    (options.device.empty() ? std::string("(device unknown)") : options.device) + "\n\n";
  out += WorkloadTable(inputs);
  out += "\nPlacement: " + std::string(result.feasible ? "found" : "NOT POSSIBLE within the GPUs available") + " (" +
         result.method + ")\n";
  TextTable table({"GPU", "workloads", "mode", "penalties"}, {Align::kRight, Align::kLeft, Align::kLeft, Align::kLeft});
  table.SetMaxWidth(1, 70);
  for (const GpuAssignment& g : result.gpus) {
    std::vector<std::string> names, penalties;
    for (size_t i : g.workloads) names.push_back(inputs.workloads[i].name);
    for (const WorkloadPrediction& p : g.prediction.workloads)
      penalties.push_back(std::string(p.latency_predicted ? "p99 x" : "") + Fixed(p.penalty, 3));
    std::string joined_names = JoinText(names, ", "), joined_penalties = JoinText(penalties, ", ");
    table.AddRow({std::to_string(g.gpu), joined_names, g.workloads.size() == 1 ? "alone" : ModeLabel(g.prediction),
                  g.workloads.size() == 1 ? "1.000" : joined_penalties});
  }
  out += table.Render();
  out += "  total interference (sum of penalty - 1): " + Fixed(result.total_interference, 3) + "\n";
  out += "\nWhy\n";
  for (const GpuAssignment& g : result.gpus) out += "  - GPU " + std::to_string(g.gpu) + ": " + g.reason + "\n";
  RenderNotes(out, result.reasons, "  ");
  if (!options.notes.empty()) {
    out += "\nNotes\n";
    RenderNotes(out, options.notes, "  ");
  }
  if (options.explain) {
    RenderExplainInputs(out, inputs);
    for (const GpuAssignment& g : result.gpus) {
      if (g.workloads.size() < 2) continue;
      out += "\nFormula parts: GPU " + std::to_string(g.gpu) + ", " + ModeLabel(g.prediction) + "\n";
      for (const WorkloadPrediction& p : g.prediction.workloads) {
        out += "  " + p.name + "\n";
        RenderTerms(out, p.terms, "    ");
      }
    }
    RenderParameters(out, inputs.parameters);
    out += "\nAssumptions\n";
    RenderNotes(out, inputs.assumptions, "  ");
  }
  return out;
}

}  // namespace kraken
