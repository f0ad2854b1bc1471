// Finds where a JSON object or array ends, skipping strings, without parsing it.
// This is the inner loop of streaming a multi-GB trace event by event, so it has an
// AVX2 path that classifies 64 bytes at a time (quotes, brackets, backslashes) and
// tracks "inside a string" with a prefix-XOR of the quote bits, the technique of
// simdjson's stage 1 (Langdale & Lemire, "Parsing Gigabytes of JSON per Second").
#pragma once

#include <cstddef>

namespace kraken {

// `begin` points at '{' or '['. On success stores the offset one past the matching
// closing bracket and returns true; returns false when [begin, limit) ends first.
// Brackets are matched by count only (an object closed by ']' is found too): the
// parser that reads the element reports such damage.
bool FindContainerEnd(const char* begin, const char* limit, size_t* end_offset);

// The portable byte-at-a-time version, exposed for tests that compare both.
bool FindContainerEndScalar(const char* begin, const char* limit, size_t* end_offset);

}  // namespace kraken
