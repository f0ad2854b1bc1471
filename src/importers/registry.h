// The list of importers kraken knows, and the driver that opens a file, undoes gzip and
// tar, sniffs the format and runs the matching importer.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "importers/importer.h"

namespace kraken {

class ImporterRegistry {
 public:
  void Register(std::unique_ptr<Importer> importer);
  const Importer* FindByName(std::string_view name) const;
  // The first importer whose sniffer is sure of `head`, else the first that may read it.
  const Importer* Sniff(std::string_view head) const;
  const std::vector<std::unique_ptr<Importer>>& importers() const { return importers_; }

 private:
  std::vector<std::unique_ptr<Importer>> importers_;
};

// Registers every built-in importer, in sniffing order. This is the one list: adding a
// format means adding a line here (no static self-registration, which linkers drop).
void RegisterBuiltinImporters(ImporterRegistry& registry);

// The registry with every built-in importer, built once.
const ImporterRegistry& BuiltinImporters();

struct ImportOptions {
  std::string forced_format;  // importer name; empty = sniff
  ProgressFn progress;        // reports compressed bytes read from the file
};

// Imports one file (plain, .gz, .tar or .tar.gz) into profiles. On error nothing is
// returned and the Status message starts with the file name.
Result<std::vector<Profile>> ImportFile(const ImporterRegistry& registry, const std::string& path,
                                        const ImportOptions& options = {});

// The same for data already in memory (tests, uploads). `name` is used in messages.
Result<std::vector<Profile>> ImportBuffer(const ImporterRegistry& registry, const std::string& name,
                                          std::string data, const ImportOptions& options = {});

}  // namespace kraken
