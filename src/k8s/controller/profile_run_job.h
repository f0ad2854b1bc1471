// Profiled experiments (docs/k8s-controller.md, "Profiled experiments"): a pod or Job annotated
// kraken.io/profile-run: ncu is re-run once as a batch/v1 Job under Nsight Compute. This
// file is the pure half: the annotations' vocabulary, which objects ask for a run, the
// Job object made from the workload's pod spec, and what a Job's status says. The API
// calls and the state kept across passes are in profile_run.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "k8s/client/object_json.h"

namespace kraken::k8s {

// Set by the user on a pod (or its template) or a Job.
inline constexpr char kProfileRunKey[] = "kraken.io/profile-run";      // "ncu"
inline constexpr char kProfileImageKey[] = "kraken.io/profile-image";  // image with ncu and the program
// Written by the controller on the annotated object.
inline constexpr char kProfileRunStatusKey[] = "kraken.io/profile-run-status";  // pending|running|done|failed
inline constexpr char kProfileRunJobKey[] = "kraken.io/profile-run-job";        // the Job's name
inline constexpr char kProfileRunReasonKey[] = "kraken.io/profile-run-reason";  // why it failed
// On the profile Job and its pods: the Job's name (a label value, at most 63 characters),
// so the Job's pods are found by label selector and never taken for workloads themselves.
inline constexpr char kProfileRunOfLabel[] = "kraken.io/profile-run-of";

struct ProfileRunOptions {
  std::string ncu_image;  // --ncu-image; kraken.io/profile-image wins
  // Kernel launches ncu profiles (--launch-count): ncu replays each one many times, so an
  // unbounded training run under it would take days.
  int launch_count = 50;
};

// One object that asks for a profiled run.
struct ProfileTarget {
  ObjectRef annotated;  // the pod or Job carrying kraken.io/profile-run
  ObjectRef workload;   // a pod's controller owner, else the object itself
  std::string workload_uid;
  std::string mode;   // the kraken.io/profile-run value ("ncu")
  std::string image;  // kraken.io/profile-image, or ""
  std::string status;       // kraken.io/profile-run-status, or ""
  std::string pod_spec;     // the pod's spec, or the Job's spec.template.spec (JSON)
};

// The objects of a PodList or JobList (`kind` "Pod" or "Job") that carry
// kraken.io/profile-run, skipping the profile Jobs and their pods (kraken.io/profile-run-of).
Result<std::vector<ProfileTarget>> ParseProfileTargets(std::string_view list_json, std::string_view kind,
                                                       const std::string& namespace_name);

// ncu in front of the workload's command: the raw page as CSV (the layout the ncu-csv
// importer reads), with the sections whose metrics give kernel time, SM and DRAM
// throughput and the roofline's FLOP and byte counts.
std::vector<std::string> NcuCommandPrefix(int launch_count);

// "kraken-ncu-<GpuWorkloadProfile name>", at most 63 characters (it becomes the pods'
// job-name label; a longer one is cut to 54 + "-" + 8 hex digits of its hash): one name
// per workload, so a second POST of it is refused (409).
std::string ProfileJobName(const ObjectRef& workload);

// The Job: the workload's GPU container (the first asking for nvidia.com/gpu, else the
// first) with `image` and its command wrapped by NcuCommandPrefix, the pod's service
// account, volumes, scheduling and init containers, restartPolicy Never, no retries, and
// the workload as owner. InvalidInput when the container sets no command (ncu cannot wrap
// an image's entrypoint it does not know).
Result<std::string> ProfileJobJson(const ProfileTarget& target, const std::string& image,
                                   const ProfileRunOptions& options);

enum class JobPhase { kPending, kRunning, kSucceeded, kFailed };
struct JobState {
  JobPhase phase = JobPhase::kPending;
  std::string reason;  // of a failed Job: its Failed condition's reason and message
};
Result<JobState> ParseJobState(std::string_view job_json);

// The name of the first pod of a PodList (the profile Job's pod), "" when the list is empty.
Result<std::string> FirstPodName(std::string_view pod_list_json);

}  // namespace kraken::k8s
