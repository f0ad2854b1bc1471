#include "model/enum_names.h"

#include <utility>

namespace kraken {
namespace {

// One table per enum, read both ways, so a name cannot be written one way and read
// another. Each table's last entry is the default the enum's model field starts with.

constexpr std::pair<Vendor, const char*> kVendors[] = {
    {Vendor::kNvidia, "nvidia"}, {Vendor::kAmd, "amd"}, {Vendor::kMeta, "meta-mtia"}, {Vendor::kUnknown, "unknown"}};

constexpr std::pair<CopyDirection, const char*> kDirections[] = {
    {CopyDirection::kHostToDevice, "host_to_device"}, {CopyDirection::kDeviceToHost, "device_to_host"},
    {CopyDirection::kDeviceToDevice, "device_to_device"}, {CopyDirection::kHostToHost, "host_to_host"},
    {CopyDirection::kPeerToPeer, "peer_to_peer"}, {CopyDirection::kUnknown, "unknown"}};

constexpr std::pair<CpuOpCategory, const char*> kCategories[] = {
    {CpuOpCategory::kUserAnnotation, "user_annotation"}, {CpuOpCategory::kGpuUserAnnotation, "gpu_user_annotation"},
    {CpuOpCategory::kPythonFunction, "python_function"}, {CpuOpCategory::kOperator, "operator"}};

constexpr std::pair<MemoryOpKind, const char*> kKinds[] = {{MemoryOpKind::kMemset, "memset"},
                                                           {MemoryOpKind::kMemcpy, "memcpy"}};

constexpr std::pair<SampleAxis, const char*> kAxes[] = {{SampleAxis::kIteration, "iteration"},
                                                        {SampleAxis::kTimeNs, "time_ns"}};

// A value outside its table (none is ever stored) gets the default's name.
template <typename E, size_t N>
const char* NameOf(const std::pair<E, const char*> (&table)[N], E value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return table[N - 1].second;
}

template <typename E, size_t N>
std::optional<E> ValueOf(const std::pair<E, const char*> (&table)[N], std::string_view name) {
  for (const auto& [e, n] : table)
    if (name == n) return e;
  return std::nullopt;
}

}  // namespace

const char* VendorName(Vendor vendor) { return NameOf(kVendors, vendor); }
const char* CopyDirectionName(CopyDirection direction) { return NameOf(kDirections, direction); }
const char* CpuOpCategoryName(CpuOpCategory category) { return NameOf(kCategories, category); }
const char* MemoryOpKindName(MemoryOpKind kind) { return NameOf(kKinds, kind); }
const char* SampleAxisName(SampleAxis axis) { return NameOf(kAxes, axis); }

std::optional<Vendor> VendorFromName(std::string_view name) { return ValueOf(kVendors, name); }
std::optional<CopyDirection> CopyDirectionFromName(std::string_view name) { return ValueOf(kDirections, name); }
std::optional<CpuOpCategory> CpuOpCategoryFromName(std::string_view name) { return ValueOf(kCategories, name); }
std::optional<MemoryOpKind> MemoryOpKindFromName(std::string_view name) { return ValueOf(kKinds, name); }
std::optional<SampleAxis> SampleAxisFromName(std::string_view name) { return ValueOf(kAxes, name); }

}  // namespace kraken
