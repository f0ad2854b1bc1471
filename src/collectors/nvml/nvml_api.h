// The part of NVIDIA's NVML C API that kraken uses, declared by kraken itself from the
// public NVML API reference (docs.nvidia.com/deploy/nvml-api) so that no GPU SDK is needed
// to build. Only names, numeric values and struct layouts are restated here; they must
// match the driver's libnvidia-ml.so.1 byte for byte, so do not reorder fields.
//
// Everything is at global scope with NVML's own spelling because these are C ABI facts
// shared by the loader (which dlopens the driver) and the replay library (which exports
// the same symbols).
#pragma once

#include <cstdint>

// Every NVML function returns one of these (a C enum, i.e. an int).
using nvmlReturn_t = int;
inline constexpr nvmlReturn_t NVML_SUCCESS = 0;
inline constexpr nvmlReturn_t NVML_ERROR_UNINITIALIZED = 1;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_ARGUMENT = 2;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
inline constexpr nvmlReturn_t NVML_ERROR_NO_PERMISSION = 4;
inline constexpr nvmlReturn_t NVML_ERROR_ALREADY_INITIALIZED = 5;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_FOUND = 6;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_POWER = 8;
inline constexpr nvmlReturn_t NVML_ERROR_DRIVER_NOT_LOADED = 9;
inline constexpr nvmlReturn_t NVML_ERROR_TIMEOUT = 10;
inline constexpr nvmlReturn_t NVML_ERROR_IRQ_ISSUE = 11;
inline constexpr nvmlReturn_t NVML_ERROR_LIBRARY_NOT_FOUND = 12;
inline constexpr nvmlReturn_t NVML_ERROR_FUNCTION_NOT_FOUND = 13;
inline constexpr nvmlReturn_t NVML_ERROR_CORRUPTED_INFOROM = 14;
inline constexpr nvmlReturn_t NVML_ERROR_GPU_IS_LOST = 15;
inline constexpr nvmlReturn_t NVML_ERROR_RESET_REQUIRED = 16;
inline constexpr nvmlReturn_t NVML_ERROR_OPERATING_SYSTEM = 17;
inline constexpr nvmlReturn_t NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18;
inline constexpr nvmlReturn_t NVML_ERROR_IN_USE = 19;
inline constexpr nvmlReturn_t NVML_ERROR_MEMORY = 20;
inline constexpr nvmlReturn_t NVML_ERROR_NO_DATA = 21;
inline constexpr nvmlReturn_t NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_RESOURCES = 23;
inline constexpr nvmlReturn_t NVML_ERROR_FREQ_NOT_SUPPORTED = 24;
inline constexpr nvmlReturn_t NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25;
inline constexpr nvmlReturn_t NVML_ERROR_DEPRECATED = 26;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_READY = 27;
inline constexpr nvmlReturn_t NVML_ERROR_GPU_NOT_FOUND = 28;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_STATE = 29;
inline constexpr nvmlReturn_t NVML_ERROR_UNKNOWN = 999;

// Opaque handles. A MIG device handle has the same type as a GPU handle.
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
struct nvmlEventSet_st;
using nvmlEventSet_t = nvmlEventSet_st*;
struct nvmlGpmSample_st;
using nvmlGpmSample_t = nvmlGpmSample_st*;
struct nvmlGpuInstance_st;
using nvmlGpuInstance_t = nvmlGpuInstance_st*;
struct nvmlComputeInstance_st;
using nvmlComputeInstance_t = nvmlComputeInstance_st*;

// MIG GPU-instance profiles (nvmlDeviceGetGpuInstanceProfileInfo's `profile`): by compute
// slices; REV2 is the 1-slice profile with twice the memory (1g.20gb on an H100).
inline constexpr unsigned int NVML_GPU_INSTANCE_PROFILE_1_SLICE = 0;
inline constexpr unsigned int NVML_GPU_INSTANCE_PROFILE_2_SLICE = 1;
inline constexpr unsigned int NVML_GPU_INSTANCE_PROFILE_3_SLICE = 2;
inline constexpr unsigned int NVML_GPU_INSTANCE_PROFILE_4_SLICE = 3;
inline constexpr unsigned int NVML_GPU_INSTANCE_PROFILE_7_SLICE = 4;
inline constexpr unsigned int NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2 = 9;
// Compute-instance profiles (nvmlGpuInstanceGetComputeInstanceProfileInfo), and the engine
// profile every kraken compute instance uses.
inline constexpr unsigned int NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE = 0;
inline constexpr unsigned int NVML_COMPUTE_INSTANCE_PROFILE_2_SLICE = 1;
inline constexpr unsigned int NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE = 2;
inline constexpr unsigned int NVML_COMPUTE_INSTANCE_PROFILE_4_SLICE = 3;
inline constexpr unsigned int NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE = 4;
inline constexpr unsigned int NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED = 0;

