#include "base/atomic_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kraken {
namespace {

namespace fs = std::filesystem;

// A fresh empty directory for one test.
fs::path AtomicTestDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("kraken_atomic_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string SlurpForAtomicTest(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(AtomicFileTest, RegularFileIsReplacedWholeAndNoTempStays) {
  fs::path dir = AtomicTestDir("regular");
  ASSERT_TRUE(WriteFileAtomically((dir / "out.json").string(), "old").ok());
  ASSERT_TRUE(WriteFileAtomically((dir / "out.json").string(), "{\"new\":1}").ok());
  EXPECT_EQ(SlurpForAtomicTest(dir / "out.json"), "{\"new\":1}");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

// A fifo (like a device node) stays what it is and gets the bytes: renaming a temp file
// over it would turn it into a regular file.
TEST(AtomicFileTest, FifoTargetIsWrittenInPlace) {
  fs::path dir = AtomicTestDir("fifo");
  fs::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  ASSERT_TRUE(WriteFileAtomically(fifo.string(), "through the pipe").ok());
  char buffer[64] = {};
  ssize_t got = ::read(reader, buffer, sizeof(buffer));
  ::close(reader);
  EXPECT_EQ(std::string(buffer, got > 0 ? static_cast<size_t>(got) : 0), "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
  fs::remove_all(dir);
}

// The old temp name was predictable (OUT.tmp.PID): a symlink planted there made kraken
// write through it into another file.
TEST(AtomicFileTest, PlantedSymlinkAtOldTempNameIsNotFollowed) {
  fs::path dir = AtomicTestDir("symlink");
  fs::path victim = dir / "victim";
  std::ofstream(victim) << "precious";
  fs::path out = dir / "out.json";
  fs::create_symlink(victim, out.string() + ".tmp." + std::to_string(::getpid()));
  ASSERT_TRUE(WriteFileAtomically(out.string(), "report").ok());
  EXPECT_EQ(SlurpForAtomicTest(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(out));
  EXPECT_EQ(SlurpForAtomicTest(out), "report");
  fs::remove_all(dir);
}

TEST(AtomicFileTest, DirectoryTargetIsRefused) {
  fs::path dir = AtomicTestDir("dir");
  Status status = WriteFileAtomically(dir.string(), "x");
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find(dir.string()), std::string::npos) << status.message();
  fs::remove_all(dir);
}

// SIGTERM while an output is half written: the temp file goes with the process.
TEST(AtomicFileTest, SigtermRemovesLiveTempFile) {
  fs::path dir = AtomicTestDir("signal");
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    InstallTempFileCleanupOnSignals();
    auto output = AtomicOutput::Open((dir / "big.json").string());
    if (!output.ok() || !(*output)->Write("half of it").ok()) ::_exit(3);
    std::raise(SIGTERM);
    ::_exit(4);  // not reached: the signal ends the process
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_TRUE(fs::is_empty(dir)) << fs::directory_iterator(dir)->path();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kraken
