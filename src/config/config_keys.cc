#include "config/config_keys.h"

#include "base/duration.h"
#include "base/log.h"
#include "base/text.h"

namespace kraken::config {
namespace {

constexpr int64_t kSecondNs = 1'000'000'000;

// 'text', built by appending: GCC 12's -Wrestrict misfires on "'" + std::string(...).
std::string Quoted(std::string_view text) {
  std::string out = "'";
  out.append(text).append("'");
  return out;
}

Status ParseBool(std::string_view text, bool& out) {
  // 1/0, yes/no, on/off too: environment variables (KRAKEN_ENABLE_GPU_PROFILING) are often
  // written that way.
  std::string lower = ToLower(Trim(text));
  if (lower == "true" || lower == "1" || lower == "yes" || lower == "on") {
    out = true;
  } else if (lower == "false" || lower == "0" || lower == "no" || lower == "off") {
    out = false;
  } else {
    return InvalidInput(Quoted(text) + " is not true or false");
  }
  return Status::Ok();
}

// A duration within [min_ns, max_ns]; zero also when `zero_allowed` (with its meaning).
Status ParseDurationIn(std::string_view text, int64_t min_ns, int64_t max_ns, bool zero_allowed, int64_t& out) {
  std::optional<int64_t> ns = ParseDurationNs(Trim(text));
  if (!ns) return InvalidInput(Quoted(text) + " is not a duration such as 100ms, 10s, 5m, 7d");
  if (*ns == 0 && zero_allowed) {
    out = 0;
    return Status::Ok();
  }
  if (*ns < min_ns || *ns > max_ns)
    return InvalidInput(Quoted(text) + " is outside " + FormatDurationNs(min_ns) + " .. " +
                        FormatDurationNs(max_ns) + (zero_allowed ? " (or 0)" : ""));
  out = *ns;
  return Status::Ok();
}

Status ParseNonEmpty(std::string_view text, std::string& out) {
  std::string_view trimmed = Trim(text);
  if (trimmed.empty()) return InvalidInput("must not be empty");
  out = std::string(trimmed);
  return Status::Ok();
}

std::string BoolText(bool v) { return v ? "true" : "false"; }

#define KRAKEN_METRIC_GROUP_KEY(field, help_text)                                                  \
  KeySpec {                                                                                        \
    {"metrics." #field, "", help_text},                                                            \
        [](std::string_view t, KrakenConfig& c) -> Status { return ParseBool(t, c.metrics.field); },         \
        [](const KrakenConfig& c) { return BoolText(c.metrics.field); }                            \
  }

const std::vector<KeySpec> kKeys = {
    {{"sampling.interval", "", "time between sampling passes (--interval), 1ms .. 24h"},
     [](std::string_view t, KrakenConfig& c) -> Status { return ParseDurationIn(t, 1'000'000, 86'400 * kSecondNs, false, c.interval_ns); },
     [](const KrakenConfig& c) { return FormatDurationNs(c.interval_ns); }},
    {{"sampling.slow_interval", "",
      "time between the slow NVML reads of a GPU (--slow-interval): energy, PCIe throughput, process "
      "utilization; 0: every pass, "
      "else 1ms .. 24h"},
     [](std::string_view t, KrakenConfig& c) -> Status {
       return ParseDurationIn(t, 1'000'000, 86'400 * kSecondNs, true, c.slow_interval_ns);
     },
     [](const KrakenConfig& c) { return FormatDurationNs(c.slow_interval_ns); }},
    {{"sampling.nvml_library", "KRAKEN_NVML_LIBRARY", "NVML library to load (--nvml-library); empty: libnvidia-ml.so.1"},
     [](std::string_view t, KrakenConfig& c) -> Status {
       c.nvml_library = std::string(Trim(t));
       return Status::Ok();
     },
     [](const KrakenConfig& c) { return c.nvml_library; }},
    {{"sampling.gpu", "KRAKEN_ENABLE_GPU_PROFILING",
      "sample the GPUs through NVML; false: the agent opens no NVML and serves only its own series"},
     [](std::string_view t, KrakenConfig& c) -> Status { return ParseBool(t, c.gpu_sampling); },
     [](const KrakenConfig& c) { return BoolText(c.gpu_sampling); }},
    KRAKEN_METRIC_GROUP_KEY(utilization, "GPU, memory-copy, encoder and decoder utilization"),
    KRAKEN_METRIC_GROUP_KEY(memory, "framebuffer total, used, free, reserved"),
    KRAKEN_METRIC_GROUP_KEY(power, "power draw and the energy counter"),
    KRAKEN_METRIC_GROUP_KEY(clocks, "SM and memory clocks"),
    KRAKEN_METRIC_GROUP_KEY(temperature, "GPU and memory temperature"),
    KRAKEN_METRIC_GROUP_KEY(pcie, "PCIe throughput and replay counter"),
    KRAKEN_METRIC_GROUP_KEY(nvlink, "NVLink throughput"),
    KRAKEN_METRIC_GROUP_KEY(profiling, "GPM activity ratios (DCGM_FI_PROF_*)"),
    KRAKEN_METRIC_GROUP_KEY(errors, "ECC error counters and the last XID"),
    KRAKEN_METRIC_GROUP_KEY(processes, "per-process memory and utilization"),
    {{"store.enabled", "", "keep samples in the profile store (agent: --no-store turns it off)"},
     [](std::string_view t, KrakenConfig& c) -> Status { return ParseBool(t, c.store_enabled); },
     [](const KrakenConfig& c) { return BoolText(c.store_enabled); }},
    {{"store.path", "KRAKEN_STORAGE_PATH",
      "profile database (--db); a folder means FOLDER/kraken.db; empty: $XDG_DATA_HOME/kraken/kraken.db"},
     [](std::string_view t, KrakenConfig& c) -> Status { return ParseNonEmpty(t, c.store_path); },
     [](const KrakenConfig& c) { return c.store_path; }},
    {{"store.retention", "", "agent: delete stored profiles older than this (--retention); 0 keeps them"},
     [](std::string_view t, KrakenConfig& c) -> Status {
       return ParseDurationIn(t, 60 * kSecondNs, 3650 * 86'400 * kSecondNs, true, c.retention_ns);
     },
     [](const KrakenConfig& c) { return FormatDurationNs(c.retention_ns); }},
    {{"store.commit_interval", "", "agent: commit the live profile and start the next one this often"},
     [](std::string_view t, KrakenConfig& c) -> Status {
       return ParseDurationIn(t, kSecondNs, 86'400 * kSecondNs, false, c.commit_interval_ns);
     },
     [](const KrakenConfig& c) { return FormatDurationNs(c.commit_interval_ns); }},
    {{"agent.listen", "", "address of /metrics (--listen), HOST:PORT; port 0 picks a free one"},
     [](std::string_view t, KrakenConfig& c) -> Status {
       KRAKEN_ASSIGN_OR_RETURN(ListenAddress address, ParseListenAddress(Trim(t)));
       (void)address;
       c.listen = std::string(Trim(t));
       return Status::Ok();
     },
     [](const KrakenConfig& c) { return c.listen; }},
    {{"agent.ring", "", "how much recent sampling the agent keeps in memory"},
     [](std::string_view t, KrakenConfig& c) -> Status { return ParseDurationIn(t, kSecondNs, 3600 * kSecondNs, false, c.ring_ns); },
     [](const KrakenConfig& c) { return FormatDurationNs(c.ring_ns); }},
    {{"agent.analysis_window", "", "span of recent passes the kraken_* analysis reads, at most agent.ring (--analysis-window)"},
     [](std::string_view t, KrakenConfig& c) -> Status { return ParseDurationIn(t, kSecondNs, 3600 * kSecondNs, false, c.analysis_window_ns); },
     [](const KrakenConfig& c) { return FormatDurationNs(c.analysis_window_ns); }},
    {{"agent.analysis_interval", "", "how often the kraken_* analysis of that window runs again"},
     [](std::string_view t, KrakenConfig& c) -> Status { return ParseDurationIn(t, kSecondNs, 3600 * kSecondNs, false, c.analysis_interval_ns); },
     [](const KrakenConfig& c) { return FormatDurationNs(c.analysis_interval_ns); }},
    {{"agent.pod_resources_socket", "",
      "kubelet pod-resources socket for pod/namespace/container labels (--pod-resources-socket); empty: none"},
     [](std::string_view t, KrakenConfig& c) -> Status {
       c.pod_resources_socket = std::string(Trim(t));
       return Status::Ok();
     },
     [](const KrakenConfig& c) { return c.pod_resources_socket; }},
    {{"agent.pod_refresh", "", "how often the agent asks the kubelet which pod holds which GPU (--pod-refresh)"},
     [](std::string_view t, KrakenConfig& c) -> Status {
       return ParseDurationIn(t, kSecondNs, 3600 * kSecondNs, false, c.pod_refresh_ns);
     },
     [](const KrakenConfig& c) { return FormatDurationNs(c.pod_refresh_ns); }},
    {{"agent.node_name", "NODE_NAME",
      "node whose pods' kraken.io/profiling and kraken.io/profile-interval the agent reads from the API server "
      "(--node-name); empty: annotations are not read"},
     [](std::string_view t, KrakenConfig& c) -> Status {
       c.node_name = std::string(Trim(t));
       return Status::Ok();
     },
     [](const KrakenConfig& c) { return c.node_name; }},
    {{"upload.url", "", "central API that profile, trial, the agent and Python sessions upload to (--upload-to)"},
     [](std::string_view t, KrakenConfig& c) -> Status {
       c.upload_url = std::string(Trim(t));
       return Status::Ok();
     },
     [](const KrakenConfig& c) { return c.upload_url; }},
    {{"upload.token_file", "", "file holding the API's bearer token for uploads (--token-file)"},
     [](std::string_view t, KrakenConfig& c) -> Status {
       c.upload_token_file = std::string(Trim(t));
       return Status::Ok();
     },
     [](const KrakenConfig& c) { return c.upload_token_file; }},
    {{"upload.spool", "", "folder where uploads wait for the API (--upload-spool); empty: the default"},
     [](std::string_view t, KrakenConfig& c) -> Status {
       c.upload_spool = std::string(Trim(t));
       return Status::Ok();
     },
     [](const KrakenConfig& c) { return c.upload_spool; }},
    {{"upload.spool_max_bytes", "", "bytes the upload spool may hold; past it new uploads are refused with a warning"},
     [](std::string_view t, KrakenConfig& c) -> Status {
       std::optional<int64_t> v = ParseInt64(Trim(t));
       if (!v || *v < 1024) return InvalidInput(Quoted(t) + " is not a byte count of at least 1024");
       c.upload_spool_max_bytes = *v;
       return Status::Ok();
     },
     [](const KrakenConfig& c) { return std::to_string(c.upload_spool_max_bytes); }},
    {{"upload.retry_for", "", "how long one upload pass retries an unreachable API before leaving the rest spooled"},
     [](std::string_view t, KrakenConfig& c) -> Status {
       return ParseDurationIn(t, 0, 3600 * kSecondNs, true, c.upload_retry_ns);
     },
     [](const KrakenConfig& c) { return FormatDurationNs(c.upload_retry_ns); }},
    {{"output.format", "", "how commands print results: text or json (--json)"},
     [](std::string_view t, KrakenConfig& c) -> Status {
       std::string v(Trim(t));
       if (v != "text" && v != "json") return InvalidInput(Quoted(v) + " is not one of text, json");
       c.output_format = v;
       return Status::Ok();
     },
     [](const KrakenConfig& c) { return c.output_format; }},
    {{"log_level", "KRAKEN_LOG_LEVEL", "diagnostics on standard error: error, warn, info, debug (--log-level)"},
     [](std::string_view t, KrakenConfig& c) -> Status {
       // Any case, and Python's names (the KRAKEN design writes KRAKEN_LOG_LEVEL=INFO).
       std::string v = ToLower(Trim(t));
       if (v == "warning") v = "warn";
       if (v == "critical") v = "error";
       if (!ParseLogLevel(v)) return InvalidInput(Quoted(Trim(t)) + " is not one of error, warn, info, debug");
       c.log_level = v;
       return Status::Ok();
     },
     [](const KrakenConfig& c) { return c.log_level; }},
};

#undef KRAKEN_METRIC_GROUP_KEY

}  // namespace

const std::vector<KeySpec>& KeySpecs() { return kKeys; }

const KeySpec* FindKey(std::string_view name) {
  for (const KeySpec& key : kKeys)
    if (key.info.name == name) return &key;
  return nullptr;
}

const std::vector<ConfigKeyInfo>& ConfigKeys() {
  static const std::vector<ConfigKeyInfo> keys = [] {
    std::vector<ConfigKeyInfo> out;
    for (const KeySpec& key : kKeys) out.push_back(key.info);
    return out;
  }();
  return keys;
}

std::string ValueText(const KrakenConfig& config, std::string_view key) {
  const KeySpec* spec = FindKey(key);
  return spec != nullptr ? spec->get(config) : "";
}

}  // namespace kraken::config
