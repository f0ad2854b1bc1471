// IsCommunicationKernelName once per distinct kernel name: the test scans the whole
// (often several-hundred-character) name case-insensitively, and a trace repeats a few
// hundred names over 100,000 kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/timeline.h"
#include "model/profile.h"

namespace kraken {

class CommunicationNames {
 public:
  explicit CommunicationNames(const Profile& profile) : profile_(profile) {}

  bool operator()(StringId name) {
    if (name >= known_.size()) known_.resize(name + 1, kUnknown);
    if (known_[name] == kUnknown) known_[name] = IsCommunicationKernelName(profile_.Name(name)) ? kYes : kNo;
    return known_[name] == kYes;
  }

 private:
  static constexpr int8_t kUnknown = -1, kNo = 0, kYes = 1;
  const Profile& profile_;
  std::vector<int8_t> known_;
};

}  // namespace kraken
