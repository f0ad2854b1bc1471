// One sampling pass of a collector over a node: every value it read at one instant,
// for the GPUs, MIG instances and processes it saw. Collectors (NVML) produce batches;
// the agent keeps the latest ones in a ring, the exporter renders them, the store
// appends them to a profile's series.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/metrics.h"
#include "model/series.h"
#include "model/trace_events.h"

namespace kraken {

struct SampleBatch {
  TimeNs time_ns = 0;  // Unix epoch ns when the pass started
  // What the values describe: GPUs, MIG instances, processes (SeriesEntity fields).
  std::vector<SeriesEntity> entities;
  struct Value {
    Metric metric = Metric::kOther;
    int32_t entity = -1;      // index into `entities`
    double value = 0;
    std::string source_name;  // NVML call or field, for kOther and for --explain
  };
  // Only values the device supported and returned: an unsupported metric is absent,
  // never zero.
  std::vector<Value> values;
};

}  // namespace kraken