// Versioned structs carry sizeof(struct) | version << 24 in their first field
// (NVML_STRUCT_VERSION); a wrong value makes the call fail with ARGUMENT_VERSION_MISMATCH.
constexpr unsigned int NvmlStructVersion(unsigned int size, unsigned int version) { return size | (version << 24); }

// Buffer sizes NVML guarantees to be large enough.
inline constexpr unsigned int NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;
inline constexpr unsigned int NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96;
inline constexpr unsigned int NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80;
inline constexpr unsigned int NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE = 80;
inline constexpr unsigned int NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32;
inline constexpr unsigned int NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE = 16;
// Links a device may have (NVML 13 raised it from 18 to 36).
inline constexpr unsigned int NVML_NVLINK_MAX_LINKS = 36;

// nvmlClockType_t
inline constexpr int NVML_CLOCK_GRAPHICS = 0;
inline constexpr int NVML_CLOCK_SM = 1;
inline constexpr int NVML_CLOCK_MEM = 2;
// nvmlTemperatureSensors_t
inline constexpr int NVML_TEMPERATURE_GPU = 0;
// nvmlPcieUtilCounter_t
inline constexpr int NVML_PCIE_UTIL_TX_BYTES = 0;
inline constexpr int NVML_PCIE_UTIL_RX_BYTES = 1;
// nvmlEnableState_t
inline constexpr int NVML_FEATURE_DISABLED = 0;
inline constexpr int NVML_FEATURE_ENABLED = 1;
inline constexpr unsigned int NVML_DEVICE_MIG_ENABLE = 1;

// nvmlDeviceArchitecture_t
inline constexpr unsigned int NVML_DEVICE_ARCH_KEPLER = 2;
inline constexpr unsigned int NVML_DEVICE_ARCH_MAXWELL = 3;
inline constexpr unsigned int NVML_DEVICE_ARCH_PASCAL = 4;
inline constexpr unsigned int NVML_DEVICE_ARCH_VOLTA = 5;
inline constexpr unsigned int NVML_DEVICE_ARCH_TURING = 6;
inline constexpr unsigned int NVML_DEVICE_ARCH_AMPERE = 7;
inline constexpr unsigned int NVML_DEVICE_ARCH_ADA = 8;
inline constexpr unsigned int NVML_DEVICE_ARCH_HOPPER = 9;
inline constexpr unsigned int NVML_DEVICE_ARCH_BLACKWELL = 10;
inline constexpr unsigned int NVML_DEVICE_ARCH_RUBIN = 13;

// nvmlGpuTopologyLevel_t: how far apart two GPUs are on the PCIe tree.
inline constexpr int NVML_TOPOLOGY_INTERNAL = 0;
inline constexpr int NVML_TOPOLOGY_SINGLE = 10;
inline constexpr int NVML_TOPOLOGY_MULTIPLE = 20;
inline constexpr int NVML_TOPOLOGY_HOSTBRIDGE = 30;
inline constexpr int NVML_TOPOLOGY_NODE = 40;
inline constexpr int NVML_TOPOLOGY_SYSTEM = 50;

