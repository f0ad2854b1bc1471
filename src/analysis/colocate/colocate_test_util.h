// Test helpers: real inputs -> demand vectors -> co-location workloads.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/characterize.h"
#include "analysis/colocate/workload_inputs.h"
#include "analysis/demand.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "model/device_catalog.h"

namespace kraken::testing {

// The real H100 nvidia-smi capture: idle, load and MIG phases.
inline constexpr const char* kH100Capture =
    "nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt";

// Every demand of one real file (a sampler capture gives one per GPU and phase).
inline std::vector<WorkloadDemand> DemandsOfFile(const std::string& relative, const char* device_id = nullptr) {
  auto result = ImportFile(BuiltinImporters(), DataPath(relative));
  EXPECT_TRUE(result.ok()) << result.status().message();
  std::vector<WorkloadDemand> out;
  if (!result.ok()) return out;
  CharacterizeOptions options;
  if (device_id != nullptr) options.device = FindDeviceSpec(device_id);
  for (const Profile& p : *result)
    for (WorkloadDemand& d : DeriveDemands(p, CharacterizeWorkload(p, options))) out.push_back(std::move(d));
  return out;
}

// An Orion kernel list (V100, 80 SMs) as a co-location workload, named after the file.
inline ColocationWorkload OrionWorkload(const std::string& stem, const WorkloadSetup& setup = {}) {
  std::vector<WorkloadDemand> demands = DemandsOfFile("orion/" + stem + ".csv", "v100-pcie");
  EXPECT_EQ(demands.size(), 1u);
  if (demands.empty()) return {};
  demands[0].name = stem;
  return BuildColocationWorkload(demands[0], setup, ColocationParameters{});
}

}  // namespace kraken::testing
