#include "k8s/attribution/pod_resources/pod_resources_client.h"

#include <grpcpp/grpcpp.h>
#include <sys/stat.h>

#include "kubelet_pod_resources.grpc.pb.h"

namespace kraken::k8s {
namespace {

std::string DescribeDeadline(std::chrono::milliseconds deadline) {
  return std::to_string(deadline.count()) + " ms";
}

}  // namespace

Result<std::vector<PodDevices>> ListPodDevices(const std::string& socket_path, std::chrono::milliseconds deadline) {
  // gRPC would only report "failed to connect" for a missing path, after the deadline;
  // the usual cause (no kubelet here, or the hostPath not mounted) deserves its own error.
  struct stat info {};
  if (::stat(socket_path.c_str(), &info) != 0)
    return NotFound(socket_path + ": no such socket (no kubelet on this node, or /var/lib/kubelet/pod-resources "
                                  "is not mounted into the agent)");
  if (!S_ISSOCK(info.st_mode)) return InvalidInput(socket_path + ": not a unix socket");

  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateChannel("unix://" + socket_path, grpc::InsecureChannelCredentials());
  std::unique_ptr<v1::PodResourcesLister::Stub> stub = v1::PodResourcesLister::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + deadline);
  v1::ListPodResourcesRequest request;
  v1::ListPodResourcesResponse response;
  grpc::Status status = stub->List(&context, request, &response);
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED)
    return Unavailable(socket_path + ": the kubelet did not answer List within " + DescribeDeadline(deadline));
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE)
    return Unavailable(socket_path + ": unavailable: " + status.error_message());
  if (!status.ok())
    return InvalidInput(socket_path + ": List failed (gRPC code " + std::to_string(status.error_code()) +
                        "): " + status.error_message());

  std::vector<PodDevices> out;
  for (const v1::PodResources& pod : response.pod_resources()) {
    for (const v1::ContainerResources& container : pod.containers()) {
      for (const v1::ContainerDevices& devices : container.devices()) {
        if (devices.device_ids().empty()) continue;
        PodDevices& d = out.emplace_back();
        d.namespace_name = pod.namespace_();
        d.pod = pod.name();
        d.container = container.name();
        d.resource_name = devices.resource_name();
        d.device_ids.assign(devices.device_ids().begin(), devices.device_ids().end());
      }
    }
  }
  return out;
}

}  // namespace kraken::k8s
