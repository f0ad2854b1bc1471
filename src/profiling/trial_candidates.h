// The candidates of `kraken trial`: the GPUs and MIG instances a workload is tried on, each
// named by the UUID that CUDA_VISIBLE_DEVICES gets, with the share of a GPU it occupies
// (for the ranking's "throughput per GPU fraction"). Pure: the GPUs come from NVML.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/device.h"

namespace kraken::profiling {

// One GPU as NVML reported it, plus the UUIDs of its MIG devices (MigInstance has none):
// mig_uuids[i] belongs to device.mig_instances[i], "" when NVML did not answer.
struct GpuForTrial {
  DeviceInfo device;
  std::vector<std::string> mig_uuids;
};

struct TrialCandidate {
  std::string uuid;        // what CUDA_VISIBLE_DEVICES is set to: "GPU-..." or "MIG-..."
  int32_t gpu_index = -1;  // NVML index of the GPU (the parent GPU of a MIG instance)
  std::string device_name;  // the GPU's name as NVML reports it
  std::string catalog_id;   // "h100-sxm" (model/device_catalog.h); "" when not recognised
  std::string mig_profile;  // "1g.10gb", "1c.3g.71gb"; "" for a whole GPU
  int32_t gpu_instance_id = -1;
  int32_t compute_instance_id = -1;
  // Share of the GPU's compute the candidate gets: 1 for a whole GPU, compute slices / 7
  // for a MIG instance (model/mig_catalog.h). Absent when the catalog lacks the GPU's MIG
  // geometry or the profile: kraken does not guess a fraction.
  std::optional<double> gpu_fraction;
  std::string fraction_basis;  // how gpu_fraction was found, or why it is unknown
};

// `spec`: "auto" = every GPU that is not in MIG mode, and every MIG instance of those that
// are (a GPU in MIG mode runs CUDA work only inside its instances); else a comma list of
// GPU indexes, GPU UUIDs and MIG UUIDs, tried in the order given. Errors name the item:
// an unknown index or UUID, a duplicate, a GPU in MIG mode named as a whole, a candidate
// without a UUID. With auto, a device without a UUID (in a container NVML may not answer
// for devices it cannot open) is left out and described in `skipped`; an error only when
// nothing is left.
Result<std::vector<TrialCandidate>> EnumerateCandidates(const std::vector<GpuForTrial>& gpus, std::string_view spec,
                                                        std::vector<std::string>* skipped = nullptr);

// The fraction of a GPU model's compute that MIG profile `profile` ("3g.40gb", or a
// compute-instance profile "1c.3g.71gb") gets; nullopt with `basis` saying why when the
// catalog does not know it.
std::optional<double> MigGpuFraction(std::string_view catalog_id, std::string_view profile, std::string* basis);

}  // namespace kraken::profiling
