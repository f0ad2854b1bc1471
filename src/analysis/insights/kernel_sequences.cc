#include "analysis/insights/kernel_sequences.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>

namespace kraken {
namespace {

constexpr size_t kCandidatesPerTop = 20;

struct StreamKernel {
  StringId name = StringTable::kEmpty;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int64_t external_id = -1;
  bool breaks = false;  // communication: ends the run before it
};

struct SequenceAcc {
  size_t length = 0;
  size_t next_free = 0;             // occurrences may not overlap
  std::vector<uint32_t> positions;  // where each occurrence starts in `runs`
  TimeNs total_ns = 0;              // kernels + gaps over all occurrences
};

// Kernels of every (device, stream) in start order, concatenated; a breaking entry
// separates streams and gaps longer than max_gap_ns.
std::vector<StreamKernel> KernelsByStream(const Profile& profile, const CommunicationKernels& communication,
                                          TimeNs max_gap_ns) {
  std::vector<std::pair<std::pair<int32_t, int64_t>, StreamKernel>> keyed;
  keyed.reserve(profile.kernels.size());
  for (size_t i = 0; i < profile.kernels.size(); ++i) {
    const Kernel& k = profile.kernels[i];
    const bool comm = i < communication.evidence.size() && communication.is_communication(i);
    StreamKernel s{k.name, k.start_ns, k.end_ns(), k.external_id, comm};
    keyed.push_back({{k.device, k.stream}, s});
  }
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return a.second.start_ns < b.second.start_ns;
  });
  std::vector<StreamKernel> out;
  out.reserve(keyed.size() + 16);
  for (size_t i = 0; i < keyed.size(); ++i) {
    const bool new_stream = i > 0 && keyed[i].first != keyed[i - 1].first;
    const bool far = i > 0 && keyed[i].second.start_ns - keyed[i - 1].second.end_ns > max_gap_ns;
    if (new_stream || far) out.push_back(StreamKernel{.breaks = true});
    out.push_back(keyed[i].second);
  }
  return out;
}

std::string KeyOf(const std::vector<StreamKernel>& runs, size_t at, size_t length) {
  std::string key(length * sizeof(StringId), '\0');
  for (size_t j = 0; j < length; ++j) std::memcpy(&key[j * sizeof(StringId)], &runs[at + j].name, sizeof(StringId));
  return key;
}

TimeNs OccurrenceTime(const std::vector<StreamKernel>& runs, size_t at, size_t length, TimeNs* gap_ns) {
  TimeNs kernel_ns = 0;
  for (size_t j = at; j < at + length; ++j) {
    kernel_ns += runs[j].end_ns - runs[j].start_ns;
    if (j > at) *gap_ns += std::max<TimeNs>(0, runs[j].start_ns - runs[j - 1].end_ns);
  }
  return kernel_ns;
}

void CountLength(const std::vector<StreamKernel>& runs, size_t length,
                 std::unordered_map<std::string, SequenceAcc>* accs) {
  size_t clean = 0;  // kernels since the last break
  for (size_t end = 0; end < runs.size(); ++end) {
    clean = runs[end].breaks ? 0 : clean + 1;
    if (clean < length) continue;
    const size_t at = end + 1 - length;
    SequenceAcc& acc = (*accs)[KeyOf(runs, at, length)];
    if (!acc.positions.empty() && at < acc.next_free) continue;
    acc.length = length;
    acc.positions.push_back(static_cast<uint32_t>(at));
    acc.next_free = at + length;
    TimeNs gap = 0;
    acc.total_ns += OccurrenceTime(runs, at, length, &gap) + gap;
  }
}

