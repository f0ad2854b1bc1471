#include "model/link_bandwidth.h"

#include <algorithm>
#include <charconv>

namespace kraken {

int NvlinkGeneration(int nvml_architecture) {
  switch (nvml_architecture) {
    case 4: return 1;   // Pascal (P100)
    case 5: return 2;   // Volta (V100)
    case 7: return 3;   // Ampere (A100)
    case 9: return 4;   // Hopper (H100, H200)
    case 10: return 5;  // Blackwell (B200)
    default: return 0;
  }
}

double NvlinkGbpsPerLink(int generation) {
  switch (generation) {
    case 1: return 20.0;
    case 2:
    case 3:
    case 4: return 25.0;
    case 5: return 50.0;
    default: return 0.0;
  }
}

double PcieGbps(int generation, int width) {
  if (generation <= 0 || width <= 0) return 0.0;
  static constexpr double kGigatransfers[] = {2.5, 5.0, 8.0, 16.0, 32.0};
  int g = std::min(generation, 5);
  double encoding = g <= 2 ? 8.0 / 10.0 : 128.0 / 130.0;
  return kGigatransfers[g - 1] * encoding / 8.0 * width;
}

double PairGbps(std::string_view path, double nvlink_gbps_per_link, double pcie_gbps_a, double pcie_gbps_b) {
  double pcie = std::min(pcie_gbps_a, pcie_gbps_b);
  if (path.size() > 2 && path.substr(0, 2) == "NV") {
    int links = 0;
    auto [end, error] = std::from_chars(path.data() + 2, path.data() + path.size(), links);
    if (error == std::errc() && end == path.data() + path.size() && links > 0) return links * nvlink_gbps_per_link;
  }
  if (path == "PIX" || path == "PXB" || path == "PHB" || path == "NODE") return pcie;
  return pcie / 2;
}

}  // namespace kraken
