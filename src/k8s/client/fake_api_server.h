// A loopback HTTP server that plays the Kubernetes API server for the writer's contract
// tests: it records every request (verb, path, Content-Type, Authorization, body), serves
// the objects and applies the patches (annotations and labels merged key by key, as a
// strategic merge of {"metadata":{...}} does), and answers 404 for an unknown path.
// Test-only, header-only.
#pragma once

#include <httplib.h>

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "k8s/controller/annotation_writer.h"
#include "k8s/client/kube_client.h"

namespace kraken::k8s::testing {

struct Recorded {
  std::string method, path, content_type, authorization, body;
};

struct FakeObject {
  std::map<std::string, std::string> annotations;
  std::string owner_json;  // the ownerReferences array, or ""
  std::string node_name;
  std::map<std::string, std::string> labels;
};

class FakeApiServer {
 public:
  FakeApiServer() {
    auto get = [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(
          {"GET", req.path, req.get_header_value("Content-Type"), req.get_header_value("Authorization"), req.body});
      auto it = objects_.find(req.path);
      if (it == objects_.end()) {
        res.status = 404;
        res.set_content(R"({"kind":"Status","reason":"NotFound"})", "application/json");
        return;
      }
      res.set_content(Render(it->second), "application/json");
    };
    auto patch = [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(
          {"PATCH", req.path, req.get_header_value("Content-Type"), req.get_header_value("Authorization"), req.body});
      auto it = objects_.find(req.path);
      auto meta = ParseObjectMeta(req.body, "");
      if (it == objects_.end() || !meta.ok()) {
        res.status = 422;
        return;
      }
      for (const auto& [k, v] : meta->annotations) it->second.annotations[k] = v;
      for (const auto& [k, v] : meta->labels) it->second.labels[k] = v;
      res.set_content(Render(it->second), "application/json");
    };
    server_.Get(".*", get);
    server_.Patch(".*", patch);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeApiServer() {
    server_.stop();
    thread_.join();
  }

  void Add(const std::string& path, FakeObject object) {
    std::lock_guard<std::mutex> lock(mutex_);
    objects_[path] = std::move(object);
  }
  // The pod was recreated on another node (a StatefulSet pod keeps its name).
  void MoveTo(const std::string& path, const std::string& node) {
    std::lock_guard<std::mutex> lock(mutex_);
    objects_[path].node_name = node;
  }
  std::string Annotation(const std::string& path, const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = objects_[path].annotations.find(key);
    return it == objects_[path].annotations.end() ? "<unset>" : it->second;
  }
  std::vector<Recorded> TakeRequests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::move(requests_);
  }
  KubeConfig Config() const {
    KubeConfig c;
    c.scheme = "http";
    c.host = "127.0.0.1";
    c.port = port_;
    c.token = "test-token";
    return c;
  }

 private:
  static std::string RenderMap(const std::map<std::string, std::string>& map) {
    std::string text = "{";
    for (const auto& [k, v] : map) {
      if (text.size() > 1) text += ',';
      text += "\"" + k + "\":\"" + v + "\"";
    }
    return text + "}";
  }
  static std::string Render(const FakeObject& o) {
    std::string json = R"({"apiVersion":"v1","metadata":{"annotations":)" + RenderMap(o.annotations);
    if (!o.labels.empty()) json += R"(,"labels":)" + RenderMap(o.labels);
    if (!o.owner_json.empty()) json += R"(,"ownerReferences":)" + o.owner_json;
    json += "}";
    if (!o.node_name.empty()) json += R"(,"spec":{"nodeName":")" + o.node_name + "\"}";
    return json + "}";
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::vector<Recorded> requests_;
  std::map<std::string, FakeObject> objects_;
};


}  // namespace kraken::k8s::testing
