// `kraken mig apply`: one GPU's MIG layout made what a plan says, through NVML: the GPU must
// be in MIG mode and run no process; the compute and GPU instances it has are destroyed and
// the plan's are created (largest first), each GPU instance with one compute instance over
// all its slices. Nothing is changed when the layout is already the plan's, or in a dry run
// (which still reads the GPU, to say what it would do).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "collectors/nvml/nvml_library.h"

namespace kraken::nvml {

// One MIG instance the plan asks for.
struct MigInstanceRequest {
  std::string profile;              // "3g.40gb", for messages
  unsigned int gi_profile = 0;      // NVML_GPU_INSTANCE_PROFILE_*
  unsigned int ci_profile = 0;      // NVML_COMPUTE_INSTANCE_PROFILE_* covering all its slices
  unsigned int expected_id = 0;     // the profile id kraken's MIG table gives (-lgip ID)
};

struct MigApplyOptions {
  bool dry_run = false;
};

// Applies `wanted` (empty with `mig_enabled` false: no instance at all) to GPU `index`;
// returns the steps taken (or that would be taken), one line each. A refusal (MIG mode
// off, processes running, a profile id the driver numbers differently) is InvalidInput
// naming the GPU and why.
Result<std::vector<std::string>> ApplyMigLayout(NvmlApi& nvml, unsigned int index,
                                                const std::vector<MigInstanceRequest>& wanted,
                                                const MigApplyOptions& options);

}  // namespace kraken::nvml
