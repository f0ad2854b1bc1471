// Where libcupti is looked for at run time (it is never linked): the explicit
// KRAKEN_CUPTI_LIBRARY, a libcupti the process has already loaded (PyTorch's libtorch_cuda
// links its own: two CUPTI copies in one process would fight over the driver's callbacks),
// the CUDA toolkit ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda), the nvidia/cuda_cupti (and
// CUDA 13's nvidia/cu13) folders of Python environments' site-packages, and last the
// system loader. No CUPTI header is needed: this is paths and environment only.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace kraken::cupti {

// What the search reads, so that tests can stage a file tree and an environment.
struct LocatorEnvironment {
  std::function<const char*(const char*)> getenv;          // NULL when unset
  std::function<bool(const std::string&)> file_exists;
  // Paths matching a glob pattern (only '*' in the last-but-n components is needed).
  std::function<std::vector<std::string>(const std::string&)> glob;
  std::string root;  // prefix for absolute default paths ("/usr/local/cuda" -> root + ...)
};
LocatorEnvironment ProcessEnvironment();

struct CuptiCandidate {
  std::string path;  // absolute path, or a bare soname for the system loader
  std::string where;  // why it is a candidate: "KRAKEN_CUPTI_LIBRARY", "CUDA_HOME", ...
};

// The candidates in the order they are tried. An explicit KRAKEN_CUPTI_LIBRARY is the only
// candidate: a library the user named is never silently replaced by another version.
// Files that do not exist are left out; the system loader's sonames always end the list.
std::vector<CuptiCandidate> CuptiCandidates(const LocatorEnvironment& env);

// Site-packages folders of the Python environments the environment points at:
// $KRAKEN_PYTHON_SITE_PACKAGES (':'-separated, for a launcher that knows its interpreter),
// $VIRTUAL_ENV, $CONDA_PREFIX, $PYTHONPATH entries, the prefix of each python3 on $PATH
// (bin/.. -> lib/python3.*/site-packages), ~/.local and the Debian/Ubuntu system folders.
std::vector<std::string> PythonSitePackages(const LocatorEnvironment& env);

// The path of a libcupti already mapped into this process, or "".
std::string LoadedCuptiPath();

}  // namespace kraken::cupti
