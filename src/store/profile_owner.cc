// Who is writing a live profile. A profile still incomplete when its writer is gone was
// abandoned (the process was killed or crashed) and is deleted on the next writable open.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "base/text.h"
#include "store/profile_tables.h"

namespace kraken::store {
namespace {

struct ProcessState {
  bool exists = false;
  bool zombie = false;
  std::string start;  // clock ticks after boot, as /proc/PID/stat field 22 writes it
};

ProcessState ReadProcessState(int64_t pid) {
  ProcessState state;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::stringstream text;
  text << in.rdbuf();
  std::string stat = text.str();
  // The command name (field 2) may hold spaces and parentheses: fields restart after the last ')'.
  size_t close = stat.rfind(')');
  if (!in || close == std::string::npos) return state;
  std::vector<std::string_view> fields = SplitWhitespace(std::string_view(stat).substr(close + 1));
  if (fields.size() < 20) return state;
  state.exists = true;
  state.zombie = fields[0] == "Z" || fields[0] == "X";
  state.start = std::string(fields[19]);
  return state;
}

std::string HostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

}  // namespace

ProfileOwner CurrentProcessOwner() {
  ProfileOwner owner;
  owner.host = HostName();
  owner.pid = ::getpid();
  owner.start = ReadProcessState(owner.pid).start;
  return owner;
}

bool OwnerMayBeAlive(const ProfileOwner& owner) {
  // A writer on another host cannot be checked from here: keep its profile.
  if (owner.host != HostName()) return true;
  // Without /proc (the writer could not read its own start time) only the pid can tell.
  if (owner.start.empty()) return ::kill(static_cast<pid_t>(owner.pid), 0) == 0 || errno == EPERM;
  ProcessState state = ReadProcessState(owner.pid);
  return state.exists && !state.zombie && state.start == owner.start;
}

}  // namespace kraken::store
