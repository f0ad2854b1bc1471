#include "analysis/pack/fragment.h"

namespace kraken::pack {

FragmentMeter::FragmentMeter(const std::vector<TypicalPod>& typical) : typical_(typical) {
  for (const TypicalPod& t : typical_) {
    if (t.num_gpu == 0) {
      cpu_only_probability_ += t.probability;
      continue;
    }
    cpu_.push_back(t.cpu_milli);
    milli_.push_back(t.gpu_milli);
    num_.push_back(t.num_gpu);
    models_.push_back(t.models);
    probability_.push_back(t.probability);
  }
}

double FragmentMeter::NodeFragment(const NodeFree& node) const {
  int64_t idle = 0;
  for (int32_t g = 0; g < node.gpu_count; ++g) idle += node.gpu_free[g];
  if (idle == 0) return 0;
  double fragment = cpu_only_probability_ * static_cast<double>(idle);
  const size_t shapes = milli_.size();
  for (size_t m = 0; m < shapes; ++m) {
    int64_t shape_fragment = idle;
    if (node.cpu_milli >= cpu_[m] && ModelAllowed(models_[m], node.model_bit)) {
      const int32_t milli = milli_[m];
      int32_t usable = 0;
      int64_t below = 0;
      for (int32_t g = 0; g < node.gpu_count; ++g) {
        const int32_t free = node.gpu_free[g];
        if (free >= milli)
          ++usable;
        else
          below += free;
      }
      if (usable >= num_[m]) shape_fragment = below;
    }
    fragment += probability_[m] * static_cast<double>(shape_fragment);
  }
  return fragment;
}

int64_t FragmentMeter::ShapeFragment(size_t index, const NodeFree& node) const {
  int64_t idle = 0;
  for (int32_t g = 0; g < node.gpu_count; ++g) idle += node.gpu_free[g];
  const TypicalPod& t = typical_[index];
  if (t.num_gpu == 0 || node.cpu_milli < t.cpu_milli || !ModelAllowed(t.models, node.model_bit)) return idle;
  int32_t usable = 0;
  int64_t below = 0;
  for (int32_t g = 0; g < node.gpu_count; ++g) {
    if (node.gpu_free[g] >= t.gpu_milli)
      ++usable;
    else
      below += node.gpu_free[g];
  }
  return usable >= t.num_gpu ? below : idle;
}

}  // namespace kraken::pack
