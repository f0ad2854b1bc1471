// One event of a Chrome trace in the Kineto schema, as the CUPTI tracer produces it: the
// neutral form between a CUPTI activity record (activity_converter) and the JSON text
// (kineto_writer). Strings are views: they must outlive the call that takes the event.
// No CUPTI header is needed here, so the writer builds and is tested on its own.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace kraken::cupti {

struct TraceArg {
  enum class Type : uint8_t { kInt, kDouble, kString, kDim3 };
  std::string_view key;
  Type type = Type::kInt;
  int64_t int_value = 0;
  double double_value = 0;
  std::string_view string_value;
  std::array<int64_t, 3> dim3{0, 0, 0};
};

// Kineto's flow arrows ("ac2g"): 's' on the CPU call that launched GPU work, 'f' (bound to
// the enclosing slice, "bp":"e") on the GPU work; the id is the CUPTI correlation id.
enum class FlowPhase : uint8_t { kNone, kStart, kFinish };

struct TraceEvent {
  static constexpr int kMaxArgs = 20;

  char phase = 'X';  // 'X' complete, 'i' instant, 'M' metadata, 'C' counter (each arg a value)
  std::string_view category;
  std::string_view name;
  int64_t pid = 0;
  int64_t tid = 0;
  int64_t start_ns = 0;     // absolute (the writer subtracts baseTimeNanoseconds)
  int64_t duration_ns = 0;  // 'X' only
  FlowPhase flow = FlowPhase::kNone;
  int64_t flow_id = 0;
  std::array<TraceArg, kMaxArgs> args;
  int arg_count = 0;

  void Clear() {
    phase = 'X';
    category = name = {};
    pid = tid = start_ns = duration_ns = flow_id = 0;
    flow = FlowPhase::kNone;
    arg_count = 0;
  }
  // Arguments past kMaxArgs are dropped: the converter never sets that many.
  TraceArg* NextArg(std::string_view key, TraceArg::Type type) {
    if (arg_count == kMaxArgs) return nullptr;
    TraceArg& arg = args[static_cast<size_t>(arg_count++)];
    arg.key = key;
    arg.type = type;
    return &arg;
  }
  void AddInt(std::string_view key, int64_t value) {
    if (TraceArg* a = NextArg(key, TraceArg::Type::kInt)) a->int_value = value;
  }
  void AddDouble(std::string_view key, double value) {
    if (TraceArg* a = NextArg(key, TraceArg::Type::kDouble)) a->double_value = value;
  }
  void AddString(std::string_view key, std::string_view value) {
    if (TraceArg* a = NextArg(key, TraceArg::Type::kString)) a->string_value = value;
  }
  void AddDim3(std::string_view key, int64_t x, int64_t y, int64_t z) {
    if (TraceArg* a = NextArg(key, TraceArg::Type::kDim3)) a->dim3 = {x, y, z};
  }
};

// Where converted events go (the writer; a vector in tests).
class TraceEventSink {
 public:
  virtual ~TraceEventSink() = default;
  virtual void Emit(const TraceEvent& event) = 0;
};

}  // namespace kraken::cupti
