#include "app/timeline_window.h"

#include <algorithm>
#include <utility>

#include "base/json_writer.h"

namespace kraken {
namespace {

// A stream with more kernels in the window than this many per pixel is drawn from buckets.
constexpr int64_t kEventsPerPixel = 2;

struct Bucket {
  int64_t count = 0;
  TimeNs busy_ns = 0;
};

// Adds `k`'s overlap with each pixel of [start, end) to that pixel's busy time; the kernel
// is counted in the pixel where it starts (or the first one, when it starts before).
void AddToBuckets(const Kernel& k, TimeNs start, TimeNs end, std::vector<Bucket>& buckets) {
  const double px_ns = static_cast<double>(end - start) / static_cast<double>(buckets.size());
  const TimeNs from = std::max(k.start_ns, start);
  const TimeNs to = std::min(k.end_ns(), end);
  auto pixel = [&](TimeNs t) {
    return std::min(buckets.size() - 1, static_cast<size_t>(static_cast<double>(t - start) / px_ns));
  };
  size_t first = pixel(from);
  ++buckets[first].count;
  for (size_t p = first; p <= pixel(to) && to > from; ++p) {
    const TimeNs p_start = start + static_cast<TimeNs>(static_cast<double>(p) * px_ns);
    const TimeNs p_end = p + 1 == buckets.size() ? end : start + static_cast<TimeNs>(static_cast<double>(p + 1) * px_ns);
    buckets[p].busy_ns += std::max<TimeNs>(0, std::min(to, p_end) - std::max(from, p_start));
  }
}

}  // namespace

TimelineIndex::TimelineIndex(Profile profile) : profile_(std::move(profile)) {
  std::map<std::pair<int32_t, int64_t>, size_t> lane_of;
  bool first = true;
  for (const Kernel& k : profile_.kernels) {
    auto [it, added] = lane_of.try_emplace({k.device, k.stream}, lanes_.size());
    if (added) lanes_.push_back(Lane{k.device, k.stream, {}, 0});
    Lane& lane = lanes_[it->second];
    lane.kernels.push_back(&k);
    lane.longest_ns = std::max(lane.longest_ns, k.duration_ns);
    trace_start_ns_ = first ? k.start_ns : std::min(trace_start_ns_, k.start_ns);
    trace_end_ns_ = first ? k.end_ns() : std::max(trace_end_ns_, k.end_ns());
    first = false;
  }
  kernel_count_ = profile_.kernels.size();
  // Lanes in (device, stream) order, kernels by start: the same document whatever the import order.
  std::sort(lanes_.begin(), lanes_.end(), [](const Lane& a, const Lane& b) {
    return std::pair(a.device, a.stream) < std::pair(b.device, b.stream);
  });
  for (Lane& lane : lanes_)
    std::stable_sort(lane.kernels.begin(), lane.kernels.end(),
                     [](const Kernel* a, const Kernel* b) { return a->start_ns < b->start_ns; });
  // The launching op: the CPU operator carrying the kernel's external id; where several
  // do (nested ops), the shortest, the innermost one.
  for (const CpuOp& op : profile_.cpu_ops)
    if (op.external_id >= 0 && op.category == CpuOpCategory::kOperator) ops_by_external_id_.emplace_back(op.external_id, &op);
  std::sort(ops_by_external_id_.begin(), ops_by_external_id_.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second->duration_ns < b.second->duration_ns;
  });
  for (const RuntimeCall& call : profile_.runtime_calls)
    if (call.correlation_id >= 0) calls_by_correlation_.push_back(&call);
  std::sort(calls_by_correlation_.begin(), calls_by_correlation_.end(),
            [](const RuntimeCall* a, const RuntimeCall* b) { return a->correlation_id < b->correlation_id; });
  for (const CpuOp& op : profile_.cpu_ops)
    if (op.category == CpuOpCategory::kOperator) ops_by_thread_[{op.pid, op.tid}].push_back(&op);
  for (auto& [thread, ops] : ops_by_thread_)
    std::stable_sort(ops.begin(), ops.end(), [](const CpuOp* a, const CpuOp* b) { return a->start_ns < b->start_ns; });
}

const CpuOp* TimelineIndex::OpWithExternalId(int64_t external_id) const {
  if (external_id < 0) return nullptr;
  auto it = std::lower_bound(ops_by_external_id_.begin(), ops_by_external_id_.end(), external_id,
                             [](const auto& entry, int64_t id) { return entry.first < id; });
  return it != ops_by_external_id_.end() && it->first == external_id ? it->second : nullptr;
}

