#include "app/profile_inputs.h"

#include <filesystem>
#include <memory>
#include <optional>

#include "app/store_access.h"
#include "importers/registry.h"

namespace kraken {

bool IsStoredProfileArgument(const std::string& argument) {
  std::error_code ec;
  return !std::filesystem::exists(argument, ec) && ParseProfileRef(argument).has_value();
}

Status LoadProfileInputs(const std::vector<std::string>& arguments, const InputOptions& options,
                         LoadedProfiles* loaded) {
  std::unique_ptr<ProfileStore> store;
  for (const std::string& argument : arguments) {
    if (IsStoredProfileArgument(argument)) {
      if (store == nullptr) {
        KRAKEN_ASSIGN_OR_RETURN(store, OpenStoreForReading(options.db));
      }
      const int64_t id = *ParseProfileRef(argument);
      KRAKEN_ASSIGN_OR_RETURN(Profile profile, store->LoadProfile(id));
      loaded->profiles.push_back(std::move(profile));
      loaded->origins.push_back("profile " + std::to_string(id));
      continue;
    }
    ImportOptions import_options;
    import_options.forced_format = options.format;
    if (options.progress) import_options.progress = options.progress(argument);
    auto result = ImportFile(BuiltinImporters(), argument, import_options);
    if (options.after_import) options.after_import();
    if (!result.ok()) return result.status();
    for (auto& p : *result) {
      loaded->profiles.push_back(std::move(p));
      loaded->origins.push_back(argument);
    }
  }
  return Status::Ok();
}

Status LoadProfileInputs(const std::vector<std::string>& arguments, const InputOptions& options,
                         std::vector<Profile>* profiles) {
  LoadedProfiles loaded;
  KRAKEN_RETURN_IF_ERROR(LoadProfileInputs(arguments, options, &loaded));
  for (Profile& p : loaded.profiles) profiles->push_back(std::move(p));
  return Status::Ok();
}

}  // namespace kraken
