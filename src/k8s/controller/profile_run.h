// Profiled experiments, the controller's part (`kraken annotate --profile-runs`,
// docs/k8s-controller.md "Profiled experiments"). Each pass, per namespace: LIST pods and
// Jobs, take those annotated kraken.io/profile-run, group them by workload (a pod's
// controller owner, else the pod; a Job is its own), and move each workload one step:
//
//   no Job yet          -> POST the profile Job (profile_run_job.h)       status pending
//   Job active          ->                                                  status running
//   Job failed          -> the Failed condition's reason                    status failed
//   Job succeeded       -> its pod's log (pods/log) imported as ncu CSV,
//                          stored under status.ncu of the workload's
//                          GpuWorkloadProfile                                status done
//
// The status (and the Job's name, and a failure's reason) is written as annotations on
// every annotated object of the workload. A workload whose objects say done or failed is
// never run again; the Job's fixed name (ProfileJobName) makes a second POST fail with 409
// even when two passes race, so a workload runs at most once.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/ncu_run_facts.h"
#include "base/status.h"
#include "k8s/client/kube_client.h"
#include "k8s/controller/profile_run_job.h"

namespace kraken::k8s {

// The ncu-csv import of a log (app/ncu_run_facts.h: ImportNcuRunLog), given by the caller
// so that k8s/ links no importer.
using NcuLogImporter = std::function<Result<NcuRunFacts>(const std::string& name, std::string text)>;

// Largest Job log read (limitBytes of pods/log): a raw page of 50 launches is well under
// 1 MiB; a log that reaches the limit is refused rather than imported cut short.
inline constexpr int64_t kMaxProfileLogBytes = int64_t{32} << 20;

struct ProfileRunStats {
  int workloads = 0;  // with kraken.io/profile-run
  int created = 0;    // Jobs created this pass
  int pending = 0;
  int running = 0;
  int done = 0;       // imported this pass
  int failed = 0;     // failed this pass
  int finished = 0;   // done or failed in an earlier pass: left alone
};

// The status.ncu object of a GpuWorkloadProfile: what the profiled run measured.
std::string NcuStatusJson(const NcuRunFacts& facts, const std::string& job, const std::string& updated);

// Creates the workload's GpuWorkloadProfile when missing, then merge-patches status.ncu
// (the DCGM pass's writes leave that key alone).
Status RecordNcuProfile(const KubeClient& client, const ObjectRef& workload, const NcuRunFacts& facts,
                        const std::string& job, const std::string& updated);

class ProfileRunner {
 public:
  ProfileRunner(const KubeClient& client, ProfileRunOptions options, NcuLogImporter importer)
      : client_(client), options_(std::move(options)), importer_(std::move(importer)) {}

  // One pass over `namespaces`; `updated` (RFC 3339) stamps the profiles written. An API
  // error other than a workload's own failure fails the pass (the next one retries).
  Status RunPass(const std::vector<std::string>& namespaces, const std::string& updated, ProfileRunStats* stats);

 private:
  struct Outcome {
    std::string status;  // pending, running, done, failed
    std::string reason;  // failed only
  };
  Result<Outcome> Advance(const std::vector<ProfileTarget>& group, const std::string& updated, ProfileRunStats* stats);
  Result<Outcome> Create(const std::vector<ProfileTarget>& group, ProfileRunStats* stats);
  Result<Outcome> Collect(const ProfileTarget& target, const std::string& job, const std::string& updated);
  Status Mark(const std::vector<ProfileTarget>& group, const std::string& job, const Outcome& outcome);

  const KubeClient& client_;
  ProfileRunOptions options_;
  NcuLogImporter importer_;
};

// "; profile runs: 1 created, 0 pending, ..." for the pass's summary line.
std::string ProfileRunSummary(const ProfileRunStats& stats);

}  // namespace kraken::k8s
