#include "model/time_base.h"

namespace kraken {
namespace {

std::string Describe(const Series& s, TimeNs t) {
  std::string what = "series '" + s.source_name + "'";
  if (s.entity.gpu_index >= 0) what += " of gpu " + std::to_string(s.entity.gpu_index);
  auto phase = s.entity.labels.find("phase");
  if (phase != s.entity.labels.end()) what += " [" + phase->second + "]";
  return what + " (t = " + std::to_string(t) + " ns)";
}

}  // namespace

std::string_view TimeBaseName(TimeBase base) {
  switch (base) {
    case TimeBase::kNone:
      return "none";
    case TimeBase::kRelative:
      return "relative";
    case TimeBase::kEpoch:
      return "epoch";
  }
  return "none";
}

Result<TimeBase> ProfileTimeBase(const Profile& profile) {
  TimeBase base = TimeBase::kNone;
  const Series* first = nullptr;
  TimeNs first_time = 0;
  for (const Series& s : profile.series) {
    if (s.axis != SampleAxis::kTimeNs) continue;
    for (const Sample& sample : s.samples) {
      TimeBase here = TimeBaseOf(sample.time_ns);
      if (first == nullptr) {
        base = here;
        first = &s;
        first_time = sample.time_ns;
      } else if (here != base) {
        return InvalidInput("mixed time bases: " + Describe(*first, first_time) + " is " +
                            std::string(TimeBaseName(base)) + ", " + Describe(s, sample.time_ns) + " is " +
                            std::string(TimeBaseName(here)) + "; a profile needs one clock");
      }
    }
  }
  return base;
}

}  // namespace kraken
