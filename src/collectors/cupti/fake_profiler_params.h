// What every profiler entry point of libkraken_cupti_fake.so checks first, as the real
// library does: the params struct has its header's *_STRUCT_SIZE and pPriv NULL. Shared by
// fake_range_profiler.cc and fake_profiler_host.cc (test-only code).
#pragma once

#include <cstddef>

template <typename Params>
bool WellFormed(const Params* params, size_t struct_size) {
  return params != nullptr && params->structSize == struct_size && params->pPriv == nullptr;
}