// Field ids for nvmlDeviceGetFieldValues.
inline constexpr unsigned int NVML_FI_DEV_ECC_SBE_VOL_TOTAL = 3;  // corrected (single bit), since boot
inline constexpr unsigned int NVML_FI_DEV_ECC_DBE_VOL_TOTAL = 4;  // uncorrected (double bit), since boot
inline constexpr unsigned int NVML_FI_DEV_MEMORY_TEMP = 82;
inline constexpr unsigned int NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION = 83;
inline constexpr unsigned int NVML_FI_DEV_NVLINK_LINK_COUNT = 91;
inline constexpr unsigned int NVML_FI_DEV_PCIE_REPLAY_COUNTER = 94;
inline constexpr unsigned int NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX = 138;  // KiB, counter
inline constexpr unsigned int NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX = 139;  // KiB, counter
// Health counters (nvml.h of NVML 12/13: "Page Retirement", "NvLink ... Error Counters",
// "Row Remapper"). Retired pages: pre-Ampere GPUs; remapped rows: Ampere and newer. The
// *_PENDING and REMAPPED_FAILURE fields are flags, 1 = yes.
inline constexpr unsigned int NVML_FI_DEV_RETIRED_SBE = 29;      // pages retired for single-bit errors
inline constexpr unsigned int NVML_FI_DEV_RETIRED_DBE = 30;      // pages retired for double-bit errors
inline constexpr unsigned int NVML_FI_DEV_RETIRED_PENDING = 31;  // pages pending retirement
inline constexpr unsigned int NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL = 38;  // flow-control CRC errors
inline constexpr unsigned int NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL = 45;
inline constexpr unsigned int NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL = 52;
inline constexpr unsigned int NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL = 59;
inline constexpr unsigned int NVML_FI_DEV_REMAPPED_COR = 142;      // rows remapped for correctable errors
inline constexpr unsigned int NVML_FI_DEV_REMAPPED_UNC = 143;      // rows remapped for uncorrectable errors
inline constexpr unsigned int NVML_FI_DEV_REMAPPED_PENDING = 144;  // a remap waits for a GPU reset
inline constexpr unsigned int NVML_FI_DEV_REMAPPED_FAILURE = 145;  // a remap failed
// scopeId for NVLink fields: this value sums over all links.
inline constexpr unsigned int NVML_NVLINK_SCOPE_ALL_LINKS = 0xFFFFFFFFu;

// nvmlValueType_t
inline constexpr int NVML_VALUE_TYPE_DOUBLE = 0;
inline constexpr int NVML_VALUE_TYPE_UNSIGNED_INT = 1;
inline constexpr int NVML_VALUE_TYPE_UNSIGNED_LONG = 2;
inline constexpr int NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3;
inline constexpr int NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4;
inline constexpr int NVML_VALUE_TYPE_SIGNED_INT = 5;
inline constexpr int NVML_VALUE_TYPE_UNSIGNED_SHORT = 6;

// Event types for nvmlDeviceRegisterEvents.
inline constexpr unsigned long long nvmlEventTypeXidCriticalError = 0x8ULL;

// GPM metric ids (Hopper and newer); values are percentages 0..100.
inline constexpr unsigned int NVML_GPM_METRIC_GRAPHICS_UTIL = 1;
inline constexpr unsigned int NVML_GPM_METRIC_SM_UTIL = 2;
inline constexpr unsigned int NVML_GPM_METRIC_SM_OCCUPANCY = 3;
inline constexpr unsigned int NVML_GPM_METRIC_ANY_TENSOR_UTIL = 5;
inline constexpr unsigned int NVML_GPM_METRIC_DRAM_BW_UTIL = 10;
inline constexpr unsigned int NVML_GPM_METRIC_FP64_UTIL = 11;
inline constexpr unsigned int NVML_GPM_METRIC_FP32_UTIL = 12;
inline constexpr unsigned int NVML_GPM_METRIC_FP16_UTIL = 13;
inline constexpr unsigned int NVML_GPM_METRIC_MAX = 98;  // size of nvmlGpmMetricsGet_t::metrics
inline constexpr unsigned int NVML_GPM_METRICS_GET_VERSION = 1;
inline constexpr unsigned int NVML_GPM_SUPPORT_VERSION = 1;

// ---- Structs (layouts as in NVML 13.x) ----

struct nvmlGpuInstanceProfileInfo_t {
  unsigned int id;  // the profile id CreateGpuInstance takes (-lgip "ID")
  unsigned int isP2pSupported;
  unsigned int sliceCount;
  unsigned int instanceCount;
  unsigned int multiprocessorCount;
  unsigned int copyEngineCount;
  unsigned int decoderCount;
  unsigned int encoderCount;
  unsigned int jpegCount;
  unsigned int ofaCount;
  unsigned long long memorySizeMB;
};

struct nvmlComputeInstanceProfileInfo_t {
  unsigned int id;
  unsigned int sliceCount;
  unsigned int instanceCount;
  unsigned int multiprocessorCount;
  unsigned int sharedCopyEngineCount;
  unsigned int sharedDecoderCount;
  unsigned int sharedEncoderCount;
  unsigned int sharedJpegCount;
  unsigned int sharedOfaCount;
};

