// libFuzzer target: RemoveProfilerStep (src/app/profiler_step_removal.h), the in-place edit
// the Python WorkloadProfiler makes to torch.profiler's trace. The first byte picks the
// step number (0-3), the rest is the file. Beyond "no crash, leak or hang", it checks what
// the edit promises: a file it leaves is byte for byte the input; a file it edits is the
// input with bytes only taken out, and stays valid JSON when the input was. Built with
// `make fuzz`; seeds in fuzz/seeds/profiler_step and small real traces of the shared data.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "app/profiler_step_removal.h"
#include "fuzz_input_file.h"
#include "simdjson.h"

namespace {

// Whether `edited` is `original` with some bytes taken out (and none added or changed).
bool IsSubsequence(std::string_view edited, std::string_view original) {
  size_t at = 0;
  for (char c : edited) {
    while (at < original.size() && original[at] != c) ++at;
    if (at == original.size()) return false;
    ++at;
  }
  return true;
}

bool ParsesAsJson(std::string_view text) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  return !parser.parse(padded).error();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static kraken::fuzzing::FuzzInputFile trace_owner("kraken-fuzz-step");  // removed when the fuzzer exits
  static kraken::fuzzing::FuzzInputFile* trace = &trace_owner;
  if (size == 0) return 0;
  const int64_t step = data[0] % 4;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (!trace->Write(input)) return 0;
  auto removed = kraken::RemoveProfilerStep(trace->path, step);
  if (!removed.ok()) {
    if (removed.status().message().empty()) __builtin_trap();  // an error names the file
    if (trace->Read() != input) __builtin_trap();              // and leaves it as it was
    return 0;
  }
  std::string output = trace->Read();
  if (!*removed) {
    if (output != input) __builtin_trap();
    return 0;
  }
  if (output.size() >= input.size() || !IsSubsequence(output, input)) __builtin_trap();
  if (ParsesAsJson(input) && !ParsesAsJson(output)) __builtin_trap();
  return 0;
}
