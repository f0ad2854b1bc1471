// `kraken mig apply --plan FILE [--config NAME] [--dry-run]`: a node's MIG layout made the
// plan's (the nvidia-mig-parted file `kraken mig-plan --emit mig-parted` writes) through
// NVML, GPU by GPU (collectors/nvml/mig_apply.h); docs/mig-planning.md.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace kraken {

// One `devices:` entry of a mig-parted configuration.
struct MigPartedEntry {
  bool all_devices = false;
  std::vector<unsigned int> devices;
  bool mig_enabled = false;
  std::map<std::string, int> mig_devices;  // profile -> count
  int line = 0;
};

// configuration name -> entries, in the file's order of names.
struct MigPartedFile {
  std::vector<std::string> names;
  std::map<std::string, std::vector<MigPartedEntry>> configs;
};

// The mig-parted subset kraken writes (version v1, mig-configs, devices as `all` or a
// list, mig-enabled, mig-devices with quoted profile names). Errors "FILE:LINE: ...".
Result<MigPartedFile> ParseMigPartedFile(const std::string& text, const std::string& origin);

struct MigApplySettings {
  std::string plan;    // the mig-parted file
  std::string config;  // "" = the file's only configuration
  bool dry_run = false;
  std::string nvml_library;  // "" = the driver's (or KRAKEN_NVML_LIBRARY)
};

// The steps taken per GPU, as text.
Result<std::string> ApplyMigPlan(const MigApplySettings& settings);

}  // namespace kraken
