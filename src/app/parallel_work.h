// Running independent per-rank work on every core: a fixed pool of threads pulling
// indices from a shared counter. Results go to caller-owned slots by index, so the output
// order never depends on the scheduling.
#pragma once

#include <cstddef>
#include <functional>

namespace kraken {

// Threads `kraken analyze` uses: $KRAKEN_THREADS when set to a positive number (1 = serial,
// for measurements), else the machine's hardware concurrency.
size_t AnalysisThreads();

// Calls fn(i) for every i in [0, n) on up to `threads` threads (the calling thread is one
// of them) and returns when all are done. fn must not throw.
void ParallelFor(size_t n, size_t threads, const std::function<void(size_t)>& fn);

}  // namespace kraken
