// Replacing text inside larger text (an OpenMetrics history, an error message).
#pragma once

#include <string>
#include <string_view>

namespace kraken {

// `text` with every occurrence of `from` replaced by `to`, left to right, built in one pass so
// that the time is linear in the text (an in-place replace moves the tail at every match). An
// empty `from` changes nothing.
std::string ReplaceAll(std::string_view text, std::string_view from, std::string_view to);

}  // namespace kraken
