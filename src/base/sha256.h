// SHA-256 (FIPS 180-4), for naming the exact input a derived file came from.
#pragma once

#include <string>
#include <string_view>

namespace kraken {

// Lower-case hex digest of `data`.
std::string Sha256Hex(std::string_view data);

}  // namespace kraken
