// One-direction bandwidth of the links between two GPUs, from public specifications
// (docs/topology.md lists the sources):
//   NVLink: 25 GB/s per link per direction for NVLink 2 (V100: 6 links, 300 GB/s total),
//   NVLink 3 (A100: 12 links, 600 GB/s) and NVLink 4 (H100: 18 links, 900 GB/s); 50 GB/s
//   for NVLink 5 (B200: 18 links, 1.8 TB/s); 20 GB/s for NVLink 1 (P100: 4 links, 160 GB/s).
//   PCIe x16, one direction: 8 GT/s x 16 lanes x 128/130 / 8 = 15.75 GB/s for Gen3,
//   31.5 GB/s for Gen4, 63 GB/s for Gen5 (Gen1/2 use 8b/10b).
//   Across sockets (nvidia-smi "SYS"): half the PCIe rate, the ratio NCCL's topology model
//   gives an inter-socket hop against PCIe (6 vs 12 GB/s).
#pragma once

#include <string_view>

namespace kraken {

// NVLink generation by NVML architecture number (NVML_DEVICE_ARCH_*: 4 Pascal, 5 Volta,
// 7 Ampere, 9 Hopper, 10 Blackwell); 0 when the architecture has no NVLink we know.
int NvlinkGeneration(int nvml_architecture);
// Per link per direction, GB/s; 0 for an unknown generation.
double NvlinkGbpsPerLink(int generation);
// One direction of a PCIe link, GB/s; 0 when generation or width is unknown (<= 0).
double PcieGbps(int generation, int width);

// A pair's bandwidth from its nvidia-smi path word: "NV<n>" -> n x `nvlink_gbps_per_link`;
// PIX, PXB, PHB, NODE -> the slower PCIe link of the two; SYS or "" -> half of it.
double PairGbps(std::string_view path, double nvlink_gbps_per_link, double pcie_gbps_a, double pcie_gbps_b);

}  // namespace kraken
