#include "k8s/attribution/pod_resources/fake_kubelet.h"

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <mutex>

namespace kraken::k8s::testing {
namespace {

// Protobuf wire format: varints and length-delimited fields (wire type 2) are all the
// List response needs.
void AppendVarint(uint64_t value, std::string& out) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

void AppendBytes(int field, const std::string& bytes, std::string& out) {
  AppendVarint(static_cast<uint64_t>(field) << 3 | 2, out);
  AppendVarint(bytes.size(), out);
  out += bytes;
}

void AppendVarintField(int field, uint64_t value, std::string& out) {
  AppendVarint(static_cast<uint64_t>(field) << 3, out);
  AppendVarint(value, out);
}

// ContainerDevices: resource_name = 1, device_ids = 2, topology = 3 (TopologyInfo: nodes = 1,
// NUMANode: ID = 1), as the kubelet sends it for device-plugin resources.
std::string EncodeDevices(const std::string& resource, const std::vector<std::string>& ids) {
  std::string out;
  AppendBytes(1, resource, out);
  for (const std::string& id : ids) AppendBytes(2, id, out);
  std::string numa_node, topology;
  AppendVarintField(1, 0, numa_node);
  AppendBytes(1, numa_node, topology);
  AppendBytes(3, topology, out);
  return out;
}

// ContainerResources: name = 1, devices = 2, cpu_ids = 3 (packed int64).
std::string EncodeContainer(const FakeContainer& c) {
  std::string out;
  AppendBytes(1, c.name, out);
  for (const auto& [resource, ids] : c.devices) AppendBytes(2, EncodeDevices(resource, ids), out);
  if (!c.cpu_ids.empty()) {
    std::string packed;
    for (int64_t cpu : c.cpu_ids) AppendVarint(static_cast<uint64_t>(cpu), packed);
    AppendBytes(3, packed, out);
  }
  return out;
}

}  // namespace

// ListPodResourcesResponse: pod_resources = 1; PodResources: name = 1, namespace = 2,
// containers = 3.
std::string EncodeListResponse(const std::vector<FakePod>& pods) {
  std::string out;
  for (const FakePod& pod : pods) {
    std::string encoded;
    AppendBytes(1, pod.name, encoded);
    AppendBytes(2, pod.namespace_name, encoded);
    for (const FakeContainer& c : pod.containers) AppendBytes(3, EncodeContainer(c), encoded);
    AppendBytes(1, encoded, out);
  }
  return out;
}

struct FakeKubelet::Impl final : grpc::CallbackGenericService {
  Mode mode = Mode::kAnswer;
  std::string response;
  std::unique_ptr<grpc::Server> server;
  mutable std::mutex mutex;
  std::vector<std::string> methods;
  std::vector<size_t> request_sizes;

  class Reactor final : public grpc::ServerGenericBidiReactor {
   public:
    Reactor(Impl& impl, grpc::GenericCallbackServerContext* context) : impl_(impl) {
      {
        std::lock_guard<std::mutex> lock(impl_.mutex);
        impl_.methods.push_back(context->method());
      }
      StartRead(&request_);
    }
    void OnReadDone(bool ok) override {
      if (!ok) {
        FinishOnce(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no request message"));
        return;
      }
      {
        std::lock_guard<std::mutex> lock(impl_.mutex);
        impl_.request_sizes.push_back(request_.Length());
      }
      if (impl_.mode == Mode::kNeverAnswer) return;  // OnCancel finishes it
      if (finishing_.exchange(true)) return;
      grpc::Slice slice(impl_.response);
      response_ = grpc::ByteBuffer(&slice, 1);
      StartWriteAndFinish(&response_, grpc::WriteOptions(), grpc::Status::OK);
    }
    void OnCancel() override { FinishOnce(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled")); }
    void OnDone() override { delete this; }

   private:
    void FinishOnce(const grpc::Status& status) {
      if (!finishing_.exchange(true)) Finish(status);
    }
    Impl& impl_;
    grpc::ByteBuffer request_;
    grpc::ByteBuffer response_;
    std::atomic<bool> finishing_{false};
  };

  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* context) override {
    return new Reactor(*this, context);
  }
};

FakeKubelet::FakeKubelet(std::vector<FakePod> pods, Mode mode) : impl_(std::make_unique<Impl>()) {
  impl_->mode = mode;
  impl_->response = EncodeListResponse(pods);
}

FakeKubelet::~FakeKubelet() { Stop(); }

Status FakeKubelet::Start(const std::string& socket_path) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix://" + socket_path, grpc::InsecureServerCredentials());
  builder.RegisterCallbackGenericService(impl_.get());
  impl_->server = builder.BuildAndStart();
  if (!impl_->server) return IoError(socket_path + ": the fake kubelet could not listen");
  return Status::Ok();
}

void FakeKubelet::Stop() {
  if (!impl_->server) return;
  // A deadline of now cancels the calls still waiting (kNeverAnswer) instead of waiting
  // for them; Wait() then returns once every reactor is done.
  impl_->server->Shutdown(std::chrono::system_clock::now());
  impl_->server->Wait();
  impl_->server.reset();
}

int FakeKubelet::calls() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return static_cast<int>(impl_->methods.size());
}

std::vector<std::string> FakeKubelet::methods() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->methods;
}

std::vector<size_t> FakeKubelet::request_sizes() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->request_sizes;
}

}  // namespace kraken::k8s::testing
