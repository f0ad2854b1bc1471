// Which Kubernetes pod and container a process belongs to, from /proc/<pid>/cgroup: the
// fallback of pod attribution when the kubelet pod-resources socket is not reachable
// (docs/kubernetes.md). The kubelet names cgroups after the pod UID under either cgroup
// driver and either cgroup version:
//   cgroupfs, v1:  "11:memory:/kubepods/burstable/pod<uid>/<container id>"
//   cgroupfs, v2:  "0::/kubepods/besteffort/pod<uid>/<container id>"
//   systemd,  v2:  "0::/kubepods.slice/kubepods-burstable.slice/
//                   kubepods-burstable-pod<uid with _ for ->.slice/cri-containerd-<id>.scope"
// Guaranteed pods sit directly under kubepods (no QoS level); kind and other nested setups
// prefix the path ("/kubelet.slice/kubelet-kubepods.slice/...").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace kraken::k8s {

struct PodCgroup {
  std::string pod_uid;       // "1f3e2a4b-...-..." (dashes, as in metadata.uid)
  std::string container_id;  // the runtime's id without its "cri-containerd-"/"docker-"/"crio-" prefix; "" for the
                             // pod's own cgroup
  std::string qos_class;     // "guaranteed", "burstable" or "besteffort"
};

// The first line of a /proc/<pid>/cgroup text that names a pod; nullopt when none does
// (a host process).
std::optional<PodCgroup> ParsePodCgroup(std::string_view proc_cgroup);

// Reads /proc/<pid>/cgroup under `proc_root` (tests pass a fake root).
Result<std::optional<PodCgroup>> ReadPodCgroup(int64_t pid, const std::string& proc_root = "/proc");

}  // namespace kraken::k8s
