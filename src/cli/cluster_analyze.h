// `kraken analyze --prometheus URL --namespace NS`: reads the namespace's DCGM history
// through the Prometheus HTTP API and prints per-pod pooling candidates.
#pragma once

#include <string>

namespace kraken::cli {

struct ClusterAnalyzeArgs {
  std::string prometheus;  // http://host:port[/prefix]
  std::string namespace_name;
  std::string pod;
  std::string range = "7d";
  std::string step = "auto";
  int64_t end_s = 0;      // 0 = now
  std::string gpu_model;  // catalog id for GPUs whose series carry no modelName
  int timeout_s = 60;
  bool explain = false;
  bool json = false;
  std::string output = "-";
};

int RunClusterAnalyze(const ClusterAnalyzeArgs& args);

}  // namespace kraken::cli
