#include "collectors/cupti/annotation_projector.h"

#include <algorithm>
#include <map>
#include <utility>

namespace kraken::cupti {

void AnnotationProjector::AddLaunch(uint32_t correlation, int64_t tid, int64_t start_ns) {
  if (launches_.size() >= max_records_) {
    ++dropped_;
    return;
  }
  launches_.push_back({correlation, tid, start_ns});
}

void AnnotationProjector::AddGpuWork(uint32_t correlation, int64_t device, int64_t stream, int64_t start_ns,
                                     int64_t end_ns) {
  if (work_.size() >= max_records_) {
    ++dropped_;
    return;
  }
  work_.push_back({correlation, static_cast<int32_t>(device), stream, start_ns, end_ns});
}

void AnnotationProjector::AddRange(int64_t tid, int64_t start_ns, int64_t end_ns, std::string name) {
  ranges_.push_back({tid, start_ns, end_ns, std::move(name)});
}

int64_t AnnotationProjector::Project(TraceEventSink* sink) {
  int64_t emitted = 0;
  if (!ranges_.empty()) {
    // Launches by (thread, start) to find those inside a range; GPU work by correlation.
    std::sort(launches_.begin(), launches_.end(), [](const Launch& a, const Launch& b) {
      return std::pair(a.tid, a.start_ns) < std::pair(b.tid, b.start_ns);
    });
    std::sort(work_.begin(), work_.end(),
              [](const GpuWork& a, const GpuWork& b) { return a.correlation < b.correlation; });
    std::stable_sort(ranges_.begin(), ranges_.end(), [](const Range& a, const Range& b) {
      return std::pair(a.tid, a.start_ns) < std::pair(b.tid, b.start_ns);
    });
    TraceEvent event;
    for (const Range& range : ranges_) {
      // (device, stream) -> [first start, last end] of the work launched inside the range.
      std::map<std::pair<int32_t, int64_t>, std::pair<int64_t, int64_t>> spans;
      auto first = std::lower_bound(launches_.begin(), launches_.end(), std::pair(range.tid, range.start_ns),
                                    [](const Launch& l, const std::pair<int64_t, int64_t>& key) {
                                      return std::pair(l.tid, l.start_ns) < key;
                                    });
      for (auto launch = first; launch != launches_.end() && launch->tid == range.tid &&
                                launch->start_ns <= range.end_ns;
           ++launch) {
        auto [begin, end] = std::equal_range(
            work_.begin(), work_.end(), GpuWork{launch->correlation, 0, 0, 0, 0},
            [](const GpuWork& a, const GpuWork& b) { return a.correlation < b.correlation; });
        for (auto w = begin; w != end; ++w) {
          auto [it, added] = spans.try_emplace({w->device, w->stream}, w->start_ns, w->end_ns);
          if (!added) {
            it->second.first = std::min(it->second.first, w->start_ns);
            it->second.second = std::max(it->second.second, w->end_ns);
          }
        }
      }
      for (const auto& [where, span] : spans) {
        event.Clear();
        event.category = "gpu_user_annotation";
        event.name = range.name;
        event.pid = where.first;
        event.tid = where.second;
        event.start_ns = span.first;
        event.duration_ns = span.second - span.first;
        event.AddInt("device", where.first);
        event.AddInt("stream", where.second);
        sink->Emit(event);
        ++emitted;
      }
    }
  }
  launches_ = {};
  work_ = {};
  ranges_ = {};
  return emitted;
}

}  // namespace kraken::cupti
