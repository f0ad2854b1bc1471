#include "model/device_catalog.h"

#include <array>
#include <cctype>
#include <string>

#include "base/text.h"

namespace kraken {
namespace {

constexpr double T = 1e12;  // tera
constexpr double G = 1e9;   // giga
constexpr int64_t GiB = int64_t{1} << 30;

// Sources (all figures dense, i.e. without 2:4 sparsity, at boost clock):
//  [V100] NVIDIA Tesla V100 datasheet (SXM2 / PCIe / V100S).
//  [A100] NVIDIA A100 Tensor Core GPU datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4).
//  [H100] NVIDIA H100 Tensor Core GPU datasheet; the datasheet prints sparse tensor figures,
//         the dense ones are half (989.4 BF16 SXM, 756 PCIe). PCIe bandwidth: product brief
//         PB-11133-001 ("greater than 2,000 GB/s").
//  [H200] NVIDIA H200 datasheet: H100 SXM compute, 141 GB HBM3e at 4.8 TB/s.
//  [L4]   NVIDIA L4 datasheet. [L40S] NVIDIA L40S datasheet. [T4] NVIDIA T4 datasheet.
//  [A10]  NVIDIA A10 datasheet.
//  [MI200] AMD Instinct MI250/MI250X/MI210 datasheets; MI250/MI250X are two GCDs that the
//         runtime shows as two devices, so the per-device figures are half the card's.
//  [MI300X] AMD Instinct MI300X datasheet.
//  [B200]  NVIDIA HGX B200 (8 GPUs, 1000 W each), https://www.nvidia.com/en-us/data-center/hgx/ and
//         https://www.nvidia.com/en-us/data-center/dgx-b200/: per GPU 180 GB HBM3e at 8 TB/s
//         (1,440 GB, 64 TB/s per 8); tensor figures printed sparse, dense = half (FP16/BF16
//         2.25 PF, FP8 and INT8 4.5 PF, TF32 1.125 PF); FP64/FP64 tensor 37 TF. FP32 vector 80 TF
//         (Blackwell technical brief, as tabulated at https://glennklockwood.com/garden/processors/B200).
//         148 SMs and the boost clocks (B200 1980 MHz, GB200 2112 MHz) are not on NVIDIA's
//         pages; they are taken from https://hmc-tech.com/gpus/nvidia-b200-vs-nvidia-gb200.
//  [GB200] NVIDIA GB200 NVL72, https://www.nvidia.com/en-us/data-center/gb200-nvl72/: per GPU
//         (the rack's figures / 72) 186 GB HBM3e at 8 TB/s, FP64/FP64 tensor 45 TF, TF32 1.25 PF,
//         FP16/BF16 2.5 PF, FP8 5 PF dense (rack figures printed sparse); FP32 vector 90 TF
//         (the same technical brief). The same 148-SM die as B200 at 1200 W.
//  [MI355X] AMD Instinct MI355X, https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html
//         and https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html (256 CUs, 288 GB
//         HBM3E, 8 TB/s, 2400 MHz peak engine clock): FP64 vector and matrix 78.6 TF, FP32
//         157.3 TF, FP16/BF16 2.5 PF and FP8/INT8 5 PF dense (256 CUs x 8,192 FP8 FLOP per
//         clock x 2.4 GHz). CDNA 4 has no TF32 matrix type, so that peak is 0.
// The last figure is the boost clock in MHz at which those peaks hold (same sources).
// FP64 is 0 where the datasheet publishes none (L4, L40S, T4, A10 list no FP64 figure).
const std::array<DeviceSpec, 22> kCatalog = {{
    {"v100-sxm2", "NVIDIA V100 SXM2", Vendor::kNvidia, 80, 32 * GiB, 900 * G, 7.8 * T, 0, 15.7 * T, 0,
     125 * T, 0, 0, 0, "HBM2", "NVIDIA Tesla V100 datasheet", 1530},
    {"v100-pcie", "NVIDIA V100 PCIe", Vendor::kNvidia, 80, 32 * GiB, 900 * G, 7 * T, 0, 14 * T, 0,
     112 * T, 0, 0, 0, "HBM2", "NVIDIA Tesla V100 datasheet", 1380},
    {"v100s-pcie", "NVIDIA V100S PCIe", Vendor::kNvidia, 80, 32 * GiB, 1134 * G, 8.2 * T, 0, 16.4 * T, 0,
     130 * T, 0, 0, 0, "HBM2", "NVIDIA Tesla V100S datasheet", 1597},
    {"a100-40gb-sxm", "NVIDIA A100 SXM4 40GB", Vendor::kNvidia, 108, 40 * GiB, 1555 * G, 9.7 * T, 19.5 * T,
     19.5 * T, 156 * T, 312 * T, 312 * T, 0, 624 * T, "HBM2", "NVIDIA A100 datasheet", 1410},
    {"a100-40gb-pcie", "NVIDIA A100 PCIe 40GB", Vendor::kNvidia, 108, 40 * GiB, 1555 * G, 9.7 * T, 19.5 * T,
     19.5 * T, 156 * T, 312 * T, 312 * T, 0, 624 * T, "HBM2", "NVIDIA A100 datasheet", 1410},
    {"a100-80gb-sxm", "NVIDIA A100 SXM4 80GB", Vendor::kNvidia, 108, 80 * GiB, 2039 * G, 9.7 * T, 19.5 * T,
     19.5 * T, 156 * T, 312 * T, 312 * T, 0, 624 * T, "HBM2e", "NVIDIA A100 datasheet", 1410},
    {"a100-80gb-pcie", "NVIDIA A100 PCIe 80GB", Vendor::kNvidia, 108, 80 * GiB, 1935 * G, 9.7 * T, 19.5 * T,
     19.5 * T, 156 * T, 312 * T, 312 * T, 0, 624 * T, "HBM2e", "NVIDIA A100 datasheet", 1410},
    {"h100-sxm", "NVIDIA H100 SXM5 80GB", Vendor::kNvidia, 132, 80 * GiB, 3350 * G, 34 * T, 67 * T, 67 * T,
     494.7 * T, 989.4 * T, 989.4 * T, 1978.9 * T, 1978.9 * T, "HBM3", "NVIDIA H100 datasheet (dense = sparse/2)", 1980},
    {"h100-pcie", "NVIDIA H100 PCIe 80GB", Vendor::kNvidia, 114, 80 * GiB, 2000 * G, 26 * T, 51 * T, 51 * T,
     378 * T, 756 * T, 756 * T, 1513 * T, 1513 * T, "HBM2e",
     "NVIDIA H100 datasheet (dense = sparse/2); PB-11133-001 bandwidth", 1755},
    {"h200-sxm", "NVIDIA H200 SXM 141GB", Vendor::kNvidia, 132, 141 * GiB, 4800 * G, 34 * T, 67 * T, 67 * T,
     494.7 * T, 989.4 * T, 989.4 * T, 1978.9 * T, 1978.9 * T, "HBM3e", "NVIDIA H200 datasheet", 1980},
    {"b200", "NVIDIA B200 180GB", Vendor::kNvidia, 148, 180 * GiB, 8000 * G, 37 * T, 37 * T, 80 * T, 1125 * T,
     2250 * T, 2250 * T, 4500 * T, 4500 * T, "HBM3e", "NVIDIA HGX B200 specifications (dense = sparse/2)", 1980},
    {"gb200", "NVIDIA GB200 (Blackwell GPU) 186GB", Vendor::kNvidia, 148, 186 * GiB, 8000 * G, 45 * T, 45 * T,
     90 * T, 1250 * T, 2500 * T, 2500 * T, 5000 * T, 5000 * T, "HBM3e",
     "NVIDIA GB200 NVL72 specifications / 72 (dense = sparse/2)", 2112},
    {"l4", "NVIDIA L4", Vendor::kNvidia, 58, 24 * GiB, 300 * G, 0, 0, 30.3 * T, 60 * T, 121 * T, 121 * T,
     242.5 * T, 242.5 * T, "GDDR6", "NVIDIA L4 datasheet (dense = sparse/2)", 2040},
    {"l40s", "NVIDIA L40S", Vendor::kNvidia, 142, 48 * GiB, 864 * G, 0, 0, 91.6 * T, 183 * T, 362.05 * T,
     362.05 * T, 733 * T, 733 * T, "GDDR6", "NVIDIA L40S datasheet (dense = sparse/2)", 2520},
    {"t4", "NVIDIA T4", Vendor::kNvidia, 40, 16 * GiB, 320 * G, 0, 0, 8.1 * T, 0, 65 * T, 0, 0, 130 * T,
     "GDDR6", "NVIDIA T4 datasheet", 1590},
    {"a10", "NVIDIA A10", Vendor::kNvidia, 72, 24 * GiB, 600 * G, 0, 0, 31.2 * T, 62.5 * T, 125 * T, 125 * T,
     0, 250 * T, "GDDR6", "NVIDIA A10 datasheet (dense = sparse/2)", 1695},
    {"mi210", "AMD Instinct MI210", Vendor::kAmd, 104, 64 * GiB, 1638.4 * G, 22.6 * T, 45.3 * T, 22.6 * T, 0,
     181 * T, 181 * T, 0, 181 * T, "HBM2e", "AMD Instinct MI210 datasheet", 1700},
    {"mi250-gcd", "AMD Instinct MI250 (one GCD)", Vendor::kAmd, 104, 64 * GiB, 1638.4 * G, 22.65 * T,
     45.25 * T, 22.65 * T, 0, 181.05 * T, 181.05 * T, 0, 181.05 * T, "HBM2e",
     "AMD Instinct MI250 datasheet, halved per GCD", 1700},
    {"mi250x-gcd", "AMD Instinct MI250X (one GCD)", Vendor::kAmd, 110, 64 * GiB, 1638.4 * G, 23.95 * T,
     47.85 * T, 23.95 * T, 0, 191.5 * T, 191.5 * T, 0, 191.5 * T, "HBM2e",
     "AMD Instinct MI250X datasheet, halved per GCD", 1700},
    {"mi300x", "AMD Instinct MI300X", Vendor::kAmd, 304, 192 * GiB, 5300 * G, 81.7 * T, 163.4 * T, 163.4 * T,
     653.7 * T, 1307.4 * T, 1307.4 * T, 2614.9 * T, 2614.9 * T, "HBM3", "AMD Instinct MI300X datasheet", 2100},
    {"mi300a", "AMD Instinct MI300A", Vendor::kAmd, 228, 128 * GiB, 5300 * G, 61.3 * T, 122.6 * T, 122.6 * T,
     490.3 * T, 980.6 * T, 980.6 * T, 1961.2 * T, 1961.2 * T, "HBM3", "AMD Instinct MI300A datasheet", 2100},
    {"mi355x", "AMD Instinct MI355X", Vendor::kAmd, 256, 288 * GiB, 8000 * G, 78.6 * T, 78.6 * T, 157.3 * T, 0,
     2516.6 * T, 2516.6 * T, 5033.2 * T, 5033.2 * T, "HBM3E", "AMD Instinct MI355X specifications", 2400},
}};

const DeviceSpec* ById(std::string_view id) {
  for (const auto& spec : kCatalog)
    if (spec.id == id) return &spec;
  return nullptr;
}

// True when `token` occurs in `lower` as a whole word (not inside "l40s" when looking
// for "l4", nor inside "a100" when looking for "a10").
bool HasToken(const std::string& lower, std::string_view token) {
  auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (size_t pos = lower.find(token); pos != std::string::npos; pos = lower.find(token, pos + 1)) {
    bool starts = pos == 0 || !is_word(lower[pos - 1]);
    size_t after = pos + token.size();
    bool ends = after >= lower.size() || !is_word(lower[after]);
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

std::span<const DeviceSpec> DeviceCatalog() { return kCatalog; }

const DeviceSpec* MatchDeviceSpec(std::string_view reported_name, int64_t memory_bytes) {
  std::string n = ToLower(reported_name);
  bool pcie = n.find("pcie") != std::string::npos;
  // NVL parts (H100 NVL, H200 NVL) have their own clocks and are not in the catalog.
  if (HasToken(n, "nvl")) return nullptr;
  if (n.find("h200") != std::string::npos) return ById("h200-sxm");
  // Grace Blackwell reports "NVIDIA GB200"; check it before the plain B200.
  if (HasToken(n, "gb200")) return ById("gb200");
  if (HasToken(n, "b200")) return ById("b200");
  if (n.find("h100") != std::string::npos) return ById(pcie ? "h100-pcie" : "h100-sxm");
  if (n.find("a100") != std::string::npos) {
    bool is80 = n.find("80gb") != std::string::npos ||
                (n.find("40gb") == std::string::npos && memory_bytes > 48 * GiB);
    if (is80) return ById(pcie ? "a100-80gb-pcie" : "a100-80gb-sxm");
    return ById(pcie ? "a100-40gb-pcie" : "a100-40gb-sxm");
  }
  if (n.find("v100s") != std::string::npos) return ById("v100s-pcie");
  if (n.find("v100") != std::string::npos) return ById(pcie ? "v100-pcie" : "v100-sxm2");
  if (HasToken(n, "l40s")) return ById("l40s");
  if (HasToken(n, "l4")) return ById("l4");
  if (HasToken(n, "t4")) return ById("t4");
  if (HasToken(n, "a10")) return ById("a10");
  if (n.find("mi355x") != std::string::npos) return ById("mi355x");
  if (n.find("mi300x") != std::string::npos) return ById("mi300x");
  if (n.find("mi300a") != std::string::npos) return ById("mi300a");
  if (n.find("mi250x") != std::string::npos) return ById("mi250x-gcd");
  if (n.find("mi250") != std::string::npos) return ById("mi250-gcd");
  if (n.find("mi210") != std::string::npos) return ById("mi210");
  // "AMD Radeon Graphics" (what ROCm often reports) names no model: MI210 and one MI250
  // GCD both have 104 CUs and 64 GB, so there is nothing safe to match.
  return nullptr;
}

const DeviceSpec* FindDeviceSpec(std::string_view id_or_name) {
  if (const DeviceSpec* spec = ById(ToLower(id_or_name))) return spec;
  return MatchDeviceSpec(id_or_name);
}

}  // namespace kraken
