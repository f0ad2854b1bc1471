#include "k8s/client/topology_annotation.h"

#include <cmath>
#include <set>

#include "base/text.h"
#include "base/text_table.h"

namespace kraken::k8s {
namespace {

std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }
std::string DashToEmpty(std::string_view s) { return s == "-" ? "" : std::string(s); }

std::optional<int> SmallInt(std::string_view s) {
  std::optional<int64_t> n = ParseInt64(s);
  if (!n || *n < 0 || *n > 1'000'000) return std::nullopt;
  return static_cast<int>(*n);
}

std::optional<double> Gbps(std::string_view s) {
  std::optional<double> v = ParseDouble(s);
  if (!v || !std::isfinite(*v) || *v < 0 || *v > 1e6) return std::nullopt;
  return *v;
}

// "0,n0,c20,p31.50,l18,free"
bool ParseGpu(std::string_view text, TopologyGpu* gpu) {
  std::vector<std::string_view> f = Split(text, ',');
  if (f.size() != 6 || f[1].empty() || f[1][0] != 'n' || f[2].empty() || f[2][0] != 'c' || f[3].empty() ||
      f[3][0] != 'p' || f[4].empty() || f[4][0] != 'l' || (f[5] != "free" && f[5] != "used"))
    return false;
  std::optional<int> index = SmallInt(f[0]), cpus = SmallInt(f[2].substr(1)), links = SmallInt(f[4].substr(1));
  std::optional<int> numa = f[1] == "n-" ? std::optional<int>(-1) : SmallInt(f[1].substr(1));
  std::optional<double> pcie = Gbps(f[3].substr(1));
  if (!index || !cpus || !links || !numa || !pcie || *index >= kMaxTopologyGpus) return false;
  *gpu = TopologyGpu{*index, *numa, *cpus, *pcie, *links, f[5] == "free"};
  return true;
}

// "0-1,NV18,PIX,450.00"
bool ParseLink(std::string_view text, GpuPairLink* link) {
  std::vector<std::string_view> f = Split(text, ',');
  if (f.size() != 4) return false;
  size_t dash = f[0].find('-');
  if (dash == std::string_view::npos) return false;
  std::optional<int> a = SmallInt(f[0].substr(0, dash)), b = SmallInt(f[0].substr(dash + 1));
  std::optional<double> gbps = Gbps(f[3]);
  if (!a || !b || !gbps || *a == *b) return false;
  *link = GpuPairLink{*a, *b, DashToEmpty(f[1]), DashToEmpty(f[2]), *gbps};
  return true;
}

}  // namespace

std::string FormatTopologyAnnotation(const NodeGpuTopology& topology) {
  std::string out = "v1";
  for (const TopologyGpu& g : topology.gpus)
    out += ";gpu=" + std::to_string(g.index) + ",n" + (g.numa_node >= 0 ? std::to_string(g.numa_node) : "-") + ",c" +
           std::to_string(g.cpu_count) + ",p" + FormatFixed(g.pcie_gbps, 2) + ",l" + std::to_string(g.nvlinks) + "," +
           (g.free ? "free" : "used");
  for (const GpuPairLink& l : topology.links)
    out += ";link=" + std::to_string(l.a) + "-" + std::to_string(l.b) + "," + OrDash(l.path) + "," +
           OrDash(l.pcie_path) + "," + FormatFixed(l.gbps, 2);
  return out;
}

std::optional<NodeGpuTopology> ParseTopologyAnnotation(std::string_view text, std::string* why) {
  std::vector<std::string_view> fields = Split(Trim(text), ';');
  if (fields.empty() || fields[0] != "v1") {
    *why = "kraken.io/gpu-topology: version is not v1";
    return std::nullopt;
  }
  NodeGpuTopology topology;
  std::set<int> indices;
  for (size_t i = 1; i < fields.size(); ++i) {
    std::string_view f = fields[i];
    if (f.substr(0, 4) == "gpu=") {
      TopologyGpu gpu;
      if (!ParseGpu(f.substr(4), &gpu) || !indices.insert(gpu.index).second) {
        *why = "kraken.io/gpu-topology: bad or repeated GPU '" + std::string(f.substr(0, 64)) + "'";
        return std::nullopt;
      }
      topology.gpus.push_back(gpu);
    } else if (f.substr(0, 5) == "link=") {
      GpuPairLink link;
      if (!ParseLink(f.substr(5), &link)) {
        *why = "kraken.io/gpu-topology: bad link '" + std::string(f.substr(0, 64)) + "'";
        return std::nullopt;
      }
      topology.links.push_back(std::move(link));
    } else {
      *why = "kraken.io/gpu-topology: unknown field '" + std::string(f.substr(0, 64)) + "'";
      return std::nullopt;
    }
  }
  for (const GpuPairLink& l : topology.links)
    if (!indices.count(l.a) || !indices.count(l.b)) {
      *why = "kraken.io/gpu-topology: link " + std::to_string(l.a) + "-" + std::to_string(l.b) + " names an unlisted GPU";
      return std::nullopt;
    }
  return topology;
}

}  // namespace kraken::k8s
