// The annotations kraken writes onto pods, nodes and the jobs that own them, and the
// pure parts of writing them: formatting the values, aggregating a multi-pod job, the
// diff against what the object already carries and the patch body.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kraken::k8s {

inline constexpr char kWorkloadTypeKey[] = "kraken.io/workload-type";
inline constexpr char kBoundKey[] = "kraken.io/bound";
inline constexpr char kGpuUtilP95Key[] = "kraken.io/gpu-util-p95";
inline constexpr char kDisaggScoreKey[] = "kraken.io/disagg-score";
inline constexpr char kColocationClassKey[] = "kraken.io/colocation-class";
// The CUDA_MPS_ACTIVE_THREAD_PERCENTAGE the co-location model recommends for a pod the
// pooling plan would share a GPU with others (analysis/pooling/share_mps.h).
inline constexpr char kMpsThreadPercentageKey[] = "kraken.io/mps-active-thread-percentage";
// Opt-in and sampling interval a user sets on a pod (read, never written, by kraken).
inline constexpr char kProfilingKey[] = "kraken.io/profiling";               // enabled | disabled
inline constexpr char kProfileIntervalKey[] = "kraken.io/profile-interval";  // 100ms
// Which metric groups the agent keeps for the pod's GPUs: "gpu,memory,network" or
// kraken's group names (agent/pod_policy.h); none: all.
inline constexpr char kMetricsKey[] = "kraken.io/metrics";
// The KRAKEN design's export format of the pod's profile: read and reported, not acted on
// (the agent writes no files; `kraken export` does).
inline constexpr char kExportFormatKey[] = "kraken.io/export-format";
// The KRAKEN design spells the pod settings kraken.keti.ai/<name>: read as kraken.io/<name>.
inline constexpr char kKrakenPrefix[] = "kraken.io/";
inline constexpr char kDesignPrefix[] = "kraken.keti.ai/";

// A pod setting as found: under which key (the one to name in messages) and its value.
struct PodSetting {
  std::string key;
  std::string value;
};
// The value of `kraken_key` (a kraken.io/ key) on the pod, else of its design spelling
// kraken.keti.ai/<name>; kraken's own spelling wins when a pod has both.
std::optional<PodSetting> FindPodSetting(const std::map<std::string, std::string>& annotations,
                                         std::string_view kraken_key);
// Whether the agent reads an annotation of this key (kraken.io/ and kraken.keti.ai/ ones).
bool IsPodSettingKey(std::string_view key);

// One workload's results, fields left unset when the analysis had nothing to say.
struct WorkloadAnnotations {
  std::optional<std::string> workload_type;     // training, inference, unknown
  std::optional<std::string> bound;             // compute, memory, latency, communication, mixed
  std::optional<double> gpu_util_p95;           // 0..1
  std::optional<double> disagg_score;           // 0..1
  std::optional<std::string> colocation_class;  // e.g. "share", "mig", "dedicated"
  // kraken.io/demand (k8s/client/demand_annotation.h): the demand vector the scheduler extender
  // feeds to the co-location model; and the GPU index it was measured on, for the node's
  // kraken.io/resident-demand entry. Not aggregated onto jobs. (Default initializers: no
  // -Wmissing-field-initializers for the aggregate initializations that predate them.)
  std::optional<std::string> demand = std::nullopt;
  std::optional<int> gpu_index = std::nullopt;
  std::optional<int> mps_thread_percentage = std::nullopt;  // 1..100; not aggregated onto jobs
};

// The annotation map: ratios as fixed 3-decimal text ("0.957") so that noise below a
// tenth of a percent does not cause a write.
std::map<std::string, std::string> ToAnnotations(const WorkloadAnnotations& a);

// `annotations` (kraken.io/<name> keys) with each also written under every prefix of
// `prefixes`: "ai.centaurus.io" adds ai.centaurus.io/<name> (Alnair's domain, for clusters
// whose tools read that). "kraken.io" among them adds nothing.
std::map<std::string, std::string> WithPrefixes(std::map<std::string, std::string> annotations,
                                                const std::vector<std::string>& prefixes);
// An annotation prefix is a DNS subdomain: lowercase letters, digits, '-' and '.', each
// label starting and ending with a letter or digit, at most 253 characters.
bool IsAnnotationPrefix(std::string_view prefix);

// The aggregate of a multi-pod job (MPIJob, PyTorchJob): workload type and bound when all
// pods agree, else "mixed"; the highest gpu-util p95 (the job is as hot as its busiest
// worker); the lowest disagg score and the most conservative colocation class
// (dedicated > mig > share), since one pod that cannot move pins the job.
WorkloadAnnotations AggregateJob(const std::vector<WorkloadAnnotations>& pods);

// The entries of `desired` that `current` lacks or holds with another value.
std::map<std::string, std::string> ChangedAnnotations(const std::map<std::string, std::string>& current,
                                                      const std::map<std::string, std::string>& desired);

// {"metadata":{"annotations":{...}}}: the body of a strategic-merge or JSON merge patch
// that sets only these annotations and leaves every other one untouched.
std::string AnnotationPatchBody(const std::map<std::string, std::string>& annotations);

}  // namespace kraken::k8s
