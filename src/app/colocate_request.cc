#include "app/colocate_request.h"

#include <algorithm>

#include "analysis/colocate/placement.h"
#include "model/device_catalog.h"
#include "report/colocation_output.h"

namespace kraken {
namespace {

// A request without enough workloads, with the inputs that were skipped and why.
Status TooFewWorkloads(const ProfileDemands& demands) {
  std::string skipped;
  for (const std::string& note : demands.notes)
    if (note.find("(skipped)") != std::string::npos) skipped += "; " + note;
  return InvalidInput("colocate needs at least two workloads, the inputs give " +
                      std::to_string(demands.demands.size()) + skipped);
}

Result<std::string> RenderPlacement(const std::vector<ColocationWorkload>& workloads, const ColocateSettings& settings,
                                    const ColocateOptions& options, const ColocationOutputOptions& output,
                                    const DeviceSpec* target, bool json) {
  PlacementOptions placement;
  placement.colocate = options;
  placement.gpus = settings.gpus;
  placement.max_slowdown = settings.max_slowdown;
  placement.max_per_gpu = std::max<size_t>(1, settings.max_per_gpu);
  if (!settings.gpu_memory.empty()) {
    KRAKEN_ASSIGN_OR_RETURN(placement.gpu_memory_bytes, ParseByteSize(settings.gpu_memory));
  }
  PlacementResult result = OptimizePlacement(workloads, placement);
  ColocationReport inputs;
  inputs.model = "measured";
  inputs.workloads = workloads;
  inputs.parameters = DescribeParameters(options.params, target);
  inputs.assumptions = ColocationAssumptions();
  return json ? RenderPlacementJson(result, inputs, output) : RenderPlacementText(result, inputs, output);
}

}  // namespace

Result<ColocateSetup> MakeColocateSetup(const ColocateSettings& settings) {
  ColocateSetup setup;
  if (!settings.device.empty()) {
    setup.device = FindDeviceSpec(settings.device);
    if (setup.device == nullptr)
      return InvalidInput("unknown device '" + settings.device + "' (see `kraken devices` for the catalog)");
  }
  KRAKEN_ASSIGN_OR_RETURN(setup.modes, ParseSharingModes(settings.mode));
  if (settings.model != "measured" && settings.model != "class-table")
    return InvalidInput("--model must be measured or class-table, got '" + settings.model + "'");
  if (settings.timeslice_ms <= 0) return InvalidInput("--timeslice-ms must be positive");
  if (settings.optimize && settings.gpus <= 0) return InvalidInput("--optimize needs --gpus N (N >= 1)");
  if (settings.optimize && settings.model == "class-table")
    return InvalidInput("--optimize uses the measured model (predicted slowdowns), not class-table");
  return setup;
}

Result<ColocateSettings> InterferenceSettings(ColocateSettings settings) {
  if (settings.mode != "timeslice" && settings.mode != "mps" && settings.mode != "mig")
    return InvalidInput("mode must be timeslice, mps or mig, got '" + settings.mode + "'");
  settings.optimize = false;
  return settings;
}

Result<ProfileDemands> DemandsOfProfiles(const LoadedProfiles& loaded, const DeviceSpec* device) {
  ProfileDemands out;
  for (size_t i = 0; i < loaded.profiles.size(); ++i)
    KRAKEN_RETURN_IF_ERROR(AppendProfileDemands(loaded.profiles[i], loaded.origins[i], device, &out));
  FinishProfileDemands(&out);
  return out;
}

Result<ColocationInputs> PrepareColocation(const ProfileDemands& loaded, const ColocateSettings& settings,
                                           const ColocateSetup& setup) {
  const std::vector<WorkloadDemand>& demands = loaded.demands;
  if (settings.optimize && demands.empty()) return InvalidInput("--optimize: the inputs give no workload");
  if (!settings.optimize && demands.size() < 2) return TooFewWorkloads(loaded);
  std::vector<double> qos, rates;
  KRAKEN_RETURN_IF_ERROR(ApplyNamedValues(settings.qos, "--qos", demands, &qos));
  KRAKEN_RETURN_IF_ERROR(ApplyNamedValues(settings.rates, "--rate", demands, &rates));

  ColocationInputs inputs;
  inputs.options.params.timeslice_s = settings.timeslice_ms / 1e3;
  inputs.options.modes = setup.modes;
  inputs.options.model = settings.model;
  inputs.options.device = setup.device;
  if (!settings.sm_split.empty()) {
    KRAKEN_ASSIGN_OR_RETURN(inputs.options.sm_split, ParseSmSplit(settings.sm_split, demands.size()));
  }
  for (size_t i = 0; i < demands.size(); ++i) {
    WorkloadSetup setup_of_workload;
    setup_of_workload.max_slowdown = qos[i];
    setup_of_workload.request_rate_per_s = rates[i];
    inputs.workloads.push_back(BuildColocationWorkload(demands[i], setup_of_workload, inputs.options.params));
  }
  inputs.target = ResolveColocationDevice(inputs.workloads, setup.device, &inputs.device_notes);
  return inputs;
}

Result<std::string> RenderColocate(const ProfileDemands& loaded, const ColocateSettings& settings,
                                   const ColocateSetup& setup, bool json) {
  KRAKEN_ASSIGN_OR_RETURN(ColocationInputs inputs, PrepareColocation(loaded, settings, setup));
  ColocationOutputOptions output;
  output.explain = settings.explain;
  output.notes = loaded.notes;
  if (inputs.target != nullptr) output.device = inputs.target->id + " (" + inputs.target->name + ")";
  if (settings.optimize)
    return RenderPlacement(inputs.workloads, settings, inputs.options, output, inputs.target, json);
  ColocationReport report = PredictColocation(inputs.workloads, inputs.options);
  return json ? RenderColocationJson(report, output) : RenderColocationText(report, output);
}

}  // namespace kraken