// The heaviest frequent candidates of every length, heaviest first.
std::vector<SequenceAcc> Candidates(const std::vector<StreamKernel>& runs, const KernelSequenceOptions& options) {
  std::vector<SequenceAcc> all;
  for (size_t length = options.min_length; length <= options.max_length; ++length) {
    std::unordered_map<std::string, SequenceAcc> accs;
    CountLength(runs, length, &accs);
    std::vector<SequenceAcc> frequent;
    for (auto& [key, acc] : accs)
      if (static_cast<int64_t>(acc.positions.size()) >= options.min_count) frequent.push_back(std::move(acc));
    // Only the heaviest few of each length can reach the list.
    const size_t keep = std::min(frequent.size(), kCandidatesPerTop * options.top_n);
    auto heavier = [](const SequenceAcc& a, const SequenceAcc& b) {
      if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
      return a.positions.front() < b.positions.front();
    };
    std::partial_sort(frequent.begin(), frequent.begin() + static_cast<std::ptrdiff_t>(keep), frequent.end(), heavier);
    for (size_t i = 0; i < keep; ++i) all.push_back(std::move(frequent[i]));
  }
  std::stable_sort(all.begin(), all.end(), [](const SequenceAcc& a, const SequenceAcc& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.length > b.length;
  });
  return all;
}

// The name of the operator whose external id launched most occurrences.
std::string LaunchingOperator(const Profile& profile, const std::map<int64_t, int64_t>& launchers,
                              const std::unordered_map<int64_t, StringId>& op_names) {
  int64_t best = 0;
  std::string name;
  for (const auto& [external_id, n] : launchers) {
    auto it = op_names.find(external_id);
    if (external_id < 0 || it == op_names.end() || n <= best) continue;
    best = n;
    name = std::string(profile.Name(it->second));
  }
  return name;
}

}  // namespace

std::vector<KernelSequence> FindFrequentKernelSequences(const Profile& profile,
                                                        const KernelSequenceOptions& options) {
  return FindFrequentKernelSequences(profile, ClassifyCommunication(profile), options);
}

std::vector<KernelSequence> FindFrequentKernelSequences(const Profile& profile,
                                                        const CommunicationKernels& communication,
                                                        const KernelSequenceOptions& options) {
  std::vector<KernelSequence> chosen;
  if (!profile.metadata.kernel_timestamps_valid || options.min_length < 1) return chosen;
  const std::vector<StreamKernel> runs = KernelsByStream(profile, communication, options.max_gap_ns);
  std::unordered_map<int64_t, StringId> op_names;
  for (const CpuOp& op : profile.cpu_ops)
    if (op.category == CpuOpCategory::kOperator && op.external_id >= 0) op_names.emplace(op.external_id, op.name);
  std::vector<bool> claimed(runs.size(), false);
  for (const SequenceAcc& c : Candidates(runs, options)) {
    if (chosen.size() >= options.top_n) break;
    std::vector<uint32_t> free;
    for (uint32_t at : c.positions)
      if (std::none_of(claimed.begin() + at, claimed.begin() + at + c.length, [](bool b) { return b; }))
        free.push_back(at);
    if (static_cast<int64_t>(free.size()) < options.min_count) continue;
    KernelSequence s;
    std::map<int64_t, int64_t> launchers;
    for (uint32_t at : free) {
      s.kernel_time_ns += OccurrenceTime(runs, at, c.length, &s.gap_time_ns);
      ++launchers[runs[at].external_id];
      std::fill(claimed.begin() + at, claimed.begin() + at + c.length, true);
    }
    for (size_t j = 0; j < c.length; ++j) s.kernels.emplace_back(profile.Name(runs[c.positions.front() + j].name));
    s.count = static_cast<int64_t>(free.size());
    s.launching_operator = LaunchingOperator(profile, launchers, op_names);
    chosen.push_back(std::move(s));
  }
  std::sort(chosen.begin(), chosen.end(), [](const KernelSequence& a, const KernelSequence& b) {
    if (a.total_ns() != b.total_ns()) return a.total_ns() > b.total_ns();
    return a.kernels < b.kernels;
  });
  return chosen;
}

}  // namespace kraken
