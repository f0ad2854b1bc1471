// libcupti loaded with dlopen and its entry points resolved with dlsym: nothing from CUDA
// is linked at build time, so one build serves any driver and any libcupti since CUDA
// 11.6. The types come from the toolkit's headers (decltype of the declarations).
#pragma once

#include <cupti.h>

#include <cstdint>
#include <string>

#include "collectors/cupti/cupti_locator.h"

namespace kraken::cupti {

// NVTX's injection entry point (nvToolsExt): libcupti implements it; the tracer forwards.
using NvtxGetExportTable = const void* (*)(uint32_t export_table_id);
using NvtxInitializeInjection = int (*)(NvtxGetExportTable get_export_table);

struct CuptiFunctions {
  // Required: without any of them the library is refused.
  decltype(&cuptiGetVersion) GetVersion = nullptr;
  decltype(&cuptiGetResultString) GetResultString = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) RegisterCallbacks = nullptr;
  decltype(&cuptiActivityEnable) Enable = nullptr;
  decltype(&cuptiActivityDisable) Disable = nullptr;
  decltype(&cuptiActivityGetNextRecord) GetNextRecord = nullptr;
  decltype(&cuptiActivityFlushAll) FlushAll = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) GetNumDroppedRecords = nullptr;
  decltype(&cuptiGetTimestamp) GetTimestamp = nullptr;
  // Optional (newer libcupti): NULL when absent.
  decltype(&cuptiActivityEnableRuntimeApi) EnableRuntimeApi = nullptr;  // CUDA 12.6+
  decltype(&cuptiActivityEnableDriverApi) EnableDriverApi = nullptr;
  decltype(&cuptiGetCallbackName) GetCallbackName = nullptr;
  decltype(&cuptiSetThreadIdType) SetThreadIdType = nullptr;
  decltype(&cuptiActivityEnableAndDump) EnableAndDump = nullptr;  // device/context records made earlier
  decltype(&cuptiActivityEnableHWTrace) EnableHWTrace = nullptr;  // CUPTI 12.8+: Blackwell HW timestamps
  decltype(&cuptiActivitySetAttribute) SetAttribute = nullptr;  // CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER
  decltype(&cuptiSubscribe) Subscribe = nullptr;
  decltype(&cuptiUnsubscribe) Unsubscribe = nullptr;
  decltype(&cuptiEnableCallback) EnableCallback = nullptr;
  decltype(&cuptiEnableDomain) EnableDomain = nullptr;  // the detach's API-exit callbacks
  decltype(&cuptiFinalize) Finalize = nullptr;          // detaches CUPTI from the process
  NvtxInitializeInjection InitializeInjectionNvtx2 = nullptr;
  NvtxInitializeInjection InitializeInjectionNvtx = nullptr;

  // "CUPTI_ERROR_UNKNOWN (999)".
  std::string ErrorText(CUptiResult result) const;
};

struct LoadedCupti {
  void* handle = nullptr;
  std::string path;   // what was dlopen'ed
  std::string where;  // which rule found it
  uint32_t version = 0;  // cuptiGetVersion: 130001 for CUDA 13.0 U1, 26 for 12.8
  CuptiFunctions functions;
};

// Reuses a libcupti the process has loaded, else tries CuptiCandidates(env) in order.
// False with *error = one readable sentence naming what was tried when none loads.
bool LoadCupti(const LocatorEnvironment& env, LoadedCupti* loaded, std::string* error);

}  // namespace kraken::cupti
