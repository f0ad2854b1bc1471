#include "collectors/cupti/cupti_functions.h"

#include <dlfcn.h>

namespace kraken::cupti {
namespace {

template <typename Fn>
void Resolve(void* handle, const char* name, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(handle, name));
}

// Resolves every entry point; the name of the first missing required one, else "".
std::string ResolveAll(void* handle, CuptiFunctions* f) {
  Resolve(handle, "cuptiGetVersion", &f->GetVersion);
  Resolve(handle, "cuptiGetResultString", &f->GetResultString);
  Resolve(handle, "cuptiActivityRegisterCallbacks", &f->RegisterCallbacks);
  Resolve(handle, "cuptiActivityEnable", &f->Enable);
  Resolve(handle, "cuptiActivityDisable", &f->Disable);
  Resolve(handle, "cuptiActivityGetNextRecord", &f->GetNextRecord);
  Resolve(handle, "cuptiActivityFlushAll", &f->FlushAll);
  Resolve(handle, "cuptiActivityGetNumDroppedRecords", &f->GetNumDroppedRecords);
  Resolve(handle, "cuptiGetTimestamp", &f->GetTimestamp);
  Resolve(handle, "cuptiActivityEnableRuntimeApi", &f->EnableRuntimeApi);
  Resolve(handle, "cuptiActivityEnableDriverApi", &f->EnableDriverApi);
  Resolve(handle, "cuptiGetCallbackName", &f->GetCallbackName);
  Resolve(handle, "cuptiSetThreadIdType", &f->SetThreadIdType);
  Resolve(handle, "cuptiActivityEnableAndDump", &f->EnableAndDump);
  Resolve(handle, "cuptiActivityEnableHWTrace", &f->EnableHWTrace);
  Resolve(handle, "cuptiActivitySetAttribute", &f->SetAttribute);
  Resolve(handle, "cuptiSubscribe", &f->Subscribe);
  Resolve(handle, "cuptiUnsubscribe", &f->Unsubscribe);
  Resolve(handle, "cuptiEnableCallback", &f->EnableCallback);
  Resolve(handle, "cuptiEnableDomain", &f->EnableDomain);
  Resolve(handle, "cuptiFinalize", &f->Finalize);
  Resolve(handle, "InitializeInjectionNvtx2", &f->InitializeInjectionNvtx2);
  Resolve(handle, "InitializeInjectionNvtx", &f->InitializeInjectionNvtx);
  const std::pair<const char*, const void*> required[] = {
      {"cuptiGetVersion", reinterpret_cast<const void*>(f->GetVersion)},
      {"cuptiGetResultString", reinterpret_cast<const void*>(f->GetResultString)},
      {"cuptiActivityRegisterCallbacks", reinterpret_cast<const void*>(f->RegisterCallbacks)},
      {"cuptiActivityEnable", reinterpret_cast<const void*>(f->Enable)},
      {"cuptiActivityDisable", reinterpret_cast<const void*>(f->Disable)},
      {"cuptiActivityGetNextRecord", reinterpret_cast<const void*>(f->GetNextRecord)},
      {"cuptiActivityFlushAll", reinterpret_cast<const void*>(f->FlushAll)},
      {"cuptiActivityGetNumDroppedRecords", reinterpret_cast<const void*>(f->GetNumDroppedRecords)},
      {"cuptiGetTimestamp", reinterpret_cast<const void*>(f->GetTimestamp)}};
  for (const auto& [name, fn] : required)
    if (fn == nullptr) return name;
  return "";
}

}  // namespace

std::string CuptiFunctions::ErrorText(CUptiResult result) const {
  const char* text = nullptr;
  if (GetResultString == nullptr || GetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr)
    text = "CUPTI error";
  return std::string(text) + " (" + std::to_string(static_cast<int>(result)) + ")";
}

bool LoadCupti(const LocatorEnvironment& env, LoadedCupti* loaded, std::string* error) {
  std::vector<CuptiCandidate> candidates;
  const char* named = env.getenv("KRAKEN_CUPTI_LIBRARY");
  const bool explicit_library = named != nullptr && *named != '\0';
  if (std::string in_process = LoadedCuptiPath(); !in_process.empty() && !explicit_library)
    candidates.push_back({in_process, "already loaded by the application"});
  for (CuptiCandidate& c : CuptiCandidates(env)) candidates.push_back(std::move(c));
  std::string tried;
  for (const CuptiCandidate& candidate : candidates) {
    void* handle = dlopen(candidate.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      // Bare sonames failing is the normal "not installed" case: not worth listing.
      if (candidate.path.find('/') != std::string::npos) {
        const char* why = dlerror();  // names the file already
        tried += (tried.empty() ? "" : "; ") + (why != nullptr ? std::string(why) : candidate.path + ": dlopen failed");
      }
      continue;
    }
    CuptiFunctions functions;
    std::string missing = ResolveAll(handle, &functions);
    if (!missing.empty()) {
      tried += (tried.empty() ? "" : "; ") + candidate.path + " lacks " + missing;
      dlclose(handle);
      continue;
    }
    loaded->handle = handle;
    loaded->path = candidate.path;
    loaded->where = candidate.where;
    loaded->functions = functions;
    if (functions.GetVersion(&loaded->version) != CUPTI_SUCCESS) loaded->version = 0;
    return true;
  }
  if (explicit_library) {
    *error = "KRAKEN_CUPTI_LIBRARY=" + std::string(named) + " could not be loaded (" + tried + ")";
  } else {
    *error = "libcupti was not found (looked in $CUDA_HOME, $CUDA_PATH, /usr/local/cuda, the nvidia/cuda_cupti "
             "folders of Python site-packages, and the system loader" +
             (tried.empty() ? std::string() : "; " + tried) +
             "); set KRAKEN_CUPTI_LIBRARY=/path/to/libcupti.so";
  }
  return false;
}

}  // namespace kraken::cupti
