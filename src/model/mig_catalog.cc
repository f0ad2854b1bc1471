#include "model/mig_catalog.h"

#include <array>

#include "base/text.h"

namespace kraken {
namespace {

// Sources (facts only):
//  [GUIDE] NVIDIA Multi-Instance GPU User Guide, v580 (docs.nvidia.com/datacenter/tesla/
//          mig-user-guide): "Supported MIG Profiles" tables 6-8 (fraction of memory and of
//          SMs, number of instances for A100, H100, H200) and the `nvidia-smi mig -lgipp`
//          example in "Getting Started": profile 19 {0,1,2,3,4,5,6}:1, 15 {0,2,4,6}:2,
//          14 {0,2,4}:2, 9 {0,4}:4, 5 {0}:4, 0 {0}:8. H100 and H200 have the same fractions
//          as A100, hence the same placements on the 8-slice memory axis.
//  [LGIP]  `nvidia-smi mig -lgip` output (memory GiB, SM count) printed by real GPUs:
//          A100-SXM4-40GB 1g.5gb 4.75/14, 2g.10gb 9.75/28, 3g.20gb 19.62/42, 7g.40gb 39.50/98;
//          A100 80GB PCIe (driver 515.86.01) 1g.10gb 9.50/14, 2g.20gb 19.50/28,
//          3g.40gb 39.25/42, 4g.40gb 39.25/56, 7g.80gb 79.00/98; H100 80GB 1g.10gb 9.75/16,
//          1g.20gb 19.62/26, 2g.20gb 19.62/32, 3g.40gb 39.50/60, 4g.40gb 39.50/64,
//          7g.80gb 79.25/132; H200 1g.18gb 16.00/16, 2g.35gb 32.50/32, 7g.141gb 140.00/132.
//  [CAPT]  shared/data/nvidia-smi H100-MIG and H200-MIG captures (driver 590.48.01), MiB
//          exactly: H100 1g.10gb 9984, 2g.20gb 20096, 3g.40gb 40448 (60 SMs);
//          H200 1g.18gb 16384, 2g.35gb 33280, 3g.71gb 71424. Tests assert these.
// A profile that shares its memory slices with another (1g.10gb and 2g.10gb on A100-40GB,
// 1g.35gb and 2g.35gb on H200, 4g and 3g everywhere) is given that profile's memory; the
// H200's 1g.35gb, 3g.71gb and 4g.71gb SM counts are the H100's (same GH100 die, same SM
// counts wherever both were printed). Memory can differ by a few MiB between drivers and
// placements (the guide's own example shows two 3g.20gb instances of 20224 and 20096 MiB).
// "+me" profiles (one 1g instance with media engines) are left out: for compute and memory
// they are the plain 1g profile.
const std::vector<int> kStarts1 = {0, 1, 2, 3, 4, 5, 6};
const std::vector<int> kStarts1Double = {0, 2, 4, 6};
const std::vector<int> kStarts2 = {0, 2, 4};
const std::vector<int> kStarts3 = {0, 4};
const std::vector<int> kStarts4 = {0};
const std::vector<int> kStarts7 = {0};

std::vector<MigProfileSpec> Profiles(std::array<const char*, 6> names, std::array<int, 6> sms,
                                     std::array<int64_t, 6> mib) {
  return {
      {names[0], 19, 1, 1, sms[0], mib[0], 7, kStarts1},
      {names[1], 15, 1, 2, sms[1], mib[1], 4, kStarts1Double},
      {names[2], 14, 2, 2, sms[2], mib[2], 3, kStarts2},
      {names[3], 9, 3, 4, sms[3], mib[3], 2, kStarts3},
      {names[4], 5, 4, 4, sms[4], mib[4], 1, kStarts4},
      {names[5], 0, 7, 8, sms[5], mib[5], 1, kStarts7},
  };
}

const std::vector<MigGeometry>& Geometries() {
  static const std::vector<MigGeometry> geometries = {
      {"a100-40gb-sxm", "NVIDIA A100 40GB", 108, 8, 7,
       Profiles({"1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"}, {14, 14, 28, 42, 56, 98},
                {4864, 9984, 9984, 20096, 20096, 40448}),
       "MIG User Guide v580 tables/-lgipp; -lgip of an A100-SXM4-40GB"},
      {"a100-80gb-sxm", "NVIDIA A100 80GB", 108, 8, 7,
       Profiles({"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}, {14, 14, 28, 42, 56, 98},
                {9728, 19968, 19968, 40192, 40192, 80896}),
       "MIG User Guide v580 tables/-lgipp; -lgip of an A100 80GB PCIe, driver 515.86.01"},
      {"h100-sxm", "NVIDIA H100 SXM5 80GB", 132, 8, 7,
       Profiles({"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}, {16, 26, 32, 60, 64, 132},
                {9984, 20096, 20096, 40448, 40448, 81152}),
       "MIG User Guide v580 tables/-lgipp; -lgip of an H100 80GB; H100-MIG capture, driver 590.48.01"},
      {"h200-sxm", "NVIDIA H200 SXM 141GB", 132, 8, 7,
       Profiles({"1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"}, {16, 26, 32, 60, 64, 132},
                {16384, 33280, 33280, 71424, 71424, 143360}),
       "MIG User Guide v580 tables/-lgipp; -lgip of an H200; H200-MIG capture, driver 590.48.01"},
  };
  return geometries;
}

}  // namespace

std::span<const MigGeometry> MigGeometries() { return Geometries(); }

const MigGeometry* FindMigGeometry(std::string_view device_id) {
  std::string id = ToLower(Trim(device_id));
  // The PCIe boards of the same memory size offer the same A100 profiles (the guide's
  // tables are per product memory size). H100 PCIe (114 SMs) is not covered.
  if (id == "a100-40gb-pcie") id = "a100-40gb-sxm";
  if (id == "a100-80gb-pcie") id = "a100-80gb-sxm";
  for (const MigGeometry& g : Geometries())
    if (g.device_id == id) return &g;
  return nullptr;
}

const MigProfileSpec* FindMigProfile(const MigGeometry& geometry, std::string_view name) {
  std::string_view n = Trim(name);
  if (StartsWith(n, "MIG ")) n.remove_prefix(4);
  // "2c.3g.71gb": a compute instance of 2 slices inside a 3g.71gb GPU instance.
  size_t dot = n.find('.');
  if (dot != std::string_view::npos && dot > 0 && n[dot - 1] == 'c') n.remove_prefix(dot + 1);
  for (const MigProfileSpec& p : geometry.profiles)
    if (EqualsIgnoreCase(p.name, n)) return &p;
  return nullptr;
}

}  // namespace kraken