struct nvmlPciInfo_t {
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];  // "0000:00:09.0"
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;     // device id << 16 | vendor id
  unsigned int pciSubSystemId;
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];  // "00000000:00:09.0"; v1 leaves it unset
};

struct nvmlUtilization_t {
  unsigned int gpu;     // % of the last sample period a kernel ran
  unsigned int memory;  // % of it device memory was read or written
};

struct nvmlMemory_t {  // v1
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct nvmlMemory_v2_t {
  unsigned int version;  // nvmlMemory_v2
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
};
inline constexpr unsigned int nvmlMemory_v2 = NvmlStructVersion(sizeof(nvmlMemory_v2_t), 2);

struct nvmlTemperature_t {  // v1, for nvmlDeviceGetTemperatureV
  unsigned int version;     // nvmlTemperature_v1
  int sensorType;
  int temperature;
};
inline constexpr unsigned int nvmlTemperature_v1 = NvmlStructVersion(sizeof(nvmlTemperature_t), 1);

// Filled by nvmlDeviceGetComputeRunningProcesses (no suffix).
struct nvmlProcessInfo_v1_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;
};
// Filled by the _v2 and _v3 functions (nvmlProcessInfo_t in NVML 12/13).
struct nvmlProcessInfo_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;      // 0xFFFFFFFF when not MIG
  unsigned int computeInstanceId;  // 0xFFFFFFFF when not MIG
};
inline constexpr unsigned int NVML_NO_INSTANCE_ID = 0xFFFFFFFFu;

struct nvmlProcessUtilizationSample_t {
  unsigned int pid;
  unsigned long long timeStamp;  // CPU time in µs
  unsigned int smUtil;
  unsigned int memUtil;
  unsigned int encUtil;
  unsigned int decUtil;
};

struct nvmlDeviceAttributes_t {
  unsigned int multiprocessorCount;
  unsigned int sharedCopyEngineCount;
  unsigned int sharedDecoderCount;
  unsigned int sharedEncoderCount;
  unsigned int sharedJpegCount;
  unsigned int sharedOfaCount;
  unsigned int gpuInstanceSliceCount;
  unsigned int computeInstanceSliceCount;
  unsigned long long memorySizeMB;
};

union nvmlValue_t {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
  unsigned short usVal;
};

struct nvmlFieldValue_t {
  unsigned int fieldId;  // in
  unsigned int scopeId;  // in: link id for NVLink fields
  long long timestamp;   // µs since 1970
  long long latencyUsec;
  int valueType;         // nvmlValueType_t
  nvmlReturn_t nvmlReturn;  // per field: the value is valid only when NVML_SUCCESS
  nvmlValue_t value;
};

struct nvmlEventData_t {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;  // the XID for nvmlEventTypeXidCriticalError
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

struct nvmlGpmMetric_t {
  unsigned int metricId;    // in
  nvmlReturn_t nvmlReturn;  // out, per metric
  double value;             // out
  struct {
    char* shortName;
    char* longName;
    char* unit;
  } metricInfo;
};

struct nvmlGpmMetricsGet_t {
  unsigned int version;  // NVML_GPM_METRICS_GET_VERSION
  unsigned int numMetrics;
  nvmlGpmSample_t sample1;
  nvmlGpmSample_t sample2;
  nvmlGpmMetric_t metrics[NVML_GPM_METRIC_MAX];
};

struct nvmlGpmSupport_t {
  unsigned int version;  // NVML_GPM_SUPPORT_VERSION
  unsigned int isSupportedDevice;
};

// Layout checks against the sizes of the NVML 13 header on LP64.
static_assert(sizeof(nvmlPciInfo_t) == 68);
static_assert(sizeof(nvmlMemory_v2_t) == 40 && nvmlMemory_v2 == 0x02000028u);
static_assert(sizeof(nvmlProcessInfo_v1_t) == 16 && sizeof(nvmlProcessInfo_t) == 24);
static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32);
static_assert(sizeof(nvmlFieldValue_t) == 40);
static_assert(sizeof(nvmlEventData_t) == 32);
static_assert(sizeof(nvmlGpmMetric_t) == 40);
static_assert(sizeof(nvmlDeviceAttributes_t) == 40);
