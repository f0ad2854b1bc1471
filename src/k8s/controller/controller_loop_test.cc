// The controller loop's rules: a pass, a sleep measured from the pass's start, a failed
// pass reported and followed by the next, and a stop that ends a long sleep at once.
#include "k8s/controller/controller_loop.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <thread>
#include <vector>

namespace kraken::k8s {
namespace {

using std::chrono::milliseconds;

TEST(ControllerLoopTest, RunsPassesUntilStoppedAndGoesOnAfterAFailure) {
  std::atomic<bool> stop{false};
  std::vector<int64_t> numbers;
  std::vector<std::string> failures;
  auto pass = [&](int64_t n) {
    numbers.push_back(n);
    if (n == 3) stop = true;
    if (n == 2) return IoError("GET /api/v1/query_range: connection refused");
    return Status::Ok();
  };
  auto on_failure = [&](int64_t n, const Status& s) { failures.push_back(std::to_string(n) + " " + s.message()); };
  ControllerLoopStats stats = RunControllerLoop(pass, on_failure, stop, {milliseconds(5), milliseconds(1)});
  EXPECT_EQ(stats.passes, 3);
  EXPECT_EQ(stats.failed_passes, 1);
  EXPECT_EQ(numbers, (std::vector<int64_t>{1, 2, 3}));
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0], "2 GET /api/v1/query_range: connection refused");
}

TEST(ControllerLoopTest, WaitsTheIntervalBetweenPassStarts) {
  std::atomic<bool> stop{false};
  std::vector<std::chrono::steady_clock::time_point> starts;
  auto pass = [&](int64_t n) {
    starts.push_back(std::chrono::steady_clock::now());
    if (n == 3) stop = true;
    return Status::Ok();
  };
  RunControllerLoop(pass, [](int64_t, const Status&) {}, stop, {milliseconds(60), milliseconds(5)});
  ASSERT_EQ(starts.size(), 3u);
  for (size_t i = 1; i < starts.size(); ++i) EXPECT_GE(starts[i] - starts[i - 1], milliseconds(60));
}

TEST(ControllerLoopTest, StopDuringAnHourLongSleepEndsTheLoopPromptly) {
  std::atomic<bool> stop{false};
  int passes = 0;
  auto started = std::chrono::steady_clock::now();
  std::thread stopper([&] {
    std::this_thread::sleep_for(milliseconds(150));
    stop = true;
  });
  ControllerLoopStats stats = RunControllerLoop(
      [&](int64_t) {
        ++passes;
        return Status::Ok();
      },
      [](int64_t, const Status&) {}, stop, {std::chrono::hours(1), milliseconds(100)});
  stopper.join();
  EXPECT_EQ(stats.passes, 1);
  EXPECT_EQ(passes, 1);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST(ControllerLoopTest, SigtermSetsTheStopFlag) {
  const std::atomic<bool>& stop = InstallStopSignalHandlers();
  EXPECT_FALSE(stop.load());
  ASSERT_EQ(::raise(SIGTERM), 0);
  EXPECT_TRUE(stop.load());
  ControllerLoopStats stats = RunControllerLoop([](int64_t) { return Status::Ok(); }, [](int64_t, const Status&) {},
                                                stop, {milliseconds(1), milliseconds(1)});
  EXPECT_EQ(stats.passes, 0);  // already stopped: no pass starts
}

}  // namespace
}  // namespace kraken::k8s
