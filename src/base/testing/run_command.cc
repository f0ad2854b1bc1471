#include "base/testing/run_command.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>

#include "base/testing/test_data.h"

namespace kraken::testing {

CommandResult RunCommand(const std::string& command) {
  std::string err_path = MakeTempDir("run_command") + "/stderr";
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>" + err_path).c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 65536> buffer{};
  size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.out.append(buffer.data(), n);
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = ReadFileOrDie(err_path);
  return result;
}

}  // namespace kraken::testing
