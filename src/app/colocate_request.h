// `kraken colocate` (pair prediction and --optimize), GET /api/v1/colocate and the C API's
// kraken_colocate / kraken_colocate_optimize / kraken_predict_interference: the settings a
// request may give, their check, and the one path from profiles to demand vectors,
// co-location workloads and the document.
#pragma once

#include <string>
#include <vector>

#include "analysis/colocate/colocate.h"
#include "analysis/colocate/profile_demands.h"
#include "analysis/colocate/workload_inputs.h"
#include "app/profile_inputs.h"
#include "base/status.h"
#include "model/colocation.h"
#include "model/device.h"

namespace kraken {

struct ColocateSettings {
  std::string mode = "all";           // timeslice, mps, mig or all
  std::string sm_split;               // "60,40": MPS SM percentages per workload; empty = suggested
  std::string model = "measured";     // or class-table
  std::vector<std::string> qos;       // "NAME=X": highest acceptable slowdown of a workload
  std::vector<std::string> rates;     // "NAME=RPS": request rate of an inference workload
  std::string device;                 // the GPU they would share; empty = the one the inputs ran on
  bool explain = false;
  double timeslice_ms = 2.0;
  bool optimize = false;              // place the workloads on `gpus` GPUs instead of predicting one group
  int gpus = 0;
  std::string gpu_memory;             // per GPU for optimize, "80GiB"; empty = the device's
  double max_slowdown = 0;            // optimize: no workload's slowdown above this (0 = no limit)
  size_t max_per_gpu = 4;             // optimize: most workloads on one GPU
};

// The settings checked before any input is read (messages name the CLI flags).
struct ColocateSetup {
  const DeviceSpec* device = nullptr;  // null: the device the inputs ran on
  std::vector<SharingMode> modes;
};
Result<ColocateSetup> MakeColocateSetup(const ColocateSettings& settings);

// The settings of an interference prediction of two inputs: one sharing mode (timeslice,
// mps or mig), as `kraken colocate --mode MODE PRIMARY SECONDARY` predicts it.
Result<ColocateSettings> InterferenceSettings(ColocateSettings settings);

// Demand vectors of the loaded profiles, named after their sources and made unique; each
// origin names its input in messages. `device` as in ColocateSetup.
Result<ProfileDemands> DemandsOfProfiles(const LoadedProfiles& loaded, const DeviceSpec* device);

// The co-location workloads of the demands with the settings applied: QoS limits,
// request rates, the MPS split, the model's options and the device the prediction is for.
struct ColocationInputs {
  std::vector<ColocationWorkload> workloads;
  ColocateOptions options;
  const DeviceSpec* target = nullptr;     // null when no device is known
  std::vector<std::string> device_notes;  // why `target` was chosen
};
// Fails with the CLI's messages when there are too few workloads (two, or one for
// optimize) or a NAME=VALUE names none of them.
Result<ColocationInputs> PrepareColocation(const ProfileDemands& demands, const ColocateSettings& settings,
                                           const ColocateSetup& setup);

// The prediction (or with settings.optimize the placement) rendered.
Result<std::string> RenderColocate(const ProfileDemands& demands, const ColocateSettings& settings,
                                   const ColocateSetup& setup, bool json);

// Parses "NAME=VALUE" flags into per-workload values; NAME is a workload's name, its file
// name without extensions, or its 1-based position.
Status ApplyNamedValues(const std::vector<std::string>& flags, const std::string& flag_name,
                        const std::vector<WorkloadDemand>& demands, std::vector<double>* values);

// "80GiB", "16GB", "512MiB", "1e9" -> bytes.
Result<double> ParseByteSize(const std::string& text);

// "60,40" -> {0.6, 0.4} (percent of SMs per workload).
Result<std::vector<double>> ParseSmSplit(const std::string& text, size_t workloads);

// "timeslice", "mps", "mig" or "all".
Result<std::vector<SharingMode>> ParseSharingModes(const std::string& mode);

}  // namespace kraken
