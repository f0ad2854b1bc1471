// Placing MIG GPU instances on one GPU. A GPU has 8 memory slices; a profile occupies
// `memory_slices` consecutive ones starting at one of its allowed start positions
// (nvidia-smi mig -lgipp), and two instances may not share a slice. The allowed starts
// also keep the compute slices within 7 (docs/mig-planning.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/mig_catalog.h"

namespace kraken::mig {

struct MigPlacement {
  int profile = -1;  // index into MigGeometry::profiles
  int start = -1;    // first memory slice
};

// True when every placement uses an allowed start, none overlap, no profile exceeds its
// instance limit and the compute slices add up to at most the GPU's; otherwise false with
// the reason in `why`.
bool IsValidLayout(const MigGeometry& geometry, const std::vector<MigPlacement>& layout, std::string* why = nullptr);

// A valid layout holding one instance of each profile index given, or nullopt when they
// cannot share one GPU (exact search: at most 8 instances, a handful of starts each).
std::optional<std::vector<MigPlacement>> PlaceProfiles(const MigGeometry& geometry, std::vector<int> profiles);

// Every non-empty combination of profiles (as counts per profile index) that fits one GPU.
std::vector<std::vector<int>> FeasibleProfileCounts(const MigGeometry& geometry);

}  // namespace kraken::mig
