// A placement policy: a score for every node that passes the fit filter (the highest
// wins; equal scores go to the node of lowest rank, a fixed random order per experiment)
// and the choice of GPUs on the chosen node. This is the shape of a Kubernetes score
// plugin plus the GPU-selection step of Open-Gpu-Share's Reserve, as in the FGD paper's
// simulator, where exactly one score plugin runs per experiment.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/pack/cluster_state.h"
#include "analysis/pack/rng.h"

namespace kraken::pack {

// One named part of a score, for --explain.
struct ScorePart {
  std::string name;
  double value = 0;
  std::string note;  // unit or formula
};

struct ScoreExplanation {
  double score = 0;
  GpuMask gpus = 0;  // the GPUs the policy would take on this node
  std::vector<ScorePart> parts;
};

class PackingPolicy {
 public:
  virtual ~PackingPolicy() = default;

  virtual std::string_view name() const = 0;

  // True when Score() depends only on the node's state and the pod's score_key: the
  // simulation then caches it until the node changes.
  virtual bool cacheable() const { return true; }

  // Score of a node that passed the fit filter. The published policies return whole
  // numbers: the reference scores are int64 and their truncation decides ties.
  virtual double Score(const ClusterState& state, int node, const PodShape& pod, PackRng& rng) const = 0;

  // The GPUs the pod gets on `node` (bit i = GPU i); called once, on the chosen node.
  virtual GpuMask SelectGpus(const ClusterState& state, int node, const PodShape& pod, PackRng& rng) const = 0;

  // Score() with its parts (never draws random numbers).
  virtual ScoreExplanation Explain(const ClusterState& state, int node, const PodShape& pod) const = 0;

  // What the score means and what it assumes, in a few sentences.
  virtual std::string Assumptions() const = 0;
};

// GPU selection shared by several policies (the reference's "gpusel" settings).
// Best fit: a sharing pod takes the GPU with the least free milli that still fits it
// (lowest index on ties); whole-GPU pods take the free GPUs of lowest index.
GpuMask SelectBestFitGpus(const NodeState& node, const PodShape& pod);
// Random: a sharing pod takes a uniformly random GPU among those it fits; whole GPUs as
// above.
GpuMask SelectRandomGpus(const NodeState& node, const PodShape& pod, PackRng& rng);
// Whole free GPUs of lowest index (Open-Gpu-Share's exclusive allocation).
GpuMask SelectWholeGpus(const NodeState& node, int32_t count);

// Every policy `kraken pack` knows, in the order of the paper's figures, kraken's last.
const std::vector<std::string>& PolicyNames();
// nullptr when the name is unknown (case-insensitive).
std::unique_ptr<PackingPolicy> MakePolicy(std::string_view name, const PackProblem& problem);

std::unique_ptr<PackingPolicy> MakeRandomPolicy();
std::unique_ptr<PackingPolicy> MakeDotProductPolicy();
std::unique_ptr<PackingPolicy> MakeGpuClusteringPolicy();
std::unique_ptr<PackingPolicy> MakeGpuPackingPolicy();
std::unique_ptr<PackingPolicy> MakeBestFitPolicy();
std::unique_ptr<PackingPolicy> MakeFgdPolicy(const PackProblem& problem);
std::unique_ptr<PackingPolicy> MakeKrakenPolicy(const PackProblem& problem);

}  // namespace kraken::pack