// The latest-starting operator on the call's thread that contains the call: the innermost
// of properly nested ones. Looks back over a bounded number of ops, so a query stays
// O(log n) per kernel whatever the thread holds.
const CpuOp* TimelineIndex::EnclosingOp(const RuntimeCall& call) const {
  constexpr int kMaxLookBack = 256;
  auto found = ops_by_thread_.find({call.pid, call.tid});
  if (found == ops_by_thread_.end()) return nullptr;
  const std::vector<const CpuOp*>& ops = found->second;
  auto it = std::upper_bound(ops.begin(), ops.end(), call.start_ns,
                             [](TimeNs t, const CpuOp* op) { return t < op->start_ns; });
  for (int step = 0; step < kMaxLookBack && it != ops.begin(); ++step) {
    --it;
    if ((*it)->end_ns() >= call.end_ns()) return *it;
  }
  return nullptr;
}

std::string_view TimelineIndex::LaunchingOpName(const Kernel& k) const {
  if (const CpuOp* op = OpWithExternalId(k.external_id)) return profile_.Name(op->name);
  if (k.correlation_id < 0) return {};
  auto it = std::lower_bound(calls_by_correlation_.begin(), calls_by_correlation_.end(), k.correlation_id,
                             [](const RuntimeCall* call, int64_t id) { return call->correlation_id < id; });
  if (it == calls_by_correlation_.end() || (*it)->correlation_id != k.correlation_id) return {};
  const CpuOp* op = OpWithExternalId((*it)->external_id);
  if (op == nullptr) op = EnclosingOp(**it);
  return op != nullptr ? profile_.Name(op->name) : std::string_view{};
}

Result<std::string> TimelineIndex::RenderWindowJson(const TimelineQuery& query) const {
  TimeNs start = trace_start_ns_, end = trace_end_ns_;
  if (query.start_ns != 0 || query.end_ns != 0) {
    start = trace_start_ns_ + query.start_ns;
    end = trace_start_ns_ + query.end_ns;
  }
  if (end < start) return InvalidInput("the window ends before it starts");
  if (query.width_px < 1 || query.width_px > kTimelineMaxWidthPx)
    return InvalidInput("width must be 1.." + std::to_string(kTimelineMaxWidthPx) + " pixels");
  JsonWriter json;
  json.BeginObject().Field("trace_start_ns", trace_start_ns_).Field("trace_us", (trace_end_ns_ - trace_start_ns_) / 1e3);
  json.Field("start_us", (start - trace_start_ns_) / 1e3).Field("end_us", (end - trace_start_ns_) / 1e3);
  json.Field("width_px", query.width_px);
  int64_t total = 0;
  json.Key("streams").BeginArray();
  for (const Lane& lane : lanes_) {
    // Kernels overlapping [start, end], ends included: a kernel cannot start earlier than
    // `start - longest`, so the scan begins there.
    auto from = std::lower_bound(lane.kernels.begin(), lane.kernels.end(), start - lane.longest_ns,
                                 [](const Kernel* k, TimeNs t) { return k->start_ns < t; });
    auto to = std::upper_bound(from, lane.kernels.end(), end, [](TimeNs t, const Kernel* k) { return t < k->start_ns; });
    std::vector<const Kernel*> inside;
    for (auto it = from; it != to; ++it)
      if ((*it)->end_ns() >= start) inside.push_back(*it);
    total += static_cast<int64_t>(inside.size());
    json.BeginObject().Field("device", lane.device).Field("stream", lane.stream);
    json.Field("kernels", static_cast<int64_t>(inside.size()));
    const bool bucketed = static_cast<int64_t>(inside.size()) > kEventsPerPixel * query.width_px && end > start;
    json.Field("bucketed", bucketed);
    if (bucketed) {
      std::vector<Bucket> buckets(static_cast<size_t>(query.width_px));
      for (const Kernel* k : inside) AddToBuckets(*k, start, end, buckets);
      json.Key("buckets").BeginArray();
      for (const Bucket& b : buckets) json.BeginArray().Int(b.count).Number(b.busy_ns / 1e3).EndArray();
      json.EndArray();
    } else {
      json.Key("events").BeginArray();
      for (const Kernel* k : inside) {
        json.BeginObject().Field("name", profile_.Name(k->name));
        json.Field("start_us", (k->start_ns - trace_start_ns_) / 1e3).Field("dur_us", k->duration_ns / 1e3);
        json.Field("op", LaunchingOpName(*k)).EndObject();
      }
      json.EndArray();
    }
    json.EndObject();
  }
  json.EndArray().Field("kernels", total).EndObject();
  return json.Take() + "\n";
}

}  // namespace kraken
