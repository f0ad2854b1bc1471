#include "k8s/client/kube_client.h"

#include <httplib.h>

namespace kraken::k8s {
namespace {

std::unique_ptr<httplib::Client> MakeClient(const KubeConfig& config, int timeout_s) {
  auto client = std::make_unique<httplib::Client>(config.BaseUrl());
  client->set_connection_timeout(timeout_s, 0);
  client->set_read_timeout(timeout_s, 0);
  client->set_bearer_token_auth(config.token);
  if (config.scheme == "https") {
    if (!config.ca_file.empty()) client->set_ca_cert_path(config.ca_file);
    client->enable_server_certificate_verification(true);
  }
  return client;
}

Status AnswerError(const std::string& verb, const std::string& path, const httplib::Result& response) {
  if (!response) return IoError(verb + " " + path + ": " + httplib::to_string(response.error()));
  std::string body = response->body.size() > 300 ? response->body.substr(0, 300) + "..." : response->body;
  if (response->status == 404) return NotFound(verb + " " + path + ": 404 " + body);
  return IoError(verb + " " + path + ": HTTP " + std::to_string(response->status) + " " + body);
}

}  // namespace

Result<std::string> KubeClient::Get(const std::string& path) const {
  auto client = MakeClient(config_, timeout_s_);
  auto response = client->Get(path, httplib::Headers{{"Accept", "application/json"}});
  if (!response || response->status != 200) return AnswerError("GET", path, response);
  return response->body;
}

Status KubeClient::Patch(const std::string& path, const std::string& body, std::string_view content_type) const {
  auto client = MakeClient(config_, timeout_s_);
  auto response =
      client->Patch(path, httplib::Headers{{"Accept", "application/json"}}, body, std::string(content_type));
  if (!response || response->status != 200) return AnswerError("PATCH", path, response);
  return Status::Ok();
}

Status KubeClient::Post(const std::string& path, const std::string& body) const {
  auto client = MakeClient(config_, timeout_s_);
  auto response = client->Post(path, httplib::Headers{{"Accept", "application/json"}}, body, "application/json");
  if (!response || (response->status != 201 && response->status != 200)) return AnswerError("POST", path, response);
  return Status::Ok();
}

}  // namespace kraken::k8s
