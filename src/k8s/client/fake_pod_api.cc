#include "k8s/client/fake_pod_api.h"

#include <httplib.h>

#include <chrono>
#include <mutex>
#include <thread>

namespace kraken::k8s::testing {

struct FakePodApi::Impl {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  mutable std::mutex mutex;
  std::vector<FakePodApiRequest> requests;
  std::string body = R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]})";
  int status = 200;
};

namespace {

void AppendQuoted(std::string& out, const std::string& s) { out.append("\"").append(s).append("\""); }

std::string RenderPod(const std::string& node, const FakeApiPod& pod) {
  // A real pod carries much more; a large unrelated annotation, labels and owner
  // references come first so that the client has to skip them. (Appended piece by piece:
  // GCC 12's -Wrestrict misfires on literal + std::string chains.)
  std::string out = R"({"metadata":{"name":)";
  AppendQuoted(out, pod.name);
  out.append(R"(,"generateName":"x-","namespace":)");
  AppendQuoted(out, pod.namespace_name);
  out.append(R"(,"uid":)");
  AppendQuoted(out, pod.uid);
  out.append(R"(,"labels":{"app":"a"},"annotations":{)");
  out.append(R"("kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\"}")");
  for (const auto& [k, v] : pod.annotations) {
    out.append(",");
    AppendQuoted(out, k);
    out.append(":");
    AppendQuoted(out, v);
  }
  out.append(R"(},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r","controller":true}]},)");
  out.append(R"("spec":{"nodeName":)");
  AppendQuoted(out, node);
  out.append(R"(,"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1"}}}]},)");
  out.append(R"("status":{"phase":"Running","podIP":"10.0.0.7"}})");
  return out;
}

}  // namespace

FakePodApi::FakePodApi() : impl_(std::make_unique<Impl>()) {
  Impl* impl = impl_.get();
  impl->server.Get(".*", [impl](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(impl->mutex);
    impl->requests.push_back({"GET", req.target, req.path, req.get_param_value("fieldSelector"),
                              req.get_header_value("Authorization")});
    if (req.path != "/api/v1/pods") {
      res.status = 404;
      return;
    }
    res.status = impl->status;
    if (impl->status == 200) res.set_content(impl->body, "application/json");
  });
  impl->port = impl->server.bind_to_any_port("127.0.0.1");
  impl->thread = std::thread([impl] { impl->server.listen_after_bind(); });
  while (!impl->server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

FakePodApi::~FakePodApi() {
  impl_->server.stop();
  impl_->thread.join();
}

void FakePodApi::SetPods(const std::string& node, const std::vector<FakeApiPod>& pods) {
  std::string body = R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"4711"},"items":[)";
  for (size_t i = 0; i < pods.size(); ++i) body.append(i == 0 ? "" : ",").append(RenderPod(node, pods[i]));
  body.append("]}");
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->body = std::move(body);
  impl_->status = 200;
}

void FakePodApi::Fail(int status) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->status = status;
}

std::vector<FakePodApiRequest> FakePodApi::requests() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->requests;
}

KubeConfig FakePodApi::Config() const {
  KubeConfig c;
  c.scheme = "http";
  c.host = "127.0.0.1";
  c.port = impl_->port;
  c.token = "test-token";
  return c;
}

}  // namespace kraken::k8s::testing
