#include "server/agent_ring_source.h"

#include <httplib.h>
#include <simdjson.h>

#include "base/json_writer.h"
#include "base/text.h"

namespace kraken::server {
namespace {

// A ring answer is at most 600 passes of a node's GPUs; far more is not an agent.
constexpr size_t kMaxRingAnswerBytes = 64 << 20;

std::string ErrorEvent(const AgentAddress& agent, const std::string& message) {
  JsonWriter json(false);
  json.BeginObject().Key("profile_id").Null().Field("source", "agent").Field("agent", agent.url());
  json.Field("error", message).Key("time_ns").Null().Key("samples").BeginArray().EndArray().EndObject();
  return json.Take();
}

// The newest pass of the ring answer as the event's JSON; empty samples when none is new.
Result<std::string> EventFromRing(const AgentAddress& agent, const std::string& body, int64_t* since_ns) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(body).get(doc) != simdjson::SUCCESS) return InvalidInput("the agent's ring answer is not JSON");
  int64_t committed = 0;
  if (doc["committed_profiles"].get_int64().get(committed) != simdjson::SUCCESS) committed = 0;
  simdjson::dom::array passes;
  if (doc["passes"].get_array().get(passes) != simdjson::SUCCESS) return InvalidInput("the ring answer has no passes");
  JsonWriter json(false);
  json.BeginObject().Key("profile_id").Null().Field("source", "agent").Field("agent", agent.url());
  json.Field("committed_profiles", committed);
  size_t count = passes.size();
  if (count == 0) {
    json.Key("time_ns").Null().Key("samples").BeginArray().EndArray().EndObject();
    return json.Take();
  }
  simdjson::dom::element newest;
  if (passes.at(count - 1).get(newest) != simdjson::SUCCESS) return InvalidInput("the ring answer's last pass is unreadable");
  int64_t time_ns = 0;
  if (newest["time_ns"].get_int64().get(time_ns) != simdjson::SUCCESS) return InvalidInput("a pass has no time_ns");
  *since_ns = time_ns;
  json.Field("time_ns", time_ns).Key("samples").BeginArray();
  simdjson::dom::array samples;
  if (newest["samples"].get_array().get(samples) == simdjson::SUCCESS) {
    for (simdjson::dom::element s : samples) {
      int64_t gpu = -1, instance = -1;
      std::string_view metric;
      double value = 0;
      if (s["gpu_index"].get_int64().get(gpu) || s["gpu_instance_id"].get_int64().get(instance) ||
          s["metric"].get_string().get(metric) || s["value"].get_double().get(value))
        continue;
      json.BeginObject().Field("gpu_index", gpu).Field("gpu_instance_id", instance).Field("metric", metric);
      json.Field("value", value).Field("time_ns", time_ns).EndObject();
    }
  }
  json.EndArray().EndObject();
  return json.Take();
}

}  // namespace

Result<AgentAddress> ParseAgentUrl(const std::string& url) {
  constexpr std::string_view kScheme = "http://";
  auto bad = [&] { return InvalidInput("--agent '" + url + "': expected http://HOST:PORT (the agent's --listen)"); };
  if (!StartsWith(url, kScheme)) return bad();
  std::string rest = url.substr(kScheme.size());
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0 || rest.find('/') != std::string::npos) return bad();
  auto port = ParseInt64(rest.substr(colon + 1));
  if (!port || *port < 1 || *port > 65535) return bad();
  return AgentAddress{rest.substr(0, colon), static_cast<int>(*port)};
}

std::string AgentRingEvent(const AgentAddress& agent, int64_t* since_ns) {
  httplib::Client client(agent.host, agent.port);
  client.set_connection_timeout(1, 0);
  client.set_read_timeout(1, 0);
  std::string body;
  bool too_big = false;
  // The event carries the newest pass only: asking for it alone keeps the answer a few kB
  // where the whole ring (600 passes) took a loaded agent past the 1 s deadline (an agent
  // that predates max_passes answers the ring, as before).
  auto res = client.Get("/api/v1/ring?since_ns=" + std::to_string(*since_ns) + "&max_passes=1", httplib::Headers{},
                        [&](const char* data, size_t size) {
                          body.append(data, size);
                          too_big = body.size() > kMaxRingAnswerBytes;
                          return !too_big;
                        });
  if (too_big) return ErrorEvent(agent, "the agent's ring answer exceeds 64 MiB");
  if (!res) return ErrorEvent(agent, "agent " + agent.url() + " did not answer: " + httplib::to_string(res.error()));
  if (res->status != 200)
    return ErrorEvent(agent, "agent " + agent.url() + " answered " + std::to_string(res->status) + " to /api/v1/ring");
  auto event = EventFromRing(agent, body, since_ns);
  return event.ok() ? *event : ErrorEvent(agent, event.status().message());
}

}  // namespace kraken::server
