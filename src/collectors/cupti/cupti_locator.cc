#include "collectors/cupti/cupti_locator.h"

#include <glob.h>
#include <link.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace kraken::cupti {
namespace {

constexpr const char* kSonames[] = {"libcupti.so", "libcupti.so.13", "libcupti.so.12", "libcupti.so.11.8"};

std::vector<std::string> Split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(separator, begin);
    if (end == std::string_view::npos) end = text.size();
    if (end > begin) parts.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

void AddUnique(std::vector<std::string>& list, std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (std::find(list.begin(), list.end(), path) == list.end()) list.push_back(std::move(path));
}

}  // namespace

LocatorEnvironment ProcessEnvironment() {
  LocatorEnvironment env;
  env.getenv = [](const char* name) -> const char* { return std::getenv(name); };
  env.file_exists = [](const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode);
  };
  env.glob = [](const std::string& pattern) {
    std::vector<std::string> paths;
    glob_t matches{};
    if (::glob(pattern.c_str(), GLOB_NOSORT | GLOB_ONLYDIR, nullptr, &matches) == 0)
      for (size_t i = 0; i < matches.gl_pathc; ++i) paths.emplace_back(matches.gl_pathv[i]);
    ::globfree(&matches);
    std::sort(paths.begin(), paths.end());
    return paths;
  };
  return env;
}

std::vector<std::string> PythonSitePackages(const LocatorEnvironment& env) {
  std::vector<std::string> folders;
  auto add_glob = [&](const std::string& pattern) {
    for (std::string& path : env.glob(pattern)) AddUnique(folders, std::move(path));
  };
  auto add_prefix = [&](const std::string& prefix) {
    add_glob(prefix + "/lib/python3*/site-packages");
    add_glob(prefix + "/lib/python3*/dist-packages");
  };
  auto var = [&](const char* name) -> std::string {
    const char* value = env.getenv(name);
    return value != nullptr ? value : "";
  };
  for (const std::string& folder : Split(var("KRAKEN_PYTHON_SITE_PACKAGES"), ':')) add_glob(folder);
  if (!var("VIRTUAL_ENV").empty()) add_prefix(var("VIRTUAL_ENV"));
  if (!var("CONDA_PREFIX").empty()) add_prefix(var("CONDA_PREFIX"));
  for (const std::string& folder : Split(var("PYTHONPATH"), ':')) add_glob(folder);
  // The interpreter a user would run: each python3 on PATH, its prefix being bin/.. (a
  // virtual environment's or conda's bin, /usr/local/bin, /usr/bin).
  for (const std::string& bin : Split(var("PATH"), ':'))
    if (env.file_exists(bin + "/python3")) add_prefix(bin + "/..");
  if (!var("HOME").empty()) add_prefix(var("HOME") + "/.local");
  add_prefix(env.root + "/opt/conda");
  add_glob(env.root + "/usr/local/lib/python3*/dist-packages");
  add_glob(env.root + "/usr/lib/python3/dist-packages");
  return folders;
}

std::vector<CuptiCandidate> CuptiCandidates(const LocatorEnvironment& env) {
  if (const char* named = env.getenv("KRAKEN_CUPTI_LIBRARY"); named != nullptr && *named != '\0')
    return {{named, "KRAKEN_CUPTI_LIBRARY"}};
  std::vector<CuptiCandidate> candidates;
  auto add_folder = [&](const std::string& folder, const std::string& where) {
    for (const char* soname : kSonames) {
      std::string path = folder + "/" + soname;
      if (!env.file_exists(path)) continue;
      bool seen = std::any_of(candidates.begin(), candidates.end(), [&](const CuptiCandidate& c) { return c.path == path; });
      if (!seen) candidates.push_back({path, where});
      return;  // one per folder: libcupti.so is a link to the versioned file
    }
  };
  auto add_toolkit = [&](const std::string& root, const std::string& where) {
    for (const char* sub : {"/extras/CUPTI/lib64", "/lib64", "/lib", "/targets/x86_64-linux/lib"})
      add_folder(root + sub, where);
  };
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* value = env.getenv(var); value != nullptr && *value != '\0') add_toolkit(value, var);
  add_toolkit(env.root + "/usr/local/cuda", "/usr/local/cuda");
  for (const std::string& site : PythonSitePackages(env)) {
    add_folder(site + "/nvidia/cuda_cupti/lib", "Python package nvidia-cuda-cupti in " + site);
    add_folder(site + "/nvidia/cu13/lib", "Python package nvidia (CUDA 13) in " + site);
  }
  for (const char* soname : kSonames) candidates.push_back({soname, "the system loader"});
  return candidates;
}

std::string LoadedCuptiPath() {
  std::string found;
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t, void* data) -> int {
        std::string_view path = info->dlpi_name != nullptr ? info->dlpi_name : "";
        size_t slash = path.rfind('/');
        std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
        if (!base.starts_with("libcupti.so")) return 0;
        *static_cast<std::string*>(data) = std::string(path);
        return 1;
      },
      &found);
  return found;
}

}  // namespace kraken::cupti
