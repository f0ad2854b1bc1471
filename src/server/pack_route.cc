// POST /api/v1/pack {"nodes_csv":"...","pods_csv":"...","policy":"FGD,Kraken",...}: the
// `kraken pack --json` document for a cluster sent in the body (the store holds no node or
// pod lists). The lists are parsed by the openb loader from memory and the document is
// made by the CLI's own path (app/pack_request.h), so both answer the same bytes except
// the timings (`wall_seconds`, `seconds`) and the input names (`nodes_csv`, `pods_csv`).
#include <cmath>

#include "importers/openb/openb_loader.h"
#include "app/pack_request.h"
#include "server/http_util.h"
#include "server/json_body.h"
#include "server/server_context.h"

namespace kraken::server {
namespace {

// The input names stand in for file paths: in the document and in loader errors
// ("nodes_csv: line 1: missing column 'gpu'"), so a message names the field at fault.
constexpr const char* kNodesField = "nodes_csv";
constexpr const char* kPodsField = "pods_csv";

bool IsWhole(double value, double low, double high) {
  return value >= low && value <= high && value == std::floor(value);
}

// A whole number within [low, high]; absent -> fallback.
Result<int64_t> WholeField(const JsonBody& body, const std::string& key, int64_t fallback, int64_t low, int64_t high) {
  auto value = body.Number(key, static_cast<double>(low), static_cast<double>(high));
  if (value.ok() && !*value) return fallback;
  if (!value.ok() || !IsWhole(**value, static_cast<double>(low), static_cast<double>(high)))
    return InvalidInput("'" + key + "' must be a whole number in [" + std::to_string(low) + ", " +
                        std::to_string(high) + "]");
  return static_cast<int64_t>(**value);
}

// The optional parameters of `kraken pack`, under the flag names with '_' for '-'.
Result<PackSettings> ReadSettings(const JsonBody& body) {
  PackSettings settings;
  KRAKEN_ASSIGN_OR_RETURN(std::string policy, body.String("policy"));
  if (!policy.empty()) settings.policy = policy;
  // Seeds are text ("42-51", "1,5,9"); a single seed may come as a number.
  auto seeds = body.String("seeds");
  if (seeds.ok()) {
    if (!seeds->empty()) settings.seeds = *seeds;
  } else {
    KRAKEN_ASSIGN_OR_RETURN(int64_t seed, WholeField(body, "seeds", 0, 0, int64_t{1} << 53));
    settings.seeds = std::to_string(seed);
  }
  // The ranges `kraken pack` checks (app/pack_request.cc); here they are the body's.
  KRAKEN_ASSIGN_OR_RETURN(std::optional<double> tune, body.Number("tune", 0, 5));
  if (tune) settings.tune = *tune;
  KRAKEN_ASSIGN_OR_RETURN(std::optional<double> threshold, body.Number("threshold", 0, 100));
  if (threshold) settings.threshold = *threshold;
  KRAKEN_ASSIGN_OR_RETURN(int64_t threads, WholeField(body, "threads", settings.threads, 1, 256));
  settings.threads = static_cast<int>(threads);
  KRAKEN_ASSIGN_OR_RETURN(settings.explain, body.Bool("explain"));
  KRAKEN_ASSIGN_OR_RETURN(std::vector<double> positions, body.NumberList("explain_pod", 0, 1e12));
  for (double position : positions) {
    if (!IsWhole(position, 0, 1e12)) return InvalidInput("'explain_pod' must hold arrival positions (0, 1, ...)");
    settings.explain_pods.push_back(static_cast<int64_t>(position));
  }
  KRAKEN_ASSIGN_OR_RETURN(int64_t top, WholeField(body, "explain_top", 5, 0, 1000));
  settings.explain_top = static_cast<size_t>(top);
  return settings;
}

// "nodes_csv: openb_bad_rows=2 openb_wrong_field_count=2; pods_csv: ..." (what the CLI
// prints on stderr), empty when the loader skipped and repaired nothing.
std::string CountersLine(const std::map<std::string, int64_t>& nodes, const std::map<std::string, int64_t>& pods) {
  std::string out;
  for (const auto& [field, counters] : {std::pair{kNodesField, &nodes}, std::pair{kPodsField, &pods}}) {
    if (counters->empty()) continue;
    if (!out.empty()) out += "; ";
    out += std::string(field) + ":";
    for (const auto& [name, count] : *counters) out += " " + name + "=" + std::to_string(count);
  }
  return out;
}

constexpr size_t kMaxPackExperiments = 100;

void HandlePack(const httplib::Request& req, httplib::Response& res) {
  std::string type = req.get_header_value("Content-Type");
  if (!type.empty() && type.find("json") == std::string::npos)
    return SendError(res, 415, "unsupported_media_type", "send the request as application/json, not " + type);
  auto body = JsonBody::Parse(req.body);
  if (!body.ok()) return SendError(res, 400, "bad_json", body.status().message());
  std::string texts[2];
  const char* fields[2] = {kNodesField, kPodsField};
  for (int i = 0; i < 2; ++i) {
    auto text = body->String(fields[i]);
    if (!text.ok()) return SendStatus(res, text.status());
    if (text->empty())
      return SendError(res, 400, "bad_request",
                       std::string("'") + fields[i] + "' is required: the text of an openb " +
                           (i == 0 ? "node" : "pod") + " list CSV");
    texts[i] = std::move(text).value();
  }
  auto settings = ReadSettings(*body);
  if (!settings.ok()) return SendStatus(res, settings.status());
  auto plan = MakePackPlan(*settings);
  if (!plan.ok()) return SendStatus(res, plan.status());
  // One request runs its simulations inside a server worker: a bound on seeds x policies
  // keeps it to seconds (the CLI's default sweep, 10 seeds x 7 policies, is 70) so a long
  // seed list cannot hold a worker for hours. Bigger sweeps belong to `kraken pack`.
  const size_t experiments = plan->seeds.size() * plan->policies.size();
  if (experiments > kMaxPackExperiments)
    return SendError(res, 400, "bad_request",
                     "seeds x policies = " + std::to_string(experiments) + " experiments; the server runs at most " +
                         std::to_string(kMaxPackExperiments) + " per request (run larger sweeps with `kraken pack`)");

  auto nodes = ParseOpenbNodes(texts[0], kNodesField);
  if (!nodes.ok()) return SendStatus(res, nodes.status(), 422);
  auto pods = ParseOpenbPods(texts[1], kPodsField);
  if (!pods.ok()) return SendStatus(res, pods.status(), 422);
  std::string counters = CountersLine(nodes->counters, pods->counters);
  PackCluster cluster{std::move(nodes->nodes), std::move(pods->pods), kNodesField, kPodsField};
  auto document = RenderPack(std::move(cluster), *settings, *plan, /*json=*/true);
  if (!document.ok()) return SendStatus(res, document.status(), 422);
  if (!counters.empty()) res.set_header("X-Kraken-Import-Counters", counters);
  SendJson(res, 200, std::move(document).value());
}

}  // namespace

void AddPackRoute(httplib::Server& server) {
  server.Post("/api/v1/pack", [](const httplib::Request& req, httplib::Response& res) { HandlePack(req, res); });
}

}  // namespace kraken::server
