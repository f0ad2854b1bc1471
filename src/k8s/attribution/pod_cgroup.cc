#include "k8s/attribution/pod_cgroup.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "base/text.h"

namespace kraken::k8s {
namespace {

constexpr std::string_view kContainerPrefixes[] = {"cri-containerd-", "containerd-", "docker-", "crio-", "cri-o-"};

bool IsPodUid(std::string_view uid) {
  if (uid.size() != 36) return false;
  for (size_t i = 0; i < uid.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? uid[i] != '-' : !std::isxdigit(static_cast<unsigned char>(uid[i]))) return false;
  }
  return true;
}

bool IsContainerId(std::string_view id) {
  return id.size() >= 12 &&
         std::all_of(id.begin(), id.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// "pod<uid>" (cgroupfs) or "...-pod<uid_with_underscores>.slice" (systemd); "" otherwise.
std::string PodUidOf(std::string_view component) {
  std::string uid;
  if (StartsWith(component, "pod")) {
    uid = std::string(component.substr(3));
  } else if (EndsWith(component, ".slice")) {
    size_t at = component.rfind("-pod");
    if (at == std::string_view::npos) return "";
    uid = std::string(component.substr(at + 4, component.size() - at - 4 - 6));
    std::replace(uid.begin(), uid.end(), '_', '-');
  }
  return IsPodUid(uid) ? uid : "";
}

std::string ContainerIdOf(std::string_view component) {
  if (EndsWith(component, ".scope")) component.remove_suffix(6);
  for (std::string_view prefix : kContainerPrefixes) {
    if (StartsWith(component, prefix)) {
      component.remove_prefix(prefix.size());
      break;
    }
  }
  return IsContainerId(component) ? std::string(component) : "";
}

std::string QosOf(std::string_view component) {
  // cgroupfs: "burstable"; systemd: "kubepods-burstable.slice".
  constexpr std::pair<std::string_view, std::string_view> kQos[] = {{"burstable", "-burstable.slice"},
                                                                    {"besteffort", "-besteffort.slice"}};
  for (const auto& [qos, slice_suffix] : kQos)
    if (component == qos || EndsWith(component, slice_suffix)) return std::string(qos);
  return "";
}

std::optional<PodCgroup> ParsePath(std::string_view path) {
  std::vector<std::string_view> parts = Split(path, '/');
  bool under_kubepods = false;
  std::string qos;
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string_view part = parts[i];
    if (part == "kubepods" || EndsWith(part, "kubepods.slice")) {
      under_kubepods = true;
      continue;
    }
    if (!under_kubepods) continue;
    if (std::string q = QosOf(part); !q.empty()) {
      qos = q;
      continue;
    }
    std::string uid = PodUidOf(part);
    if (uid.empty()) continue;
    PodCgroup out;
    out.pod_uid = uid;
    out.qos_class = qos.empty() ? "guaranteed" : qos;
    if (i + 1 < parts.size()) out.container_id = ContainerIdOf(parts[i + 1]);
    return out;
  }
  return std::nullopt;
}

}  // namespace

std::optional<PodCgroup> ParsePodCgroup(std::string_view text) {
  for (std::string_view line : Split(text, '\n')) {
    // hierarchy-ID:controllers:path; the path may itself contain ':'.
    size_t first = line.find(':');
    if (first == std::string_view::npos) continue;
    size_t second = line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    if (auto pod = ParsePath(Trim(line.substr(second + 1)))) return pod;
  }
  return std::nullopt;
}

Result<std::optional<PodCgroup>> ReadPodCgroup(int64_t pid, const std::string& proc_root) {
  if (pid <= 0) return InvalidInput("pid " + std::to_string(pid) + " is not a process id");
  std::string path = proc_root + "/" + std::to_string(pid) + "/cgroup";
  std::ifstream in(path);
  if (!in) return NotFound(path + ": no such process (or not readable)");
  std::ostringstream text;
  text << in.rdbuf();
  return ParsePodCgroup(text.str());
}

}  // namespace kraken::k8s
