// A real Prometheus for tests: writes OpenMetrics history built from the real
// dcgm-exporter captures in ../shared/data/dcgm (values from the files, pod labels and
// timestamps added by the test), loads it with `promtool tsdb create-blocks-from
// openmetrics` and serves it on a free loopback port. Missing binaries fail the test:
// CI installs them with scripts/install-deps.sh.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kraken::testing {

// Which pod a block of an export is attributed to, and under which label spelling.
struct CaptureAttribution {
  std::string data_file;       // relative to the shared data folder
  std::string hostname;        // only lines of this Hostname ("" = lines that already have pod labels)
  bool mig_instances = false;  // only lines with GPU_I_ID (else only lines without)
  std::string namespace_name;  // labels to add; "" = keep the line's own
  std::string pod;
  bool exported_spelling = false;  // exported_namespace/exported_pod + the exporter's own pod labels
};

struct HistoryShape {
  int64_t end_s = 0;       // last sample
  int64_t span_s = 0;      // first sample at end_s - span_s
  int64_t interval_s = 0;  // scrape interval
};

// OpenMetrics text: every matching sample line of each capture, repeated at every
// interval of the shape with its value unchanged. Returns the text; `series` gets the
// number of series written.
std::string BuildOpenMetricsHistory(const std::vector<CaptureAttribution>& captures, const HistoryShape& shape,
                                    int64_t* series);

class PrometheusServer {
 public:
  // Creates blocks from `openmetrics` (when not empty) and starts the server; check
  // ok() / error(). `scrape_config` (YAML, may be empty) is appended to the config file.
  PrometheusServer(const std::string& openmetrics, const std::string& work_dir, const std::string& scrape_config = "");
  ~PrometheusServer();
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Stops the server (SIGTERM, then waits): an outage; url() then names a closed port.
  void Stop();

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string error_;
};

}  // namespace kraken::testing
