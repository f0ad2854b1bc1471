// Loader for the "openb" CSVs of Alibaba's cluster-trace-gpu-v2023 (the trace of the FGD
// paper, USENIX ATC'23): the node list (sn,cpu_milli,memory_mib,gpu,model) and the pod
// lists (name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,qos,pod_phase,times...]).
// The multigpu* files stop after gpu_milli; both layouts are read by column name.
//
// These are not profiles, so they do not go through the importer registry: the packing
// simulation calls these functions directly. A row that cannot be used is skipped and
// counted (counter names below); a file without the required columns is an error that
// names the file and the line.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/cluster.h"

namespace kraken {

struct OpenbNodeList {
  std::vector<ClusterNode> nodes;
  // openb_bad_rows (skipped; also counted by reason: openb_unparsable_numbers,
  // openb_wrong_field_count, openb_negative_values), openb_gpu_without_model (kept).
  std::map<std::string, int64_t> counters;
};

struct OpenbPodList {
  std::vector<PodRequest> pods;
  // openb_bad_rows (skipped; also by reason: openb_unparsable_numbers,
  // openb_wrong_field_count, openb_negative_values, openb_gpu_milli_out_of_range,
  // openb_multi_gpu_not_whole), openb_gpu_milli_without_gpus (kept as a CPU-only pod,
  // as the trace's YAML converter does).
  std::map<std::string, int64_t> counters;
};

// Parse CSV text; `source` names the input in error messages.
Result<OpenbNodeList> ParseOpenbNodes(std::string_view text, const std::string& source);
Result<OpenbPodList> ParseOpenbPods(std::string_view text, const std::string& source);

// Read and parse a file; errors start with the path.
Result<OpenbNodeList> LoadOpenbNodes(const std::string& path);
Result<OpenbPodList> LoadOpenbPods(const std::string& path);

}  // namespace kraken
