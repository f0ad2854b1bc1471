// The paths bench/CMakeLists.txt gives the NVML benchmarks (kraken_build_paths, in a file
// generated for each): this build's replay capture and replay library.
#pragma once

namespace kraken::build_paths {
extern const char kNvmlBenchCapture[];
extern const char kNvmlBenchLibrary[];
}  // namespace kraken::build_paths
