// RangeProfiler's per-context set-up and tear-down: the profiler initialized once, the
// device checked, the host object and config image made for the metrics, the range
// profiler enabled, configured and started on the context (the order of CUPTI's
// range_profiling sample, range_profiler.h), and disabled again. The launch callbacks and
// the collection of batches are in range_profiler.cc.
#include "collectors/cupti/range_profiler.h"

#include <algorithm>
#include <string>
#include <utility>

namespace kraken::cupti {

bool RangeProfiler::SetUp(ContextState* state) {
  if (!profiler_initialized_) {
    // At the first launch, not in Create: Create runs inside cuInit (the injection entry
    // point), and NVIDIA's profiler injection sample initializes the profiler once a
    // context exists.
    auto init = Zeroed<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    if (!Check(f_.ProfilerInitialize(&init), "cuptiProfilerInitialize")) return false;
    profiler_initialized_ = true;
  }
  uint32_t device = 0;
  if (!Check(f_.GetDeviceId(state->context, &device), "cuptiGetDeviceId")) return false;
  state->device = device;
  if (!DeviceSupported(state) || !SetUpHost(state)) return false;
  // Only now: the counter availability query (in SetUpHost) may fail while a range
  // profiler is enabled on the context (cupti_profiler_target.h, GetCounterAvailability).
  auto enable = Zeroed<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  enable.ctx = state->context;
  if (!Check(f_.Enable(&enable), "cuptiRangeProfilerEnable")) return false;
  state->object = enable.pRangeProfilerObject;
  auto data_size = Zeroed<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  data_size.pRangeProfilerObject = state->object;
  data_size.pMetricNames = metrics_.data();
  data_size.numMetrics = metrics_.size();
  data_size.maxNumOfRanges = static_cast<size_t>(image_ranges_);
  data_size.maxNumRangeTreeNodes = static_cast<uint32_t>(image_ranges_);  // must be >= maxNumOfRanges
  if (!Check(f_.GetCounterDataSize(&data_size), "cuptiRangeProfilerGetCounterDataSize")) return false;
  state->counter_data.resize(data_size.counterDataSize);
  return ConfigureAndStart(state);
}

bool RangeProfiler::DeviceSupported(ContextState* state) {
  // As NVIDIA's profiler injection sample does before profiling a new context: the reasons
  // (vGPU without profiling, MIG, confidential compute, ...) instead of a later refusal.
  auto params = Zeroed<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
  params.cuDevice = static_cast<CUdevice>(state->device);
  params.api = CUPTI_PROFILER_RANGE_PROFILING;
  if (!Check(f_.DeviceSupported(&params), "cuptiProfilerDeviceSupported")) return false;
  if (params.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return true;
  std::string why;
  for (auto [level, what] :
       {std::pair{params.architecture, "architecture"}, std::pair{params.sli, "SLI"}, std::pair{params.vGpu, "vGPU"},
        std::pair{params.confidentialCompute, "confidential compute"}, std::pair{params.cmp, "CMP"},
        std::pair{params.wsl, "WSL"}})
    if (level == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED || level == CUPTI_PROFILER_CONFIGURATION_DISABLED)
      why += std::string(why.empty() ? "" : ", ") + what +
             (level == CUPTI_PROFILER_CONFIGURATION_DISABLED ? " (profiling disabled)" : "");
  Fail("CUPTI cannot profile device " + std::to_string(state->device) + (why.empty() ? "" : ": " + why));
  return false;
}

bool RangeProfiler::SetUpHost(ContextState* state) {
  auto chip = Zeroed<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<size_t>(state->device);
  if (!Check(f_.DeviceGetChipName(&chip), "cuptiDeviceGetChipName")) return false;
  state->chip = chip.pChipName != nullptr ? chip.pChipName : "";
  auto availability =
      Zeroed<CUpti_Profiler_GetCounterAvailability_Params>(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  availability.ctx = state->context;
  if (!Check(f_.GetCounterAvailability(&availability), "cuptiProfilerGetCounterAvailability")) return false;
  state->availability_image.assign(availability.counterAvailabilityImageSize, 0);
  availability.pCounterAvailabilityImage = state->availability_image.data();
  if (!Check(f_.GetCounterAvailability(&availability), "cuptiProfilerGetCounterAvailability")) return false;
  auto host = Zeroed<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host.pChipName = chip.pChipName;
  host.pCounterAvailabilityImage = state->availability_image.data();
  if (!Check(f_.HostInitialize(&host), "cuptiProfilerHostInitialize")) return false;
  state->host = host.pHostObject;
  auto add = Zeroed<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = state->host;
  add.ppMetricNames = metrics_.data();
  add.numMetrics = metrics_.size();
  const CUptiResult added = f_.HostConfigAddMetrics(&add);
  if (added == CUPTI_ERROR_INVALID_METRIC_NAME) {
    Fail("metrics not supported on " + (state->chip.empty() ? std::string("this GPU") : state->chip) + ": " +
         UnsupportedMetrics(state));
    return false;
  }
  if (!Check(added, "cuptiProfilerHostConfigAddMetrics")) return false;
  auto size = Zeroed<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = state->host;
  if (!Check(f_.HostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize")) return false;
  state->config_image.resize(size.configImageSize);
  auto image = Zeroed<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  image.pHostObject = state->host;
  image.configImageSize = state->config_image.size();
  image.pConfigImage = state->config_image.data();
  if (!Check(f_.HostGetConfigImage(&image), "cuptiProfilerHostGetConfigImage")) return false;
  auto passes = Zeroed<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  passes.configImageSize = state->config_image.size();
  passes.pConfigImage = state->config_image.data();
  if (Check(f_.HostGetNumOfPasses(&passes), "cuptiProfilerHostGetNumOfPasses"))
    summary_.passes = std::max(summary_.passes, static_cast<int64_t>(passes.numOfPasses));
  return summary_.error.empty();
}

std::string RangeProfiler::UnsupportedMetrics(ContextState* state) {
  // cuptiProfilerHostConfigAddMetrics refuses the whole list for one unknown name without
  // saying which: the properties query, per name with its rollup, does
  // (cupti_profiler_host.h). Asked only after that refusal, so that a name this query
  // alone refused cannot cost the counters.
  std::string unsupported;
  for (const char* name : metrics_) {
    auto properties = Zeroed<CUpti_Profiler_Host_GetMetricProperties_Params>(
        CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
    properties.pHostObject = state->host;
    properties.pMetricName = name;
    if (f_.HostGetMetricProperties(&properties) == CUPTI_ERROR_INVALID_METRIC_NAME)
      unsupported += (unsupported.empty() ? "" : ", ") + std::string(name);
  }
  return unsupported.empty() ? "one of " + std::to_string(metrics_.size()) + " (CUPTI named none)" : unsupported;
}

void RangeProfiler::TearDown(ContextState* state) {
  // Errors are ignored here: nothing is left to collect from this context.
  if (state->object != nullptr) {
    auto disable = Zeroed<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    disable.pRangeProfilerObject = state->object;
    f_.Disable(&disable);
    state->object = nullptr;
  }
  if (state->host != nullptr) {
    auto deinit =
        Zeroed<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    deinit.pHostObject = state->host;
    f_.HostDeinitialize(&deinit);
    state->host = nullptr;
  }
  state->running = false;
  state->unlaunched_work_calls = 0;
}

bool RangeProfiler::ConfigureAndStart(ContextState* state) {
  auto init = Zeroed<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pRangeProfilerObject = state->object;
  init.counterDataSize = state->counter_data.size();
  init.pCounterData = state->counter_data.data();
  if (!Check(f_.CounterDataImageInitialize(&init), "cuptiRangeProfilerCounterDataImageInitialize")) return false;
  auto config = Zeroed<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  config.pRangeProfilerObject = state->object;
  config.configSize = state->config_image.size();
  config.pConfig = state->config_image.data();
  config.counterDataImageSize = state->counter_data.size();
  config.pCounterDataImage = state->counter_data.data();
  config.range = CUPTI_AutoRange;
  config.replayMode = CUPTI_KernelReplay;
  config.maxRangesPerPass = static_cast<size_t>(image_ranges_);
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.targetNestingLevel = 1;
  if (!Check(f_.SetConfig(&config), "cuptiRangeProfilerSetConfig")) return false;
  auto start = Zeroed<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  start.pRangeProfilerObject = state->object;
  if (!Check(f_.Start(&start), "cuptiRangeProfilerStart")) return false;
  state->running = true;
  return true;
}

}  // namespace kraken::cupti
