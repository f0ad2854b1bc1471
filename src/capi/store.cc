// The profile store calls of the C API: import (and save), list, export.
#include "app/store_access.h"
#include "app/store_requests.h"
#include "capi/call.h"
#include "capi/options.h"
#include "store/store_path.h"

namespace kraken::capi {
namespace {

Outcome Import(const char* const* files, size_t count, const char* options_json) {
  std::vector<std::string> paths;
  Outcome inputs = ReadInputs(files, count, &paths);
  if (inputs.code() != KRAKEN_OK) return inputs;
  if (paths.empty()) return Outcome::BadArgument("kraken_import needs at least one file");
  OptionReader reader(options_json);
  InputOptions options;
  reader.Read("format", &options.format);
  std::string db;
  reader.Read("db", &db);
  bool store = true;
  reader.Read("store", &store);
  bool json = true;
  reader.ReadOutput(&json);
  if (auto problem = reader.Problem()) return Outcome::BadArgument(*problem);
  KRAKEN_ASSIGN_OR_RETURN(std::vector<Profile> profiles, ImportFiles(paths, options));
  std::vector<int64_t> ids;
  if (store) {
    KRAKEN_ASSIGN_OR_RETURN(ids, SaveProfiles(db, profiles));
  }
  const std::string stored_db = store ? StoreLocationForDisplay(ResolveDbPath(db)) : "";
  return json ? RenderImportJson(profiles, stored_db, ids) : RenderImportText(profiles, stored_db, ids);
}

Outcome List(const char* options_json) {
  OptionReader reader(options_json);
  std::string db;
  reader.Read("db", &db);
  bool json = true;
  reader.ReadOutput(&json);
  if (auto problem = reader.Problem()) return Outcome::BadArgument(*problem);
  return RenderProfileList(db, json);
}

Outcome Export(const char* id_text, const char* options_json) {
  if (id_text == nullptr) return Outcome::BadArgument("the profile id must not be NULL");
  OptionReader reader(options_json);
  std::string db;
  reader.Read("db", &db);
  if (auto problem = reader.Problem()) return Outcome::BadArgument(*problem);
  KRAKEN_ASSIGN_OR_RETURN(int64_t id, ParseProfileId(id_text));
  KRAKEN_ASSIGN_OR_RETURN(auto store, OpenStoreForReading(db));
  KRAKEN_RETURN_IF_ERROR(store->GetProfileInfo(id).status());
  std::string document;
  KRAKEN_RETURN_IF_ERROR(ExportProfile(*store, id, "json", [&document](std::string_view chunk) {
    document.append(chunk);
    return Status::Ok();
  }));
  return document;
}

}  // namespace
}  // namespace kraken::capi

extern "C" {

kraken_status kraken_import(const char* const* files, size_t file_count, const char* options_json, char** out) {
  return kraken::capi::Deliver(out, [&] { return kraken::capi::Import(files, file_count, options_json); });
}

kraken_status kraken_list_profiles(const char* options_json, char** out) {
  return kraken::capi::Deliver(out, [&] { return kraken::capi::List(options_json); });
}

kraken_status kraken_export_profile(const char* id, const char* options_json, char** out) {
  return kraken::capi::Deliver(out, [&] { return kraken::capi::Export(id, options_json); });
}

}  // extern "C"
