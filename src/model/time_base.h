// Which clock a timestamp counts on. A profile must keep one time base: samplers with a
// wall clock give Unix-epoch ns, sources without one give ns since the capture started.
// Mixing the two in one profile puts points 56 years apart on one axis (the nvidia-smi
// capture's dmon rows at 0..4 s beside its --query-gpu rows at 1.78e18 ns), so importers
// normalise and the import driver refuses what is still mixed.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "model/profile.h"

namespace kraken {

enum class TimeBase : uint8_t { kNone, kRelative, kEpoch };

// 1e17 ns after the epoch is 1973-03-03: no sampler's clock reads earlier, and no relative
// capture runs 3 years.
inline constexpr TimeNs kEpochFloorNs = 100'000'000'000'000'000;

inline TimeBase TimeBaseOf(TimeNs t) { return t >= kEpochFloorNs ? TimeBase::kEpoch : TimeBase::kRelative; }
std::string_view TimeBaseName(TimeBase base);

// The one base of the profile's clocked series (kIteration axes are not clocks), kNone when
// it has no clocked sample; an error naming two series on different bases when mixed.
Result<TimeBase> ProfileTimeBase(const Profile& profile);

}  // namespace kraken
