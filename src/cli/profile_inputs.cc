#include "cli/profile_inputs.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "cli/cli_common.h"
#include "cli/store_access.h"
#include "importers/registry.h"

namespace kraken::cli {

Status LoadProfileInputs(const std::vector<std::string>& arguments, const std::string& format,
                         const std::string& db, std::vector<Profile>* profiles) {
  std::unique_ptr<ProfileStore> store;
  for (const std::string& file : arguments) {
    std::error_code ec;
    std::optional<int64_t> id = std::filesystem::exists(file, ec) ? std::nullopt : ParseProfileRef(file);
    if (id) {
      if (store == nullptr) {
        KRAKEN_ASSIGN_OR_RETURN(store, OpenStoreForReading(db));
      }
      KRAKEN_ASSIGN_OR_RETURN(Profile profile, store->LoadProfile(*id));
      profiles->push_back(std::move(profile));
      continue;
    }
    ImportOptions import_options;
    import_options.forced_format = format;
    import_options.progress = MakeProgress(file);
    auto result = ImportFile(BuiltinImporters(), file, import_options);
    if (::isatty(STDERR_FILENO)) std::fprintf(stderr, "\r\033[K");
    if (!result.ok()) return result.status();
    for (auto& p : *result) profiles->push_back(std::move(p));
  }
  return Status::Ok();
}

}  // namespace kraken::cli
