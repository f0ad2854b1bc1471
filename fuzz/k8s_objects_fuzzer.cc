// libFuzzer target: the Kubernetes objects kraken reads from the API server and the kubelet,
// whose contents anyone who may create pods, Jobs or GpuWorkloadProfiles controls. The
// first byte picks the reader: a node's PodList (pod attribution), an object's metadata,
// the PodList/JobList of pods asking for a profile run, a profile Job's state, a
// GpuWorkloadProfile's status.ncu (the extender). Built with `make fuzz`; seeds in
// fuzz/seeds/k8s_objects (first byte included).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "k8s/attribution/node_pods.h"
#include "k8s/client/object_json.h"
#include "k8s/controller/profile_run_job.h"
#include "k8s/extender/stored_profile.h"
#include "fuzz_checks.h"

using kraken::fuzzing::CheckExplained;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view json(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 6) {
    case 0:
      CheckExplained(kraken::k8s::ParsePodList(json));
      break;
    case 1:
      CheckExplained(kraken::k8s::ParseObjectMeta(json, "default"));
      break;
    case 2:
      CheckExplained(kraken::k8s::ParseProfileTargets(json, "Pod", "default"));
      break;
    case 3:
      CheckExplained(kraken::k8s::ParseProfileTargets(json, "Job", "default"));
      break;
    case 4:
      CheckExplained(kraken::k8s::ParseJobState(json));
      CheckExplained(kraken::k8s::FirstPodName(json));
      break;
    default:
      CheckExplained(kraken::k8s::ParseStoredNcuProfile(json));
      break;
  }
  return 0;
}
