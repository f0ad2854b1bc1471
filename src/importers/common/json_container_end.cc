#include "importers/common/json_container_end.h"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace kraken {
namespace {

// Scanning state carried from one block to the next.
struct ScanState {
  int64_t depth = 0;
  bool in_string = false;
  bool escaped = false;  // the previous byte was a backslash inside a string
};

// Advances `state` over [p, p + n). Returns the offset (from p) one past the bracket
// that closes the container, or -1.
int64_t ScanBytes(const char* p, size_t n, ScanState& state) {
  for (size_t i = 0; i < n; ++i) {
    char c = p[i];
    if (state.in_string) {
      if (state.escaped) {
        state.escaped = false;
      } else if (c == '\\') {
        state.escaped = true;
      } else if (c == '"') {
        state.in_string = false;
      }
      continue;
    }
    if (c == '"') {
      state.in_string = true;
    } else if (c == '{' || c == '[') {
      ++state.depth;
    } else if (c == '}' || c == ']') {
      if (--state.depth == 0) return static_cast<int64_t>(i + 1);
    }
  }
  return -1;
}

#if defined(__x86_64__)

__attribute__((target("avx2"))) inline uint64_t EqMask(__m256i lo, __m256i hi, char c) {
  __m256i v = _mm256_set1_epi8(c);
  auto l = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, v)));
  auto h = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, v)));
  return static_cast<uint64_t>(l) | (static_cast<uint64_t>(h) << 32);
}

// Bit i of the result is the XOR of bits 0..i of x: 1 between an opening quote and
// the byte before its closing quote.
inline uint64_t PrefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

__attribute__((target("avx2"))) bool FindContainerEndAvx2(const char* begin, const char* limit, size_t* end) {
  ScanState state;
  const char* p = begin;
  alignas(32) char tail[64];
  while (p < limit) {
    size_t n = static_cast<size_t>(limit - p);
    const char* block = p;
    uint64_t valid = ~uint64_t{0};
    if (n < 64) {
      // Copy the last partial block so that nothing past `limit` is read.
      std::memset(tail, 0, sizeof(tail));
      std::memcpy(tail, p, n);
      block = tail;
      valid = (uint64_t{1} << n) - 1;
    }
    __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block));
    __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 32));
    uint64_t backslash = EqMask(lo, hi, '\\') & valid;
    if (backslash != 0 || state.escaped) {
      // Escapes are rare in traces: take the exact byte loop for this block.
      int64_t at = ScanBytes(p, n < 64 ? n : 64, state);
      if (at >= 0) {
        *end = static_cast<size_t>(p - begin) + static_cast<size_t>(at);
        return true;
      }
      p += 64;
      continue;
    }
    uint64_t quote = EqMask(lo, hi, '"') & valid;
    uint64_t open = (EqMask(lo, hi, '{') | EqMask(lo, hi, '[')) & valid;
    uint64_t close = (EqMask(lo, hi, '}') | EqMask(lo, hi, ']')) & valid;
    uint64_t inside = PrefixXor(quote) ^ (state.in_string ? ~uint64_t{0} : 0);
    state.in_string = (inside >> 63) != 0;
    if (valid != ~uint64_t{0}) state.in_string = ((inside >> (n - 1)) & 1) != 0;
    uint64_t structural = (open | close) & ~inside;
    while (structural != 0) {
      int bit = __builtin_ctzll(structural);
      if ((open >> bit) & 1) {
        ++state.depth;
      } else if (--state.depth == 0) {
        *end = static_cast<size_t>(p - begin) + static_cast<size_t>(bit) + 1;
        return true;
      }
      structural &= structural - 1;
    }
    p += 64;
  }
  return false;
}

bool CpuHasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

#endif

}  // namespace

bool FindContainerEndScalar(const char* begin, const char* limit, size_t* end_offset) {
  ScanState state;
  int64_t at = ScanBytes(begin, static_cast<size_t>(limit - begin), state);
  if (at < 0) return false;
  *end_offset = static_cast<size_t>(at);
  return true;
}

bool FindContainerEnd(const char* begin, const char* limit, size_t* end_offset) {
#if defined(__x86_64__)
  if (CpuHasAvx2()) return FindContainerEndAvx2(begin, limit, end_offset);
#endif
  return FindContainerEndScalar(begin, limit, end_offset);
}

}  // namespace kraken
