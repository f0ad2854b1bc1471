// The scheduler clients' endpoints (pooling-workload-profiler compatible): /health,
// /profiles, /profile/{id}, POST /profile, POST /register, /colocation, each also with a
// trailing slash as the legacy service accepted. Shapes: docs/api.md, docs/compat.md.
#include <cmath>
#include <ctime>

#include "base/json_writer.h"
#include "base/text.h"
#include "server/http_util.h"
#include "server/json_body.h"
#include "server/server_context.h"

namespace kraken::server {
namespace {

std::string NowUtc() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &utc);
  return text;
}

std::string ToUpperAscii(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

void LegacyError(httplib::Response& res, int status, std::string_view code, std::string_view message) {
  SendError(res, status, code, message, /*legacy=*/true);
}

// {"ok":true,"workload":ID,"profile":{...}[,"note":...]}
std::string WorkloadResponse(const std::string& id, const std::string& profile_json, const std::string& note = "") {
  std::string out = "{\"ok\":true,\"workload\":";
  AppendJsonString(out, id);
  out += ",\"profile\":" + profile_json;
  if (!note.empty()) {
    out += ",\"note\":";
    AppendJsonString(out, note);
  }
  return out + "}";
}

// The checks every write shares: the token, a JSON (or curl's default form) content type
// and a body that is a JSON object.
std::optional<JsonBody> ReadWrite(const httplib::Request& req, httplib::Response& res, const ServerContext& ctx) {
  if (!Authorized(req, ctx.options.token)) {
    LegacyError(res, 401, "unauthorized", "this server needs 'Authorization: Bearer <token>' for writes");
    return std::nullopt;
  }
  std::string type = req.get_header_value("Content-Type");
  if (!type.empty() && !StartsWith(type, "application/json") &&
      !StartsWith(type, "application/x-www-form-urlencoded") && !StartsWith(type, "text/plain")) {
    LegacyError(res, 415, "unsupported_media_type", "send the body as application/json, not " + type);
    return std::nullopt;
  }
  auto body = JsonBody::Parse(req.body);
  if (!body.ok()) {
    LegacyError(res, 400, "bad_json", body.status().message());
    return std::nullopt;
  }
  return std::move(*body);
}

// Keeps the profile in the store (so it outlives a restart), then serves it. Nothing is
// served that was not stored: a store error answers 500 and changes nothing.
void Keep(httplib::Response& res, ServerContext& ctx, const std::string& id, LegacyProfile profile,
          const std::string& note = "") {
  auto store = ctx.store->Acquire();
  Status saved = store.ok() ? (*store)->PutLegacyWorkload(ToWorkloadRecord(id, profile)) : store.status();
  if (!saved.ok()) return LegacyError(res, 500, "internal", "cannot keep workload '" + id + "': " + saved.message());
  std::string json = LegacyProfileJson(profile);
  ctx.legacy->Put(id, std::move(profile));
  SendJson(res, 200, WorkloadResponse(id, json, note));
}

// POST /register with "profile_id": the workload is the measurement a stored profile holds.
void RegisterStoredProfile(httplib::Response& res, ServerContext& ctx, const std::string& workload, double id_number,
                           const std::string& description) {
  if (id_number < 1 || id_number != static_cast<double>(static_cast<int64_t>(id_number)))
    return LegacyError(res, 400, "bad_request", "profile_id must be a stored profile id (a positive integer)");
  int64_t id = static_cast<int64_t>(id_number);
  auto store = ctx.store->Acquire();
  if (!store.ok()) return LegacyError(res, 500, "internal", store.status().message());
  auto stored = (*store)->LoadProfile(id);
  if (!stored.ok()) {
    bool missing = stored.status().code() == StatusCode::kNotFound;
    return LegacyError(res, missing ? 404 : 500, missing ? "not_found" : "internal", stored.status().message());
  }
  LegacyProfile profile = LegacyProfileFromStored(std::make_shared<const Profile>(std::move(*stored)), id);
  profile.description = description.empty() ? "measured: stored profile " + std::to_string(id) : description;
  profile.profiled_at = NowUtc();
  Keep(res, ctx, workload, std::move(profile));
}

// Reads the optional ratios; an absent one gets the legacy service's default (0.33, 0.33,
// 0.34). Returns false after answering 400.
bool ReadRatios(const JsonBody& body, httplib::Response& res, LegacyProfile* profile) {
  const struct {
    const char* key;
    double* target;
    double fallback;
  } ratios[] = {{"compute_ratio", &profile->compute_ratio, 0.33},
                {"memory_ratio", &profile->memory_ratio, 0.33},
                {"mixed_ratio", &profile->mixed_ratio, 0.34}};
  for (const auto& ratio : ratios) {
    auto value = body.Number(ratio.key, 0, 1);
    if (!value.ok()) {
      LegacyError(res, 400, "bad_request", value.status().message());
      return false;
    }
    *ratio.target = value->value_or(ratio.fallback);
  }
  return true;
}

void HandleRegister(const httplib::Request& req, httplib::Response& res, ServerContext& ctx) {
  std::optional<JsonBody> body = ReadWrite(req, res, ctx);
  if (!body) return;
  auto id = body->String("workload_id");
  auto type = body->String("kernel_type");
  auto description = body->String("description");
  auto ai = body->Number("arithmetic_intensity", 0, 1e12);  // FLOP per byte
  auto stored_id = body->Number("profile_id", 1, 9007199254740992.0);
  for (const Status* s : {&id.status(), &type.status(), &description.status(), &ai.status(), &stored_id.status()})
    if (!s->ok()) return LegacyError(res, 400, "bad_request", s->message());
  std::string workload(Trim(*id));
  if (workload.empty()) return LegacyError(res, 400, "bad_request", "workload_id required");
  if (*stored_id) return RegisterStoredProfile(res, ctx, workload, **stored_id, *description);
  LegacyProfile profile;
  profile.arithmetic_intensity = *ai;
  profile.kernel_type = ToUpperAscii(std::string(Trim(*type)));
  if (profile.kernel_type != "COMPUTE_BOUND" && profile.kernel_type != "MEMORY_BOUND" &&
      profile.kernel_type != "MIXED" && profile.kernel_type != "UNKNOWN")
    profile.kernel_type = *ai ? ClassifyArithmeticIntensity(**ai) : "UNKNOWN";
  if (!ReadRatios(*body, res, &profile)) return;
  profile.description = *description;
  profile.source = "manual";
  profile.data_source = *ai ? "registered by a client (POST /register)"
                            : "registered by a client (POST /register) without arithmetic_intensity: 0";
  profile.profiled_at = NowUtc();
  Keep(res, ctx, workload, std::move(profile));
}

void HandleProfileRequest(const httplib::Request& req, httplib::Response& res, ServerContext& ctx) {
  std::optional<JsonBody> body = ReadWrite(req, res, ctx);
  if (!body) return;
  auto id = body->String("workload_id");
  auto model = body->String("model");
  if (!id.ok()) return LegacyError(res, 400, "bad_request", id.status().message());
  if (!model.ok()) return LegacyError(res, 400, "bad_request", model.status().message());
  std::string workload(Trim(*id));
  std::string model_name = ToLower(std::string(Trim(*model)));
  if (workload.empty() && model_name.empty())
    return LegacyError(res, 400, "bad_request", "workload_id or model required");
  if (workload.empty()) workload = model_name;
  std::optional<LegacyProfile> profile = ctx.legacy->Predefined(model_name);
  std::string note = "Used pre-defined profile";
  if (!profile) {
    profile.emplace();
    profile->description = "Unknown model, requires manual profiling";
    profile->data_source = "not measured: no profile of model '" + model_name + "'";
    note = "Model not recognized, using default unknown profile";
  }
  profile->profiled_at = NowUtc();
  Keep(res, ctx, workload, std::move(*profile), note);
}

void HandleColocation(const httplib::Request& req, httplib::Response& res, ServerContext& ctx) {
  std::string a = req.get_param_value("a");
  std::string b = req.get_param_value("b");
  if (a.empty() || b.empty()) return LegacyError(res, 400, "bad_request", "Both 'a' and 'b' parameters required");
  LegacyColocation result = ctx.legacy->Colocation(a, b);
  JsonWriter json(false);
  json.BeginObject().Field("ok", true);
  json.Key("workload_a").BeginObject().Field("id", a).Field("type", result.type_a).EndObject();
  json.Key("workload_b").BeginObject().Field("id", b).Field("type", result.type_b).EndObject();
  json.Field("colocation_score", result.score).Field("recommendation", result.recommendation);
  json.Key("sm_partition").BeginObject();
  json.Field("workload_a", result.sm_a).Field("workload_b", result.sm_b).EndObject();
  json.Field("sm_total", result.sm_total).Field("model", result.model).Key("device");
  if (result.device.empty()) json.Null();
  else json.String(result.device);
  json.Key("notes").BeginArray();
  for (const std::string& note : result.notes) json.String(note);
  json.EndArray().EndObject();
  SendJson(res, 200, json.Take());
}

}  // namespace

