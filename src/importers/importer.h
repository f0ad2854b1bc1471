// The importer interface. One folder per format under src/importers/, each exposing a
// factory (see builtin_importers.h); the registry sniffs the content, never the file name.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/byte_stream.h"
#include "base/status.h"
#include "model/profile.h"

namespace kraken {

// How many decompressed bytes sniffers get to look at.
inline constexpr size_t kSniffBytes = 4096;

struct ImporterDescriptor {
  std::string_view name;         // stable id, used by --format: "kineto", "ncu-csv", ...
  std::string_view description;  // one line for `kraken formats`
  std::string_view accepts;      // what inputs it reads, for `kraken formats`
};

// Called now and then with how far the importer has read in the input file.
using ProgressFn = std::function<void(uint64_t source_bytes_done)>;

// One input to import: a whole file, or one member of an archive.
struct ImportInput {
  std::string display_name;            // used in error messages and Profile::metadata.source
  std::unique_ptr<ByteStream> stream;  // decompressed, positioned at the first byte
  std::string head;                    // copy of the first (up to kSniffBytes) bytes
  ProgressFn progress;                 // may be empty
};

// Where importers put what they read. One input can hold several profiles: a node
// capture with many GPUs is one profile, an archive with one trace per rank is many.
class ProfileSink {
 public:
  // Starts a new profile whose metadata.source and .format are filled in.
  Profile& NewProfile(const ImportInput& input, std::string_view format);
  // Adds a profile an importer built whole (so a failure half-way leaves nothing in the
  // sink), filling in metadata.source and .format as NewProfile does.
  void AddProfile(const ImportInput& input, std::string_view format, Profile profile);
  std::vector<Profile>& profiles() { return profiles_; }

 private:
  std::vector<Profile> profiles_;
};

// How sure a sniffer is that it reads an input. The registry takes the first kYes and
// falls back to the first kMaybe, so a generic format (any JSON object) never steals an
// input from a specific one.
enum class SniffResult { kNo, kMaybe, kYes };

class Importer {
 public:
  virtual ~Importer() = default;
  virtual const ImporterDescriptor& descriptor() const = 0;

  // Whether `head` (the first decompressed bytes) is in this importer's format.
  // Sniffers are cheap and answer kYes only on a signature no other format has.
  virtual SniffResult Sniff(std::string_view head) const = 0;

  // Reads the whole input. A bad row increments a named counter in the profile and the
  // import goes on; a Status is returned only when the input as a whole is unusable,
  // with the position ("line 12: ..." or "byte 3456: ...") in its message.
  virtual Status Import(ImportInput& input, ProfileSink& sink) const = 0;
};

}  // namespace kraken
