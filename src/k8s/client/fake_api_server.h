// A loopback HTTP server that plays the Kubernetes API server for the writer's contract
// tests: it records every request (verb, path, Content-Type, Authorization, body), serves
// the objects and applies the patches (annotations and labels merged key by key, as a
// strategic merge of {"metadata":{...}} does), and answers 404 for an unknown path.
// Custom resources (AddRaw, or POSTed to their collection) are kept as JSON: a POST
// stores the body under <collection>/<metadata.name> (409 when it exists); a JSON merge
// patch replaces "spec" and merges "status" key by key (null deletes), which is what the
// controller's patches of GpuWorkloadProfile need; a patch's metadata.annotations are
// merged key by key into a stored object's (null deletes). A GET of a collection
// (.../pods, .../jobs) lists the JSON objects stored under it, filtered by a
// labelSelector of k=v terms; AddLog serves a pod's log as text (pods/NAME/log).
// Test-only, header-only.
#pragma once

#include <httplib.h>
#include <simdjson.h>

#include <algorithm>
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
      if (auto raw = raw_.find(req.path); raw != raw_.end()) {
        res.set_content(raw->second, "application/json");
        return;
      }
      if (auto log = logs_.find(req.path); log != logs_.end()) {
        res.set_content(log->second, "text/plain");
        return;
      }
      if (IsCollection(req.path)) {
        res.set_content(List(req.path, req.get_param_value("labelSelector")), "application/json");
        return;
      }
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
      if (auto raw = raw_.find(req.path); raw != raw_.end()) {
        std::string merged = MergeRaw(raw->second, req.body);
        if (merged.empty()) {
          res.status = 422;
          return;
        }
        raw->second = merged;
        res.set_content(merged, "application/json");
        return;
      }
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
    auto post = [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(
          {"POST", req.path, req.get_header_value("Content-Type"), req.get_header_value("Authorization"), req.body});
      simdjson::dom::parser parser;
      simdjson::dom::element doc;
      std::string_view name;
      if (parser.parse(req.body).get(doc) || doc["metadata"]["name"].get(name)) {
        res.status = 422;
        return;
      }
      std::string path = req.path + "/" + std::string(name);
      if (raw_.count(path)) {
        res.status = 409;
        return;
      }
      raw_[path] = req.body;
      res.status = 201;
      res.set_content(req.body, "application/json");
    };
    server_.Get(".*", get);
    server_.Patch(".*", patch);
    server_.Post(".*", post);
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
  void AddRaw(const std::string& path, const std::string& json) {
    std::lock_guard<std::mutex> lock(mutex_);
    raw_[path] = json;
  }
  std::string Raw(const std::string& path) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = raw_.find(path);
    return it == raw_.end() ? "<unset>" : it->second;
  }
  std::string Annotation(const std::string& path, const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = objects_[path].annotations.find(key);
    return it == objects_[path].annotations.end() ? "<unset>" : it->second;
  }
  // A merge patch applied as the API server would, e.g. a Job controller's status update.
  void PatchRaw(const std::string& path, const std::string& patch) {
    std::lock_guard<std::mutex> lock(mutex_);
    raw_[path] = MergeRaw(raw_[path], patch);
  }
  void AddLog(const std::string& path, std::string text) {
    std::lock_guard<std::mutex> lock(mutex_);
    logs_[path] = std::move(text);
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

  static bool IsCollection(const std::string& path) {
    auto ends = [&](std::string_view tail) {
      return path.size() > tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
    };
    return path.find("/namespaces/") != std::string::npos && (ends("/pods") || ends("/jobs"));
  }
  // Whether the object's metadata.labels hold every k=v term of `selector`.
  static bool Selected(simdjson::dom::element object, const std::string& selector) {
    size_t start = 0;
    while (start < selector.size()) {
      size_t end = std::min(selector.find(',', start), selector.size());
      std::string term = selector.substr(start, end - start);
      size_t eq = term.find('=');
      std::string_view value;
      if (eq == std::string::npos || object["metadata"]["labels"][term.substr(0, eq)].get(value) ||
          value != term.substr(eq + 1))
        return false;
      start = end + 1;
    }
    return true;
  }
  std::string List(const std::string& collection, const std::string& selector) const {
    std::string items;
    simdjson::dom::parser parser;
    for (const auto& [path, json] : raw_) {
      if (path.rfind(collection + "/", 0) != 0 || path.find('/', collection.size() + 1) != std::string::npos) continue;
      simdjson::dom::element object;
      if (parser.parse(json).get(object) || !Selected(object, selector)) continue;
      items += (items.empty() ? "" : ",") + json;
    }
    return R"({"kind":"List","apiVersion":"v1","metadata":{},"items":[)" + items + "]}";
  }

  // metadata with the patch's annotations merged into its own (null deletes).
  static std::string MergeMetadata(simdjson::dom::object stored, simdjson::dom::object changes) {
    std::map<std::string, std::string> annotations;
    simdjson::dom::object part;
    if (!stored["annotations"].get(part))
      for (auto [k, v] : part) annotations[std::string(k)] = simdjson::minify(v);
    if (!changes["annotations"].get(part))
      for (auto [k, v] : part) {
        if (v.is_null()) annotations.erase(std::string(k));
        else annotations[std::string(k)] = simdjson::minify(v);
      }
    std::string out = "{";
    for (auto [k, v] : stored)
      if (k != "annotations") out += (out.size() > 1 ? ",\"" : "\"") + std::string(k) + "\":" + simdjson::minify(v);
    std::string map = "{";
    for (const auto& [k, v] : annotations) map += (map.size() > 1 ? ",\"" : "\"") + k + "\":" + v;
    return out + (out.size() > 1 ? "," : "") + "\"annotations\":" + map + "}}";
  }

  // `stored` with the patch's "spec" in place of its own and the patch's "status" keys
  // merged into its status (null deletes); "" when either is not a JSON object.
  static std::string MergeRaw(const std::string& stored, const std::string& patch) {
    simdjson::dom::parser a, b;
    simdjson::dom::object object, changes;
    if (a.parse(stored).get(object) || b.parse(patch).get(changes)) return "";
    std::map<std::string, std::string> status;
    simdjson::dom::object part;
    if (!object["status"].get(part))
      for (auto [k, v] : part) status[std::string(k)] = simdjson::minify(v);
    if (!changes["status"].get(part))
      for (auto [k, v] : part) {
        if (v.is_null()) status.erase(std::string(k));
        else status[std::string(k)] = simdjson::minify(v);
      }
    std::string out = "{";
    for (auto [k, v] : object) {
      if (k == "status") continue;
      simdjson::dom::element replacement;
      bool replaced = k == "spec" && !changes["spec"].get(replacement);
      simdjson::dom::object metadata, metadata_changes;
      std::string value = simdjson::minify(replaced ? replacement : v);
      if (k == "metadata" && !v.get(metadata) && !changes["metadata"].get(metadata_changes))
        value = MergeMetadata(metadata, metadata_changes);
      out += (out.size() > 1 ? ",\"" : "\"") + std::string(k) + "\":" + value;
    }
    std::string status_json = "{";
    for (const auto& [k, v] : status) status_json += (status_json.size() > 1 ? ",\"" : "\"") + k + "\":" + v;
    return out + ",\"status\":" + status_json + "}}";
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::vector<Recorded> requests_;
  std::map<std::string, FakeObject> objects_;
  std::map<std::string, std::string> raw_;  // custom resources, as JSON
  std::map<std::string, std::string> logs_;  // pods/NAME/log -> text
};


}  // namespace kraken::k8s::testing
