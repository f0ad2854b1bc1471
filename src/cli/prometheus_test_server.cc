#include "cli/prometheus_test_server.h"

#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "base/testing/test_data.h"
#include "base/text.h"
#include "importers/common/exposition_parser.h"

namespace kraken::testing {
namespace {

std::string LabelOf(const std::vector<prometheus::Label>& labels, const std::string& name) {
  for (const auto& l : labels)
    if (l.name == name) return l.value;
  return "";
}

std::string Escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// A port the kernel had free a moment ago (bind to 0, read it back, close).
int FreeLoopbackPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  ::close(fd);
  return port;
}

std::string Tail(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  return text.size() > 2000 ? text.substr(text.size() - 2000) : text;
}

}  // namespace

std::string BuildOpenMetricsHistory(const std::vector<CaptureAttribution>& captures, const HistoryShape& shape,
                                    int64_t* series_count) {
  // family name -> series text "name{labels}" -> value text, in first-seen order.
  std::map<std::string, std::map<std::string, std::string>> families;
  for (const CaptureAttribution& c : captures) {
    std::string text = ReadFileOrDie(DataPath(c.data_file));
    prometheus::ExpositionLine line;
    for (std::string_view raw : Split(text, '\n')) {
      prometheus::ParseExpositionLine(raw, &line);
      if (line.kind != prometheus::LineKind::kSample || line.labels.empty()) continue;
      if (c.hostname.empty() ? LabelOf(line.labels, "pod").empty() : LabelOf(line.labels, "Hostname") != c.hostname)
        continue;
      if (c.mig_instances == LabelOf(line.labels, "GPU_I_ID").empty()) continue;
      std::vector<prometheus::Label> labels = line.labels;
      if (!c.pod.empty()) {
        if (c.exported_spelling) {
          labels.push_back({"exported_namespace", c.namespace_name});
          labels.push_back({"exported_pod", c.pod});
          labels.push_back({"namespace", "gpu-operator"});
          labels.push_back({"pod", "nvidia-dcgm-exporter-5x2kq"});
        } else {
          labels.push_back({"namespace", c.namespace_name});
          labels.push_back({"pod", c.pod});
        }
      }
      std::string key = line.metric_name + "{";
      for (size_t i = 0; i < labels.size(); ++i)
        key += (i ? "," : "") + labels[i].name + "=\"" + Escape(labels[i].value) + "\"";
      key += "}";
      families[line.metric_name].emplace(key, std::string(line.value_text));
    }
  }
  std::string out;
  int64_t count = 0;
  for (const auto& [name, series] : families) {
    out += "# TYPE " + name + " gauge\n";
    for (const auto& [key, value] : series) {
      ++count;
      for (int64_t t = shape.end_s - shape.span_s; t <= shape.end_s; t += shape.interval_s)
        out += key + " " + value + " " + std::to_string(t) + "\n";
    }
  }
  out += "# EOF\n";
  *series_count = count;
  return out;
}

PrometheusServer::PrometheusServer(const std::string& openmetrics, const std::string& work_dir,
                                   const std::string& scrape_config) {
  const std::string input = work_dir + "/history.om", data = work_dir + "/data", log = work_dir + "/prometheus.log";
  std::ofstream(input) << openmetrics;
  std::ofstream(work_dir + "/prometheus.yml") << "global:\n  scrape_interval: 15s\n" << scrape_config;
  // Appended, not one chain of operator+: the chain trips GCC 12's false -Warray-bounds.
  std::string command = KRAKEN_PROMTOOL_BINARY;
  command.append(" tsdb create-blocks-from openmetrics --max-block-duration=24h ").append(input).append(" ");
  command.append(data).append(" >").append(work_dir).append("/promtool.log 2>&1");
  if (!openmetrics.empty() && std::system(command.c_str()) != 0) {
    error_ = "promtool failed (install it with scripts/install-deps.sh): " + Tail(work_dir + "/promtool.log");
    return;
  }
  port_ = FreeLoopbackPort();
  if (port_ == 0) {
    error_ = "no free loopback port";
    return;
  }
  const std::string listen = "--web.listen-address=127.0.0.1:" + std::to_string(port_);
  const std::string config = "--config.file=" + work_dir + "/prometheus.yml";
  const std::string storage = "--storage.tsdb.path=" + data;
  pid_ = ::fork();
  if (pid_ == 0) {
    FILE* f = std::freopen(log.c_str(), "w", stdout);
    if (f != nullptr) ::dup2(::fileno(stdout), STDERR_FILENO);
    ::execl(KRAKEN_PROMETHEUS_BINARY, KRAKEN_PROMETHEUS_BINARY, config.c_str(), storage.c_str(), listen.c_str(),
            "--storage.tsdb.retention.time=30d", static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  if (pid_ < 0) {
    error_ = "fork failed";
    return;
  }
  httplib::Client client("127.0.0.1", port_);
  client.set_connection_timeout(1, 0);
  for (int attempt = 0; attempt < 120; ++attempt) {
    auto response = client.Get("/-/ready");
    if (response && response->status == 200) return;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      error_ = "prometheus exited (install it with scripts/install-deps.sh): " + Tail(log);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  error_ = "prometheus not ready after 30 s: " + Tail(log);
}

PrometheusServer::~PrometheusServer() { Stop(); }

void PrometheusServer::Stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

}  // namespace kraken::testing
