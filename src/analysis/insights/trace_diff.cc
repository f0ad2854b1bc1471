#include "analysis/insights/trace_diff.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/timeline.h"

namespace kraken {
namespace {

void AddTimeline(const TimelineBreakdown& t, std::map<std::string, double>* out) {
  (*out)["total"] += static_cast<double>(t.total_ns);
  (*out)["busy"] += static_cast<double>(t.busy_ns);
  (*out)["idle"] += static_cast<double>(t.idle_ns);
  (*out)["compute"] += static_cast<double>(t.compute_ns);
  (*out)["communication"] += static_cast<double>(t.comm_ns);
  (*out)["exposed_communication"] += static_cast<double>(t.exposed_comm_ns);
  (*out)["memcpy"] += static_cast<double>(t.memcpy_ns);
  (*out)["exposed_memcpy"] += static_cast<double>(t.exposed_memcpy_ns);
}

// A kernel name's time that the communication classifier marks as communication, and
// all of its time.
struct NameCommunicationShare {
  int64_t communication_kernels = 0;
  TimeNs communication_ns = 0;
  TimeNs total_ns = 0;
};

// Per kernel name that has any kernel marked as communication. The classifier judges each
// kernel on its name, collective args, launching CPU op and stream, so a collective whose
// name says nothing (NVLS/multimem, custom all-reduce) is found here too.
std::unordered_map<std::string_view, NameCommunicationShare> CommunicationShareByName(
    const Profile& profile, const CommunicationKernels& communication) {
  std::vector<NameCommunicationShare> by_id(profile.strings.size());
  for (size_t i = 0; i < profile.kernels.size(); ++i) {
    const Kernel& k = profile.kernels[i];
    if (k.name >= by_id.size()) continue;
    const TimeNs duration_ns = std::max<TimeNs>(0, k.duration_ns);
    by_id[k.name].total_ns += duration_ns;
    if (!communication.is_communication(i)) continue;
    ++by_id[k.name].communication_kernels;
    by_id[k.name].communication_ns += duration_ns;
  }
  std::unordered_map<std::string_view, NameCommunicationShare> by_name;
  for (size_t id = 0; id < by_id.size(); ++id)
    if (by_id[id].communication_kernels > 0) by_name[profile.Name(static_cast<StringId>(id))] = by_id[id];
  return by_name;
}

// The diff groups kernels by name, so a name has one class: communication when kernels
// holding at least half of its time are communication (as a kernel group takes the bound
// class of the launches holding most of its time), else the group's bound class.
std::string KernelClassOf(const KernelGroupStats& g,
                          const std::unordered_map<std::string_view, NameCommunicationShare>& shares) {
  auto it = shares.find(g.name);
  if (it != shares.end() && 2 * it->second.communication_ns >= it->second.total_ns) return "communication";
  return BoundnessName(g.classification.bound);
}

void AddRank(const DiffRank& rank, TraceSideSummary* side, double* step_sum, int64_t* ranks_with_steps) {
  const WorkloadReport& r = *rank.report;
  const Profile& p = *rank.profile;
  if (r.step_time_ns.count > 0) {
    *step_sum += r.step_time_ns.mean;
    ++*ranks_with_steps;
  }
  AddTimeline(r.main_window(), &side->timeline_ns);
  CommunicationKernels classified_here;
  if (rank.communication == nullptr) classified_here = ClassifyCommunication(p);
  const auto shares = CommunicationShareByName(p, rank.communication != nullptr ? *rank.communication : classified_here);
  for (const KernelGroupStats& g : r.kernels.top) {
    NameTime& k = side->kernels[g.name];
    k.time_ns += static_cast<double>(g.total_ns);
    k.count += static_cast<double>(g.count);
    NameTime& c = side->kernel_classes[KernelClassOf(g, shares)];
    c.time_ns += static_cast<double>(g.total_ns);
    c.count += static_cast<double>(g.count);
  }
  for (const CpuOp& op : p.cpu_ops) {
    if (op.category != CpuOpCategory::kOperator) continue;
    NameTime& o = side->operators[std::string(p.Name(op.name))];
    o.time_ns += static_cast<double>(op.duration_ns);
    o.count += 1;
  }
}

void DivideBy(double n, std::map<std::string, NameTime>* m) {
  for (auto& [name, v] : *m) {
    v.time_ns /= n;
    v.count /= n;
  }
}

bool ByImpact(const DiffEntry& x, const DiffEntry& y) {
  const double dx = std::fabs(x.delta_ns()), dy = std::fabs(y.delta_ns());
  if (dx != dy) return dx > dy;
  if (x.scope != y.scope) return x.scope < y.scope;
  return x.name < y.name;
}

std::vector<DiffEntry> DiffNames(DiffScope scope, const std::map<std::string, NameTime>& a,
                                 const std::map<std::string, NameTime>& b) {
  std::vector<DiffEntry> out;
  auto add = [&](const std::string& name, const NameTime* x, const NameTime* y) {
    DiffEntry e;
    e.scope = scope;
    e.name = name;
    if (x != nullptr) e.a_ns = x->time_ns, e.a_count = x->count;
    if (y != nullptr) e.b_ns = y->time_ns, e.b_count = y->count;
    e.status = x == nullptr ? DiffStatus::kAdded : y == nullptr ? DiffStatus::kRemoved : DiffStatus::kChanged;
    out.push_back(std::move(e));
  };
  for (const auto& [name, x] : a) {
    auto it = b.find(name);
    add(name, &x, it == b.end() ? nullptr : &it->second);
  }
  for (const auto& [name, y] : b)
    if (!a.contains(name)) add(name, nullptr, &y);
  std::sort(out.begin(), out.end(), ByImpact);
  return out;
}

std::vector<DiffEntry> OnlyWith(const std::vector<DiffEntry>& all, DiffStatus status, size_t top_n) {
  std::vector<DiffEntry> out;
  for (const DiffEntry& e : all)
    if (e.status == status && out.size() < top_n) out.push_back(e);
  return out;
}

void KeepTop(std::vector<DiffEntry>* v, size_t n) {
  if (v->size() > n) v->resize(n);
}

}  // namespace

std::string_view DiffScopeName(DiffScope scope) {
  switch (scope) {
    case DiffScope::kStep: return "step";
    case DiffScope::kTimeline: return "timeline";
    case DiffScope::kKernel: return "kernel";
    case DiffScope::kOperator: return "operator";
    case DiffScope::kKernelClass: return "kernel_class";
  }
  return "kernel";
}

std::string_view DiffStatusName(DiffStatus status) {
  switch (status) {
    case DiffStatus::kChanged: return "changed";
    case DiffStatus::kAdded: return "added";
    case DiffStatus::kRemoved: return "removed";
  }
  return "changed";
}

double DiffEntry::delta_pct() const { return a_ns != 0 ? 100.0 * (b_ns - a_ns) / a_ns : 0; }

TraceSideSummary SummarizeTraceSide(std::span<const DiffRank> ranks) {
  TraceSideSummary side;
  side.ranks = static_cast<int64_t>(ranks.size());
  if (ranks.empty()) return side;
  double step_sum = 0;
  int64_t ranks_with_steps = 0;
  for (const DiffRank& r : ranks) AddRank(r, &side, &step_sum, &ranks_with_steps);
  const double n = static_cast<double>(ranks.size());
  for (auto& [name, v] : side.timeline_ns) v /= n;
  DivideBy(n, &side.kernels);
  DivideBy(n, &side.operators);
  DivideBy(n, &side.kernel_classes);
  side.has_steps = ranks_with_steps == side.ranks;
  side.step_ns = side.has_steps ? step_sum / static_cast<double>(ranks_with_steps) : side.timeline_ns["total"];
  return side;
}

TraceDiff DiffTraces(const TraceSideSummary& a, const TraceSideSummary& b, const TraceDiffOptions& options) {
  TraceDiff d;
  d.a = a;
  d.b = b;
  d.step.scope = DiffScope::kStep;
  d.step.name = a.has_steps && b.has_steps ? "step" : "gpu_span";
  d.step.a_ns = a.step_ns;
  d.step.b_ns = b.step_ns;
  for (const char* category : {"total", "busy", "idle", "compute", "communication", "exposed_communication",
                               "memcpy", "exposed_memcpy"}) {
    DiffEntry e;
    e.scope = DiffScope::kTimeline;
    e.name = category;
    auto x = a.timeline_ns.find(category), y = b.timeline_ns.find(category);
    e.a_ns = x == a.timeline_ns.end() ? 0 : x->second;
    e.b_ns = y == b.timeline_ns.end() ? 0 : y->second;
    d.timeline.push_back(std::move(e));
  }
  d.kernel_classes = DiffNames(DiffScope::kKernelClass, a.kernel_classes, b.kernel_classes);
  std::vector<DiffEntry> kernels = DiffNames(DiffScope::kKernel, a.kernels, b.kernels);
  std::vector<DiffEntry> operators = DiffNames(DiffScope::kOperator, a.operators, b.operators);
  d.added_kernels = OnlyWith(kernels, DiffStatus::kAdded, options.top_n);
  d.removed_kernels = OnlyWith(kernels, DiffStatus::kRemoved, options.top_n);
  d.ranked = kernels;
  d.ranked.insert(d.ranked.end(), operators.begin(), operators.end());
  d.ranked.insert(d.ranked.end(), d.kernel_classes.begin(), d.kernel_classes.end());
  std::sort(d.ranked.begin(), d.ranked.end(), ByImpact);
  KeepTop(&d.ranked, options.top_n);
  d.kernels = std::move(kernels);
  d.operators = std::move(operators);
  KeepTop(&d.kernels, options.top_n);
  KeepTop(&d.operators, options.top_n);
  return d;
}

}  // namespace kraken