void AddLegacyRoutes(httplib::Server& server, ServerContext& ctx) {
  // The legacy service answered browsers from any origin; its clients may rely on it.
  server.set_post_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!StartsWith(req.path, "/api/")) res.set_header("Access-Control-Allow-Origin", "*");
  });
  server.Options(R"(/(profile|register|profiles|colocation|health)(/[^/]*)?)",
                 [](const httplib::Request&, httplib::Response& res) {
                   res.status = 204;
                   res.set_header("Access-Control-Allow-Methods", "GET,POST,OPTIONS");
                   res.set_header("Access-Control-Allow-Headers", "Content-Type, Authorization");
                 });
  server.Get("/health/?", [](const httplib::Request&, httplib::Response& res) {
    JsonWriter json(false);
    json.BeginObject().Field("ok", true).Field("service", "kraken").Field("version", KRAKEN_VERSION_STRING);
    json.Field("time", NowUtc()).EndObject();
    SendJson(res, 200, json.Take());
  });
  server.Get("/profiles/?", [&ctx](const httplib::Request&, httplib::Response& res) {
    SendJson(res, 200,
             "{\"ok\":true,\"profiles\":" + ctx.legacy->AllJson() + ",\"count\":" +
                 std::to_string(ctx.legacy->size()) + "}");
  });
  server.Get(R"(/profile/([^/]+)/?)", [&ctx](const httplib::Request& req, httplib::Response& res) {
    std::string id = req.matches[1];
    std::string json = ctx.legacy->FindJson(id);
    if (json.empty()) return LegacyError(res, 404, "not_found", "Profile not found: " + id);
    SendJson(res, 200, WorkloadResponse(id, json));
  });
  server.Post("/profile/?", [&ctx](const httplib::Request& req, httplib::Response& res) {
    HandleProfileRequest(req, res, ctx);
  });
  server.Post("/register/?", [&ctx](const httplib::Request& req, httplib::Response& res) {
    HandleRegister(req, res, ctx);
  });
  server.Get("/colocation/?", [&ctx](const httplib::Request& req, httplib::Response& res) {
    HandleColocation(req, res, ctx);
  });
}

}  // namespace kraken::server
