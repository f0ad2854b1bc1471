// kraken's configuration: one YAML file whose keys mirror the command-line flags, a few
// environment variables, and the flags themselves. Precedence, per key: flag >
// environment > file > default; every effective value remembers where it came from, so
// `kraken config --print` can say why a setting is what it is (docs/agent.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kraken::config {

// Which groups of metrics the sampler keeps (a disabled group is dropped from every
// batch: not exported, not stored).
struct MetricGroups {
  bool utilization = true;  // gpu/memory-copy/encoder/decoder utilization
  bool memory = true;       // framebuffer total/used/free/reserved
  bool power = true;        // power draw, energy counter
  bool clocks = true;       // SM and memory clocks
  bool temperature = true;  // GPU and memory temperature
  bool pcie = true;         // PCIe throughput and replays
  bool nvlink = true;       // NVLink throughput
  bool profiling = true;    // GPM activity ratios (DCGM_FI_PROF_*)
  bool errors = true;       // ECC counters, last XID
  bool processes = true;    // per-process memory and utilization
};

struct KrakenConfig {
  int64_t interval_ns = 100'000'000;  // sampling.interval
  int64_t slow_interval_ns = 1'000'000'000;  // sampling.slow_interval; 0 = every pass
  std::string nvml_library;           // sampling.nvml_library; "" = KRAKEN_NVML_LIBRARY, else the driver's
  bool gpu_sampling = true;           // sampling.gpu (KRAKEN_ENABLE_GPU_PROFILING); false: no NVML
  MetricGroups metrics;
  bool store_enabled = true;                             // store.enabled
  std::string store_path;                                // store.path; "" = the default location
  int64_t retention_ns = 7 * 86'400'000'000'000;        // store.retention; 0 = keep forever
  int64_t commit_interval_ns = 300'000'000'000;         // store.commit_interval
  std::string listen = "127.0.0.1:9400";                 // agent.listen
  int64_t ring_ns = 60'000'000'000;                      // agent.ring
  int64_t analysis_window_ns = 60'000'000'000;           // agent.analysis_window (<= agent.ring)
  int64_t analysis_interval_ns = 15'000'000'000;         // agent.analysis_interval
  // agent.pod_resources_socket: the kubelet's pod-resources socket (pod labels); "" = none.
  std::string pod_resources_socket = "/var/lib/kubelet/pod-resources/kubelet.sock";
  int64_t pod_refresh_ns = 10'000'000'000;               // agent.pod_refresh
  // agent.node_name (env NODE_NAME, the DaemonSet's downward API): whose pods the agent
  // LISTs for their kraken.io/profiling and kraken.io/profile-interval; "" = none.
  std::string node_name;
  // upload.*: where profiles travel (docs/upload.md); "" url = they stay on this machine.
  std::string upload_url;                                 // upload.url (--upload-to)
  std::string upload_token_file;                          // upload.token_file (--token-file)
  std::string upload_spool;                               // upload.spool; "" = the default folder
  int64_t upload_spool_max_bytes = int64_t{1} << 30;      // upload.spool_max_bytes
  int64_t upload_retry_ns = 30'000'000'000;               // upload.retry_for: one drain's retries
  std::string output_format = "text";                    // output.format: text | json
  std::string log_level = "info";                        // log_level
};

enum class ValueOrigin { kDefault, kFile, kEnvironment, kFlag };

struct ValueSource {
  ValueOrigin origin = ValueOrigin::kDefault;
  std::string where;  // "kraken.yaml:7", "KRAKEN_LOG_LEVEL", "--interval"; "" for defaults
};
std::string DescribeSource(const ValueSource& source);  // "default", "file kraken.yaml:7", ...

// One key of the file, documented (the table of docs/agent.md comes from the same list).
struct ConfigKeyInfo {
  std::string_view name;  // "sampling.interval"
  std::string_view env;   // environment variable that sets it, "" none
  std::string_view help;
};
const std::vector<ConfigKeyInfo>& ConfigKeys();

// A flag that was given on the command line, for the key it mirrors.
struct FlagValue {
  std::string key;   // "sampling.interval"
  std::string flag;  // "--interval"
  std::string text;  // as given
};

struct ConfigInputs {
  std::string config_flag;                         // --config FILE; "" = none
  std::map<std::string, std::string> environment;  // KRAKEN_* variables that are set
  std::vector<FlagValue> flags;
};

struct EffectiveConfig {
  KrakenConfig values;
  std::string file;       // the file that was read, "" = none
  ValueSource file_from;  // --config or KRAKEN_CONFIG
  std::map<std::string, ValueSource> sources;  // every key of ConfigKeys()
  // One line per key of the file that kraken does not act on (the KRAKEN design's keys,
  // config/design_config.h): "FILE:LINE: profiler.output.formats: not acted on: ...".
  std::vector<std::string> warnings;
};

// The variables kraken reads (KRAKEN_CONFIG, KRAKEN_LOG_LEVEL, KRAKEN_STORAGE_PATH,
// KRAKEN_NVML_LIBRARY, KRAKEN_ENABLE_GPU_PROFILING, KRAKEN_METRICS_PORT, NODE_NAME) that
// are set and not empty in this process.
std::map<std::string, std::string> ReadEnvironment();

// Defaults, then the file (--config, else KRAKEN_CONFIG), then the environment, then the
// flags. The file may hold kraken's keys and the KRAKEN design's (under `profiler:`); a
// kraken key set by both is an error. Errors name where the bad value is: "FILE:LINE: key 'store.retension' is not a
// kraken setting", "KRAKEN_LOG_LEVEL: 'loud' is not one of error, warn, info, debug",
// "--interval: ...".
Result<EffectiveConfig> ResolveConfig(const ConfigInputs& inputs);

// The effective value of a key as text, as `config --print` shows it.
std::string ValueText(const KrakenConfig& config, std::string_view key);

// "127.0.0.1:9400" -> host and port; "[::1]:9400" -> "::1"; ":9400" -> "0.0.0.0".
struct ListenAddress {
  std::string host;
  int port = 0;
};
Result<ListenAddress> ParseListenAddress(std::string_view text);

}  // namespace kraken::config
