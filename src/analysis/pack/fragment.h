// FGD's GPU fragmentation measure (Weng et al., ATC'23, Sec. 4): the idle GPU milli of a
// node that the next pod, drawn from the typical-pod distribution, could not use.
//
// For one typical shape m and a node:
//   - m asks for no GPU, its GPU model is not on the node, or m does not fit (CPU short,
//     or fewer than m.num_gpu GPUs with at least m.gpu_milli free): every idle GPU milli
//     of the node is fragment for m;
//   - m fits: only the GPUs whose free milli is below m.gpu_milli are fragment for m.
// Node fragment = sum over m of p(m) x fragment(m). Memory is not part of it.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/pack/pack_problem.h"

namespace kraken::pack {

// The free resources of one node, as the measure reads them.
struct NodeFree {
  int64_t cpu_milli = 0;
  const int16_t* gpu_free = nullptr;  // gpu_count entries, milli
  int32_t gpu_count = 0;
  ModelMask model_bit = 0;  // the node's model bit; 0 for no known model
};

class FragmentMeter {
 public:
  explicit FragmentMeter(const std::vector<TypicalPod>& typical);

  // Probability-weighted fragment of the node, in GPU milli.
  double NodeFragment(const NodeFree& node) const;
  // Fragment for typical shape `index` alone (not weighted by its probability).
  int64_t ShapeFragment(size_t index, const NodeFree& node) const;

  const std::vector<TypicalPod>& typical() const { return typical_; }

 private:
  std::vector<TypicalPod> typical_;
  double cpu_only_probability_ = 0;  // CPU-only shapes see every idle GPU milli as fragment
  // GPU shapes only, as flat arrays for the inner loop.
  std::vector<int64_t> cpu_;
  std::vector<int32_t> milli_;
  std::vector<int32_t> num_;
  std::vector<ModelMask> models_;
  std::vector<double> probability_;
};

// Whether a pod (or typical shape) constrained to `wanted` models may use a node of
// model `node_bit` (the reference's rule: no constraint = any node; a constraint never
// matches a node of unknown model).
inline bool ModelAllowed(ModelMask wanted, ModelMask node_bit) {
  return wanted == kAnyModel || (wanted & node_bit) != 0;
}

}  // namespace kraken::pack
