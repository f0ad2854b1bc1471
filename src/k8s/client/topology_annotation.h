// A node's GPU topology as an annotation, so that the scheduler extender (which sees only
// the Node objects kube-scheduler sends) can pick the GPUs of a multi-GPU pod:
//
//   kraken.io/gpu-topology: "v1;gpu=0,n0,c20,p31.50,l18,free;gpu=1,...;link=0-1,NV18,PIX,450.00;..."
//
// gpu=<index>,n<NUMA node|->,c<CPU count>,p<PCIe GB/s one direction>,l<active NVLinks>,
// free|used; link=<a>-<b>,<path>,<PCIe path>,<GB/s one direction> (paths as nvidia-smi
// topo -m writes them, "-" unknown). Written by the agent for its own node
// (docs/topology.md). A pod asks for NVLink with kraken.io/topology: nvlink-required.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/gpu_topology.h"

namespace kraken::k8s {

inline constexpr char kGpuTopologyKey[] = "kraken.io/gpu-topology";
inline constexpr char kTopologyRequirementKey[] = "kraken.io/topology";
inline constexpr char kNvlinkRequired[] = "nvlink-required";
inline constexpr int kMaxTopologyGpus = 64;

std::string FormatTopologyAnnotation(const NodeGpuTopology& topology);

// nullopt with `*why` set when the version is unknown, a field is malformed, a GPU index
// repeats or exceeds kMaxTopologyGpus, or a link names a GPU not listed.
std::optional<NodeGpuTopology> ParseTopologyAnnotation(std::string_view text, std::string* why);

}  // namespace kraken::k8s
