// Turns one Kineto trace event (a JSON object) into model records. Never fails: an
// event it cannot use is counted in Profile::import_counters and skipped.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "model/profile.h"

namespace kraken::kineto {

// Microseconds as printed in a trace ("1623142623460111", "3605057436108.407",
// "1.6e15") to integer nanoseconds, exactly when the text has at most 3 decimals.
bool MicrosTextToNs(std::string_view text, int64_t* ns);

class EventParser {
 public:
  explicit EventParser(Profile* profile);
  ~EventParser();
  EventParser(const EventParser&) = delete;
  EventParser& operator=(const EventParser&) = delete;

  // `event` must stay readable for 64 bytes past its end (see kJsonReadPadding).
  void Parse(std::string_view event);

  // Sorts what was collected and derives links; call once after the last event.
  void Finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kraken::kineto
