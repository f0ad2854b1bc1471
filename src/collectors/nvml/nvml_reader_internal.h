// What the NvmlReader's files share (nvml_reader.cc: open and pass order;
// nvml_reader_facts.cc: the facts read once; nvml_reader_device.cc: one GPU's pass).
// Internal to the reader: not for other callers.
#pragma once

#include "collectors/nvml/capture.h"

namespace kraken::nvml::reader_detail {

// One NVML call that fills a T: its return code, and the value when it succeeded.
template <typename T, typename Call>
Answer<T> Ask(Call call) {
  Answer<T> answer;
  T value{};
  answer.rc = call(&value);
  if (answer.ok()) answer.value = value;
  return answer;
}

}  // namespace kraken::nvml::reader_detail
