// MIG (Multi-Instance GPU) geometries: which GPU-instance profiles a GPU model offers,
// how much compute and memory each gets, and where on the GPU each may be placed. The
// MIG planner packs workloads onto GPUs with these tables; they are facts from NVIDIA's
// documentation, checked in tests against real nvidia-smi captures.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kraken {

// One GPU-instance profile ("3g.40gb"): a GI with its default full-size compute instance.
struct MigProfileSpec {
  std::string name;       // as nvidia-smi prints it, without the "MIG " prefix
  int profile_id = -1;    // GPU-instance profile id (nvidia-smi mig -lgip "ID")
  int compute_slices = 0;  // the "g" count: sevenths of the GPU's MIG compute
  int memory_slices = 0;   // eighths of the memory; the placement "size" of -lgipp
  int sm_count = 0;        // SMs of the instance (-lgip "SM")
  int64_t memory_mib = 0;  // memory of the instance as -lgip prints it (GiB x 1024)
  int max_instances = 0;   // -lgip "Instances Total"
  // Memory-slice indices where an instance may start (-lgipp "Placements: {...}").
  std::vector<int> starts;
};

struct MigGeometry {
  std::string device_id;   // catalog id of the GPU model (model/device_catalog.h)
  std::string name;        // "NVIDIA H100 SXM5 80GB"
  int full_gpu_sm_count = 0;  // SMs with MIG disabled; compute shares are relative to it
  int memory_slice_count = 8;
  int compute_slice_count = 7;
  std::vector<MigProfileSpec> profiles;  // smallest first
  std::string source;
};

// The geometries kraken knows: A100-40GB, A100-80GB, H100-80GB and H200-141GB.
std::span<const MigGeometry> MigGeometries();

// By device id ("h100-sxm", "a100-80gb-sxm"; the PCIe variants of the same memory size
// share the geometry) or nullptr.
const MigGeometry* FindMigGeometry(std::string_view device_id);

// A profile by name ("3g.40gb"); a compute-instance name ("2c.3g.71gb") finds its GPU
// instance's profile. nullptr when the geometry has no such profile.
const MigProfileSpec* FindMigProfile(const MigGeometry& geometry, std::string_view name);

}  // namespace kraken
