// One function per `kraken` subcommand; main.cc only parses flags and dispatches.
#pragma once

#include <string>
#include <vector>

namespace kraken::cli {

struct ImportArgs {
  std::vector<std::string> files;
  std::string format;  // forced importer; empty = sniff
  bool json = false;
};
int RunImport(const ImportArgs& args);

struct AnalyzeArgs {
  std::vector<std::string> files;
  std::string format;
  bool json = false;
  std::string device;       // catalog id or device name; empty = from the input
  std::string window = "trace";
  std::string thresholds;   // "LOW,HIGH" fixed arithmetic-intensity scheme
  size_t top = 10;
  bool linked_only = false;
  std::string output = "-";
};
int RunAnalyze(const AnalyzeArgs& args);

struct FormatsArgs {
  bool json = false;
};
int RunFormats(const FormatsArgs& args);

struct DevicesArgs {
  bool json = false;
};
int RunDevices(const DevicesArgs& args);

}  // namespace kraken::cli
