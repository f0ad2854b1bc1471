// What the extender takes from a workload's GpuWorkloadProfile (docs/crd.md): the
// result of its profiled experiment (status.ncu, written by the controller's profile
// runs, k8s/controller/profile_run.h), so a later pod of the same workload is scheduled
// with what Nsight Compute measured of the earlier run. The pod's own annotations win:
// they are of this run. Used only when the extender is started with --workload-profiles.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "k8s/client/kube_client.h"
#include "k8s/extender/scheduler_extender.h"

namespace kraken::k8s {

struct StoredNcuProfile {
  std::string profile;  // the GpuWorkloadProfile's name
  std::string job;      // the profile Job it came from
  int64_t kernels = 0;
  std::string bound;    // "" when ncu's kernels were not classified
  double compute_bound_share = 0;
  double memory_bound_share = 0;
};

// status.ncu of a GpuWorkloadProfile object; nullopt when it has none.
Result<std::optional<StoredNcuProfile>> ParseStoredNcuProfile(std::string_view json);

// The stored profile of a workload (ObjectRef as ExtenderRequest::pod_workload), or nullopt.
using WorkloadProfileLookup = std::function<std::optional<StoredNcuProfile>(const ObjectRef& workload)>;

// GETs the workload's GpuWorkloadProfile through `client`, keeping each answer (404
// included) for `ttl` so the scheduler's filter and prioritize calls of one pod cost one
// GET. An API error is not kept and counts as no profile: scheduling never waits on it.
WorkloadProfileLookup ApiWorkloadProfileLookup(std::shared_ptr<const KubeClient> client, std::chrono::seconds ttl);

// Feeds the stored profile into the request: a demand vector without a kernel bound mix
// gets the profile's (cb/mb, read by the co-location model); else a pod without
// kraken.io/bound gets the profile's bound (read by the class table). Sets
// request->stored_profile_note to what it did (or why not), "" when there is no profile.
void ApplyStoredProfile(const std::optional<StoredNcuProfile>& profile, ExtenderRequest* request);

}  // namespace kraken::k8s
