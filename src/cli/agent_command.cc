// `kraken agent`: samples the node's GPUs continuously, serves /metrics with
// dcgm-exporter's names (Prometheus), and keeps the samples in the profile store
// (docs/agent.md). SIGINT/SIGTERM stop it cleanly: the last profile is committed, exit 0.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "agent/agent.h"
#include "agent/metrics_server.h"
#include "agent/topology_publisher.h"
#include "base/duration.h"
#include "base/log.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/config_flags.h"
#include "cli/store_access.h"
#include "app/upload_request.h"
#include "cli/upload_flags.h"
#include "k8s/client/in_cluster_config.h"
#include "k8s/attribution/node_pods.h"
#include "k8s/attribution/pod_resources/pod_resources_client.h"

namespace kraken::cli {
namespace {

// Publishes kraken.io/gpu-topology on this node after each pod-resources refresh
// (agent/topology_publisher.h); a failed PATCH is logged once per kind of error.
std::function<void(const k8s::GpuPodMap*)> TopologyHook(std::shared_ptr<k8s::KubeClient> kube, const std::string& node,
                                                     const nvml::NvmlSampler& sampler) {
  std::vector<agent::PublishedGpu> gpus;
  for (const DeviceInfo& d : sampler.devices()) gpus.push_back({d.uuid, d.mig_enabled});
  auto publisher = std::make_shared<agent::TopologyPublisher>(
      *kube, node, nvml::PlacementTopology(sampler.reader().devices(), sampler.topology()), std::move(gpus));
  auto last_error = std::make_shared<std::string>();
  return [kube, publisher, last_error](const k8s::GpuPodMap* map) {
    Result<bool> published = publisher->Publish(map);
    std::string error = published.ok() ? "" : published.status().message();
    if (!error.empty() && error != *last_error)
      Log(LogLevel::kWarn, "topology: kraken.io/gpu-topology not written: %s", error.c_str());
    *last_error = error;
  };
}

struct AgentArgs {
  ConfigFlags flags;
};

std::string Hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

// store.path: empty = the default location; a folder = FOLDER/kraken.db (docs/store.md).
std::string StorePath(const std::string& configured) {
  struct stat info {};
  if (!configured.empty() && ::stat(configured.c_str(), &info) == 0 && S_ISDIR(info.st_mode))
    return configured + "/kraken.db";
  return ResolveDbPath(configured);
}

// SIGINT/SIGTERM are taken by sigwait, never by a handler; blocked before any thread
// starts, so that every thread inherits the mask. A scraper that hangs up mid-response
// must not kill the agent.
sigset_t BlockStopSignals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  return stop_signals;
}

// Waits for SIGINT or SIGTERM (blocked by BlockStopSignals) and says which came.
void AwaitStopSignal(const sigset_t& stop_signals) {
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  Log(LogLevel::kInfo, "%s: stopping", signal_number == SIGINT ? "SIGINT" : "SIGTERM");
}

// sampling.gpu: false (KRAKEN_ENABLE_GPU_PROFILING=false): no NVML is opened and nothing
// is stored, while /metrics and /healthz still answer, so that a DaemonSet pod on a node
// kept out of GPU profiling runs instead of failing.
int RunWithoutGpuSampling(const config::KrakenConfig& c) {
  sigset_t stop_signals = BlockStopSignals();
  agent::MetricsServer server([](std::string& out) {
    out +=
        "# HELP kraken_agent_gpu_sampling Whether the agent samples GPUs (sampling.gpu, KRAKEN_ENABLE_GPU_PROFILING).\n"
        "# TYPE kraken_agent_gpu_sampling gauge\n"
        "kraken_agent_gpu_sampling 0\n";
  });
  Status listening = server.Start(c.listen);
  if (!listening.ok()) return ReportError(listening);
  Log(LogLevel::kInfo, "serving http://%s:%d/metrics: GPU sampling is off (sampling.gpu: false), no NVML, no store",
      server.host().c_str(), server.port());
  AwaitStopSignal(stop_signals);
  server.Stop();
  return kExitOk;
}

// The agent's sampling, ring, store and analysis settings, and where it learns which pod
// holds which GPU (the kubelet's pod-resources socket), from the configuration.
agent::AgentOptions AgentOptionsFrom(const config::KrakenConfig& c) {
  agent::AgentOptions options;
  options.interval_ns = c.interval_ns;
  options.ring_ns = c.ring_ns;
  options.commit_interval_ns = c.commit_interval_ns;
  options.retention_ns = c.retention_ns;
  options.metrics = c.metrics;
  options.hostname = Hostname();
  options.analysis_window_ns = c.analysis_window_ns;
  options.analysis_interval_ns = c.analysis_interval_ns;
  if (!c.pod_resources_socket.empty()) {
    options.pods.source = c.pod_resources_socket;
    options.pods.list = [socket = c.pod_resources_socket] { return k8s::ListPodDevices(socket); };
  }
  options.pods.refresh_ns = c.pod_refresh_ns;
  options.pods.agent_interval_ns = c.interval_ns;
  return options;
}

// Pod annotations (kraken.io/profiling, kraken.io/profile-interval) need the API server:
// with it, the agent reads its node's pods from there and publishes the node's GPU
// topology after each refresh. Without it the agent runs as it would outside Kubernetes;
// returns why, for the caller to say once ("" when read, or when there are no pods at all).
std::string ReadPodsFromApiServer(const config::KrakenConfig& c, const nvml::NvmlSampler& sampler,
                                  agent::AgentOptions* options) {
  if (c.pod_resources_socket.empty()) return "";
  auto kube_config = k8s::LoadInClusterConfig();
  if (!kube_config.ok()) return kube_config.status().message();
  if (c.node_name.empty()) return "no node name (agent.node_name, --node-name, $NODE_NAME)";
  // The hooks share the client: it lives as long as the agent's options.
  auto kube = std::make_shared<k8s::KubeClient>(*kube_config);
  options->pods.pods_source = "the API server (pods of node " + c.node_name + ")";
  options->pods.list_pods = [kube, node = c.node_name] { return k8s::ListNodePods(*kube, node); };
  options->pods.on_refresh = TopologyHook(kube, c.node_name, sampler);
  return "";
}

// Each committed window travels to the central API (docs/upload.md), off the sampler
// thread; the worker is returned to be kept alive while the agent runs. None without upload.
std::unique_ptr<app::UploadWorker> UploadEachCommit(const app::UploadSettings& upload, agent::AgentOptions* options) {
  if (!upload.enabled()) return nullptr;
  auto uploader = std::make_unique<app::UploadWorker>(upload);
  options->on_commit = [worker = uploader.get(), host = options->hostname](ProfileStore& db, int64_t id) {
    auto committed = db.LoadProfile(id);
    if (!committed.ok()) {
      Log(LogLevel::kWarn, "upload: profile %lld: %s", static_cast<long long>(id), committed.status().message().c_str());
      return;
    }
    worker->Ship(*committed, "kraken-agent-" + host + "-" + std::to_string(id) + ".json");
  };
  return uploader;
}

int RunAgent(const AgentArgs& args) {
  auto resolved = args.flags.Resolve();
  if (!resolved.ok()) return ReportError(resolved.status());
  const config::KrakenConfig& c = resolved->values;
  SetLogPrefix("kraken agent");
  if (auto level = ParseLogLevel(c.log_level)) SetLogLevel(*level);
  // The analysis reads the ring; a longer window would silently be the ring's.
  if (c.analysis_window_ns > c.ring_ns)
    return ReportError(InvalidInput("agent.analysis_window (" + FormatDurationNs(c.analysis_window_ns) +
                                    ") is longer than agent.ring (" + FormatDurationNs(c.ring_ns) +
                                    "), which holds the passes it analyses: raise agent.ring"));
  if (!c.gpu_sampling) return RunWithoutGpuSampling(c);

  nvml::NvmlSamplerOptions sampler_options;
  sampler_options.slow_interval_us = c.slow_interval_ns / 1000;
  auto session = nvml::OpenNvmlSession(c.nvml_library, sampler_options);
  if (!session.ok()) return ReportError(session.status());

  std::unique_ptr<ProfileStore> store;
  std::string store_path;
  if (c.store_enabled) {
    store_path = StorePath(c.store_path);
    auto opened = OpenStoreForWriting(store_path);
    if (!opened.ok()) return ReportError(opened.status());
    store = std::move(*opened);
  }

  app::UploadSettings upload = app::UploadSettingsFrom(c);
  if (Status checked = app::CheckUploadSettings(upload); !checked.ok()) return ReportError(checked);
  if (upload.enabled() && !store)
    return ReportError(InvalidInput("upload.url: the agent uploads the profiles it commits, and there is no store "
                                    "(store.enabled: false)"));

  sigset_t stop_signals = BlockStopSignals();

  agent::AgentOptions options = AgentOptionsFrom(c);
  // Why pod annotations are not read; logged once the address is ours.
  std::string annotations_off = ReadPodsFromApiServer(c, *session->sampler, &options);
  // Replayed pids are not this machine's processes: no cgroup fallback for them.
  if (!session->library->is_replay()) options.pods.proc_root = "/proc";
  std::unique_ptr<app::UploadWorker> uploader = UploadEachCommit(upload, &options);
  agent::Agent agent(options, *session->sampler, store.get());
  // The address first: an address in use is an error before anything is stored.
  agent::MetricsServer server([&agent](std::string& out) { agent.RenderMetrics(out); },
                              [&agent](int64_t since_ns, size_t max_passes, std::string& out) {
                                agent.RenderRing(since_ns, max_passes, out);
                              });
  Status listening = server.Start(c.listen);
  if (!listening.ok()) return ReportError(listening);
  if (!annotations_off.empty())
    Log(LogLevel::kInfo, "pod annotations: %s: kraken.io/profiling and kraken.io/profile-interval are not read",
        annotations_off.c_str());
  Status started = agent.Start();
  if (!started.ok()) {
    server.Stop();
    return ReportError(started);
  }
  Log(LogLevel::kInfo, "serving http://%s:%d/metrics: %zu GPUs every %s, %s", server.host().c_str(), server.port(),
      session->sampler->devices().size(), FormatDurationNs(c.interval_ns).c_str(),
      store ? ("store " + store_path).c_str() : "no store");

  AwaitStopSignal(stop_signals);
  server.Stop();
  Status stopped = agent.Stop();
  if (!stopped.ok()) return ReportError(stopped);
  Log(LogLevel::kInfo, "stopped after %lld sampling passes, %lld profiles committed",
      static_cast<long long>(agent.samples_total()), static_cast<long long>(agent.committed_profiles()));
  return kExitOk;
}

}  // namespace

void AddAgentCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<AgentArgs>();
  CLI::App* cmd = app.add_subcommand(
      "agent", "Sample this node's GPUs continuously: /metrics for Prometheus (dcgm-exporter names) and the store");
  ConfigFlags& f = args->flags;
  f.AddConfigFlag(cmd);
  AddUploadKeyFlags(cmd, f);
  f.AddKeyFlag(cmd, "--listen", "agent.listen", "Address of /metrics and /healthz, HOST:PORT (port 0: a free one)");
  f.AddKeyFlag(cmd, "--interval", "sampling.interval", "Time between sampling passes, e.g. 100ms, 1s");
  f.AddKeyFlag(cmd, "--slow-interval", "sampling.slow_interval",
               "Time between a GPU's slow NVML reads (energy, PCIe throughput, process utilization: ~46 ms "
               "per H100; /metrics shows their last values in between), e.g. 1s (default), 0: every pass");
  f.AddKeyFlag(cmd, "--db", "store.path", "Profile database (default: $KRAKEN_STORAGE_PATH, else the XDG data dir)");
  f.AddKeySwitch(cmd, "--no-store", "store.enabled", "false", "Serve /metrics only; keep nothing on disk");
  f.AddKeyFlag(cmd, "--retention", "store.retention", "Delete stored profiles older than this, e.g. 7d (0: keep all)");
  f.AddKeyFlag(cmd, "--commit-interval", "store.commit_interval",
               "Commit the live profile and begin the next one this often, e.g. 5m");
  f.AddKeyFlag(cmd, "--analysis-window", "agent.analysis_window",
               "Recent span the kraken_* metrics analyse, e.g. 1m (at most agent.ring)");
  f.AddKeyFlag(cmd, "--nvml-library", "sampling.nvml_library",
               "NVML library to load (default: $KRAKEN_NVML_LIBRARY, else libnvidia-ml.so.1)");
  f.AddKeyFlag(cmd, "--pod-resources-socket", "agent.pod_resources_socket",
               "Kubelet pod-resources socket for pod/namespace/container labels (\"\": none); missing: no labels");
  f.AddKeyFlag(cmd, "--pod-refresh", "agent.pod_refresh", "How often to ask the kubelet which pod holds which GPU");
  f.AddKeyFlag(cmd, "--node-name", "agent.node_name",
               "This node's name, for its pods' kraken.io/* annotations from the API server (default: $NODE_NAME)");
  f.AddKeyFlag(cmd, "--log-level", "log_level", "Diagnostics on standard error: error, warn, info, debug");
  cmd->get_option("--db")->excludes("--no-store");
  commands.push_back({cmd, [args] { return RunAgent(*args); }});
}

}  // namespace kraken::cli
