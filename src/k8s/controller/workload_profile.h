// The GpuWorkloadProfile custom resource (kraken.io/v1alpha1, deploy/kubernetes/
// crd-gpuworkloadprofile.yaml, docs/crd.md): one per workload (the controller owner of
// the analysed pods, else the pod itself), in the workload's namespace, written by the
// controller each pass: created when missing, merge-patched when a value changed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "k8s/client/kube_client.h"
#include "k8s/client/object_json.h"

namespace kraken::k8s {

inline constexpr char kProfileGroupVersion[] = "kraken.io/v1alpha1";
inline constexpr char kProfileKind[] = "GpuWorkloadProfile";
inline constexpr char kProfilePlural[] = "gpuworkloadprofiles";

// What the pass measured for one pod.
struct PodProfileFacts {
  std::string workload_class;  // training, inference, unknown
  std::string bound;           // "" when not measured (DCGM samples do not say)
  std::optional<double> busy_p95;
  std::optional<double> memory_peak_gib;
  std::optional<double> disagg_score;
  std::string recommendation;  // the pooling action and why
};

struct WorkloadProfile {
  ObjectRef workload;  // namespace_name is the profile's namespace
  int pods = 0;
  PodProfileFacts facts;
};

// The workload's profile from its pods' facts: busy p95 and memory peak the highest, disagg
// score the lowest, class and bound the pods' common value else "mixed", the
// recommendation of the busiest pod.
WorkloadProfile AggregateWorkload(const ObjectRef& workload, const std::vector<PodProfileFacts>& pods);

// "<kind>-<name>", lowercased, at most 253 characters: a DNS subdomain for any owner.
std::string WorkloadProfileName(const ObjectRef& workload);
std::string WorkloadProfilePath(const ObjectRef& workload);  // the object
// The whole object (POST body); `updated` is RFC 3339 UTC ("2026-11-26T08:40:00Z").
std::string WorkloadProfileJson(const WorkloadProfile& profile, const std::string& updated);

// GET; 404 -> POST the object; else merge-patch spec and status when a value differs
// from what the object holds (lastUpdated alone never causes a write). Returns true when
// it wrote.
Result<bool> UpsertWorkloadProfile(const KubeClient& client, const WorkloadProfile& profile, const std::string& updated);

}  // namespace kraken::k8s
