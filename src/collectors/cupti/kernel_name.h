// A kernel's name as the tracer writes it, in its kernel records (activity_converter.cc) and
// its per-kernel counter ranges (range_profiler.cc) alike, so that the two always match.
#pragma once

#include <string>

namespace kraken::cupti {

// `symbol` demangled ("_Z11fake_kernelPfi" -> "fake_kernel(float*, int)"); as given when it
// is not a mangled C++ name (extern "C" kernels, PTX names).
std::string ReadableKernelName(const char* symbol);

}  // namespace kraken::cupti
