// The vocabulary of PyTorch-profiler (Kineto) Chrome traces: event categories and the
// args keys kraken reads. Current and legacy (PyTorch <= 1.9) spellings side by side.
// Sources: libkineto ActivityType.h and output_json.cpp; the traces in shared/data/kineto.
#pragma once

#include <string_view>

namespace kraken::kineto {

// Top-level members.
inline constexpr std::string_view kTraceEvents = "traceEvents";
inline constexpr std::string_view kDeviceProperties = "deviceProperties";
inline constexpr std::string_view kDistributedInfo = "distributedInfo";
inline constexpr std::string_view kBaseTimeNanoseconds = "baseTimeNanoseconds";
// Set (true) by writers that append events as they are recorded (kraken's CUPTI tracer,
// src/collectors/cupti): a file that ends inside "traceEvents" is then a killed writer's
// readable prefix, not a damaged file. Must come before "traceEvents".
inline constexpr std::string_view kIncrementalEvents = "incrementalEvents";

// Event categories ("cat").
inline constexpr std::string_view kCatKernel = "kernel";
inline constexpr std::string_view kCatKernelLegacy = "Kernel";
inline constexpr std::string_view kCatMemcpy = "gpu_memcpy";
inline constexpr std::string_view kCatMemcpyLegacy = "Memcpy";
inline constexpr std::string_view kCatMemset = "gpu_memset";
inline constexpr std::string_view kCatMemsetLegacy = "Memset";
inline constexpr std::string_view kCatCpuOp = "cpu_op";
inline constexpr std::string_view kCatCpuOpLegacy = "Operator";
inline constexpr std::string_view kCatUserAnnotation = "user_annotation";
inline constexpr std::string_view kCatGpuUserAnnotation = "gpu_user_annotation";
inline constexpr std::string_view kCatPythonFunction = "python_function";
inline constexpr std::string_view kCatCudaRuntime = "cuda_runtime";
inline constexpr std::string_view kCatRuntimeLegacy = "Runtime";
inline constexpr std::string_view kCatCudaDriver = "cuda_driver";
inline constexpr std::string_view kCatMtiaRuntime = "mtia_runtime";
inline constexpr std::string_view kCatMtiaDeviceOp = "mtia_ccp_events";
inline constexpr std::string_view kCatXpuRuntime = "xpu_runtime";
inline constexpr std::string_view kCatXpuDriver = "xpu_driver";
inline constexpr std::string_view kCatCudaSync = "cuda_sync";
inline constexpr std::string_view kCatProfilerRange = "cuda_profiler_range";
inline constexpr std::string_view kCatTrace = "Trace";

// The counter events ("ph": "C") of kraken's CUPTI tracer with the device memory a program
// holds (src/collectors/cupti/device_memory.h): pid the device, args.bytes the bytes of its
// CUDA allocations outstanding.
inline constexpr std::string_view kCatCudaMemory = "cuda_memory";
inline constexpr std::string_view kCudaMemoryCounterName = "CUDA device memory";

// Name prefix of the per-iteration annotation the profiler's schedule writes.
inline constexpr std::string_view kProfilerStepPrefix = "ProfilerStep#";
// Name of allocator instant events (profile_memory=True).
inline constexpr std::string_view kMemoryEventName = "[memory]";

}  // namespace kraken::kineto
