// What `kraken temporal` and the server's temporal endpoint share: the horizons list
// ("1h,24h") and the choice of series by index, exact name or part of a name.
#pragma once

#include <string>
#include <vector>

#include "analysis/temporal/temporal_analysis.h"
#include "base/status.h"
#include "model/profile.h"

namespace kraken::temporal {

// "1h,24h" -> horizons; messages name the --horizon flag (the server's parameter mirrors it).
Result<std::vector<Horizon>> ParseHorizons(const std::string& text);

// Positions of the profile's series that the selectors name: an index (the table's #
// column), an exact name, or else every name that contains the text. All when empty.
// `matched[k]` is set when selector k named at least one series.
std::vector<size_t> SelectSeries(const Profile& profile, const std::vector<std::string>& selectors,
                                 std::vector<bool>* matched);

}  // namespace kraken::temporal
