#include "store/sample_codec.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace kraken::store {
namespace {

// Differences are taken modulo 2^64 so that any pair of int64 times round-trips.
uint64_t ZigZag(uint64_t delta) {
  auto s = static_cast<int64_t>(delta);
  return (delta << 1) ^ static_cast<uint64_t>(s >> 63);
}
uint64_t UnZigZag(uint64_t z) { return (z >> 1) ^ (~(z & 1) + 1); }

void PutVarint(uint64_t v, std::string& out) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

bool GetVarint(std::string_view in, size_t& pos, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= in.size()) return false;
    auto byte = static_cast<uint8_t>(in[pos++]);
    v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

void PutValue(uint64_t x, std::string& out) {
  if (x == 0) {
    out.push_back(static_cast<char>(0x80));  // 8 leading zero bytes, nothing follows
    return;
  }
  int lead = std::countl_zero(x) / 8;
  int trail = std::countr_zero(x) / 8;
  out.push_back(static_cast<char>((lead << 4) | trail));
  for (int byte = 7 - lead; byte >= trail; --byte) out.push_back(static_cast<char>((x >> (8 * byte)) & 0xff));
}

bool GetValue(std::string_view in, size_t& pos, uint64_t& x) {
  if (pos >= in.size()) return false;
  auto header = static_cast<uint8_t>(in[pos++]);
  int lead = header >> 4;
  int trail = header & 0x0f;
  if (lead + trail > 8) return false;
  if (lead + trail == 8) {
    x = 0;
    return lead == 8;
  }
  x = 0;
  for (int byte = 7 - lead; byte >= trail; --byte) {
    if (pos >= in.size()) return false;
    x |= static_cast<uint64_t>(static_cast<uint8_t>(in[pos++])) << (8 * byte);
  }
  return true;
}

}  // namespace

EncodedBlock EncodeSamples(std::span<const Sample> samples) {
  EncodedBlock block;
  block.count = static_cast<int64_t>(samples.size());
  block.times.reserve(samples.size() * 2 + 16);
  block.values.reserve(samples.size() * 4 + 16);
  block.min_value = std::numeric_limits<double>::quiet_NaN();
  block.max_value = std::numeric_limits<double>::quiet_NaN();
  if (samples.empty()) return block;
  block.min_time_ns = block.max_time_ns = samples[0].time_ns;
  uint64_t prev_time = 0, prev_delta = 0, prev_bits = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    auto t = static_cast<uint64_t>(s.time_ns);
    uint64_t delta = t - prev_time;
    PutVarint(ZigZag(i < 2 ? delta : delta - prev_delta), block.times);
    prev_delta = delta;
    prev_time = t;
    auto bits = std::bit_cast<uint64_t>(s.value);
    PutValue(bits ^ prev_bits, block.values);
    prev_bits = bits;

    block.min_time_ns = std::min(block.min_time_ns, s.time_ns);
    block.max_time_ns = std::max(block.max_time_ns, s.time_ns);
    block.sum_value += s.value;
    if (!std::isnan(s.value)) {
      if (!(s.value >= block.min_value)) block.min_value = s.value;  // also replaces the NaN start
      if (!(s.value <= block.max_value)) block.max_value = s.value;
    }
  }
  return block;
}

Status DecodeSamples(std::string_view times, std::string_view values, int64_t count, std::vector<Sample>* out) {
  if (count < 0) return InvalidInput("sample block with a negative count");
  // Geometric growth: an exact reserve per block would copy the whole vector every block.
  size_t needed = out->size() + static_cast<size_t>(count);
  if (out->capacity() < needed) out->reserve(std::max(needed, 2 * out->capacity()));
  size_t time_pos = 0, value_pos = 0;
  uint64_t prev_time = 0, prev_delta = 0, prev_bits = 0;
  for (int64_t i = 0; i < count; ++i) {
    uint64_t z = 0, x = 0;
    if (!GetVarint(times, time_pos, z) || !GetValue(values, value_pos, x))
      return InvalidInput("sample block is damaged: it ends after " + std::to_string(i) + " of " +
                          std::to_string(count) + " samples");
    uint64_t delta = i < 2 ? UnZigZag(z) : UnZigZag(z) + prev_delta;
    prev_delta = delta;
    prev_time += delta;
    prev_bits ^= x;
    out->push_back(Sample{static_cast<TimeNs>(prev_time), std::bit_cast<double>(prev_bits)});
  }
  if (time_pos != times.size() || value_pos != values.size())
    return InvalidInput("sample block is damaged: bytes left after its " + std::to_string(count) + " samples");
  return Status::Ok();
}

}  // namespace kraken::store
