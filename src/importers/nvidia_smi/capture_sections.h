// Splits a file into the outputs of single nvidia-smi commands. A capture (as written by
// nvidia_gpu_exporter's capture script) concatenates many, each introduced by a banner:
//
//   ################################################################################
//   # load :: dmon (per-device monitor, incl. PCIe rx/tx)
//   # $ nvidia-smi dmon -c 5
//   ################################################################################
//
// A plain log of one command has no banner and is one section.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kraken::nvidia_smi {

struct Section {
  std::string phase;    // "idle", "load", "capabilities"; empty without a "<phase> :: " title
  std::string title;    // "dmon (per-device monitor, incl. PCIe rx/tx)"
  std::string command;  // "nvidia-smi dmon -c 5" from the "# $ " line; empty when none
  std::string_view body;
  size_t first_line = 1;  // 1-based line number of the body's first line in the file
};

// True when `line` is a banner rule: only '#', at least 20 of them.
bool IsBannerRule(std::string_view line);
// True when the file starts (after blank lines) with a capture banner.
bool StartsWithCaptureBanner(std::string_view text);
std::vector<Section> SplitSections(std::string_view text);

// The lines of `text` without their line endings ("\n" or "\r\n").
std::vector<std::string_view> Lines(std::string_view text);

// The value of an option in a command line: CommandOption("nvidia-smi dmon -d 5", "-d") = "5".
std::optional<std::string> CommandOption(std::string_view command, std::string_view option);

}  // namespace kraken::nvidia_smi
