// The files of this build that tests run (the kraken binary, the NVML replay library, the
// fake libcupti, ...) and the folders it was configured with (source_dir, data_dir: see
// test_data.h), found at run time rather than compiled in. CMake writes their paths,
// one `target=path` per line, to kraken_built_files.txt at the build folder's root; a test
// finds that list by walking up from its own executable. A test object then holds no path
// of the clone, so ccache serves it to a clone anywhere (CI clones to a new folder).
#pragma once

namespace kraken::testing {

// The path of CMake target `target`'s file in this build (or of the folder source_dir or
// data_dir). A target the list lacks (or no list above the executable) fails the current
// test and gives a path that does not exist.
const char* BuiltFile(const char* target);

}  // namespace kraken::testing

#define KRAKEN_BINARY_PATH ::kraken::testing::BuiltFile("kraken")
#define KRAKEN_NVML_REPLAY_LIBRARY ::kraken::testing::BuiltFile("kraken_nvml_replay")
#define KRAKEN_NVML_REPLAY_LEGACY_LIBRARY ::kraken::testing::BuiltFile("kraken_nvml_replay_legacy")
#define KRAKEN_CUPTI_INJECTION_LIBRARY ::kraken::testing::BuiltFile("kraken_cupti")
#define KRAKEN_CUPTI_FAKE_LIBRARY ::kraken::testing::BuiltFile("kraken_cupti_fake")
#define KRAKEN_CUPTI_FAKE_NORANGE_LIBRARY ::kraken::testing::BuiltFile("kraken_cupti_fake_norange")
#define KRAKEN_FAKE_CUDA_APP ::kraken::testing::BuiltFile("kraken_fake_cuda_app")
