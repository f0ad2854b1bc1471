// Frequent kernel sequences: runs of kernels that follow each other on a stream again and
// again (a layer's norm -> gemm -> activation), the candidates for fusion or CUDA graphs.
// HTA answers this for one named operator; kraken scans every stream of the trace and
// ranks the sequences by the time they take, so the question needs no operator name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/communication.h"
#include "model/profile.h"

namespace kraken {

struct KernelSequence {
  std::vector<std::string> kernels;  // names in launch order
  int64_t count = 0;                 // non-overlapping occurrences
  TimeNs kernel_time_ns = 0;         // the kernels' durations, all occurrences
  TimeNs gap_time_ns = 0;            // GPU idle between the kernels inside occurrences
  std::string launching_operator;    // the CPU operator launching its first kernel most often

  TimeNs total_ns() const { return kernel_time_ns + gap_time_ns; }
};

struct KernelSequenceOptions {
  size_t min_length = 2;
  size_t max_length = 8;
  int64_t min_count = 3;
  size_t top_n = 10;
  // Kernels further apart than this on their stream are not back to back: the run ends.
  TimeNs max_gap_ns = 100'000;
};

// Communication kernels (by any evidence: `communication` is ClassifyCommunication of the
// same profile; the overload without it classifies the profile itself) end a run (they
// are not fused with compute), and so does a gap over max_gap_ns. Sequences are chosen greedily by total time, each occurrence claiming
// its kernels, so a listed sequence's sub-sequences and rotations (A B C vs B C A of one
// repeating cycle) do not come back as separate entries. Sorted by total time, descending.
std::vector<KernelSequence> FindFrequentKernelSequences(const Profile& profile,
                                                        const CommunicationKernels& communication,
                                                        const KernelSequenceOptions& options = {});
std::vector<KernelSequence> FindFrequentKernelSequences(const Profile& profile,
                                                        const KernelSequenceOptions& options = {});

}  // namespace kraken
