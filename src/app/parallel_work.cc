#include "app/parallel_work.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

#include "base/number_input.h"

namespace kraken {

size_t AnalysisThreads() {
  if (const char* env = std::getenv("KRAKEN_THREADS"); env != nullptr) {
    auto n = ParseBoundedNumber(env, 1, 4096);
    if (n) return static_cast<size_t>(*n);
  }
  return std::max<size_t>(1, std::thread::hardware_concurrency());
}

void ParallelFor(size_t n, size_t threads, const std::function<void(size_t)>& fn) {
  threads = std::max<size_t>(1, std::min(threads, n));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
}

}  // namespace kraken
