// What the end-to-end tests of the kraken binary share: running it (the test target
// defines KRAKEN_BINARY_PATH) and the check that a bad input gets kraken's one-line error.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "base/testing/built_files.h"
#include "base/testing/run_command.h"

namespace kraken {

using RunResult = testing::CommandResult;

// The kraken binary built beside the test with `args`; `env`: "NAME=value " assignments
// put before the command.
inline RunResult RunKraken(const std::string& args, const std::string& env = "") {
  return testing::RunCommand(env + KRAKEN_BINARY_PATH + " " + args);
}

// Exit code 2, exactly one line on stderr starting "kraken: error: " and naming
// `must_contain`, nothing on stdout.
inline void ExpectOneLineError(const RunResult& r, const std::string& must_contain) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("kraken: error: ", 0), 0u) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  EXPECT_NE(r.err.find(must_contain), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

}  // namespace kraken
