#include "collectors/cupti/nvtx_start.h"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <tuple>
#include <utility>

namespace kraken::cupti {
namespace {

// NVTX's injection ABI (nvtx3/nvtxDetail/nvtxTypes.h, nvToolsExt.h), declared here because
// the CUPTI headers may come without NVTX's.
using NvtxFunctionPointer = void (*)();
using NvtxFunctionTable = NvtxFunctionPointer**;  // slots: pointers to NVTX's function pointers
struct NvtxExportTableCallbacks {
  size_t struct_size;
  int (*GetModuleFunctionTable)(int module, NvtxFunctionTable* out_table, unsigned int* out_size);
};
constexpr uint32_t kNvtxExportTableCallbacks = 1;                           // NVTX_ETID_CALLBACKS
constexpr int kNvtxModuleCore = 1, kNvtxModuleCore2 = 5;                    // NVTX_CB_MODULE_CORE, _CORE2
constexpr unsigned kCoreRangePushEx = 8, kCoreRangePushA = 9;               // NVTX_CBID_CORE_*
constexpr unsigned kCore2DomainRangePushEx = 4;                             // NVTX_CBID_CORE2_*
constexpr int32_t kNvtxMessageAscii = 1;                                    // NVTX_MESSAGE_TYPE_ASCII
// nvtxEventAttributes_v2, up to its message.
struct NvtxEventAttributes {
  uint16_t version, size;
  uint32_t category;
  int32_t color_type;
  uint32_t color;
  int32_t payload_type, reserved0;
  uint64_t payload;
  int32_t message_type;
  const char* message;
};
static_assert(offsetof(NvtxEventAttributes, message_type) == 32 && offsetof(NvtxEventAttributes, message) == 40);

using PushA = int (*)(const char*);
using PushEx = int (*)(const NvtxEventAttributes*);
using DomainPushEx = int (*)(void* domain, const NvtxEventAttributes*);

std::string g_range_name;
NvtxStartCallback g_on_start = nullptr;
std::atomic<bool> g_started{false};
// Where libcupti puts its push handlers: it is handed these instead of NVTX's own function
// pointers (whenever it installs them: libcupti 13 does so after its NVTX initialization
// returned), and the hooks, in NVTX's slots, forward to them. One each for all NVTX
// instances, as libcupti's handlers are plain functions.
NvtxFunctionPointer g_cupti_push_a = nullptr;
NvtxFunctionPointer g_cupti_push_ex = nullptr;
NvtxFunctionPointer g_cupti_domain_push_ex = nullptr;

template <typename Fn>
Fn Forward(NvtxFunctionPointer* where) {
  return reinterpret_cast<Fn>(__atomic_load_n(where, __ATOMIC_ACQUIRE));  // libcupti writes it any time
}

void MaybeStart(const char* name) {
  if (g_started.load(std::memory_order_relaxed) || name == nullptr || g_range_name != name) return;
  if (g_on_start()) g_started.store(true);
}

const char* AsciiMessage(const NvtxEventAttributes* attributes) {
  return attributes != nullptr && attributes->message_type == kNvtxMessageAscii ? attributes->message : nullptr;
}

int HookPushA(const char* message) {
  MaybeStart(message);
  PushA next = Forward<PushA>(&g_cupti_push_a);
  return next != nullptr ? next(message) : 0;
}

int HookPushEx(const NvtxEventAttributes* attributes) {
  MaybeStart(AsciiMessage(attributes));
  PushEx next = Forward<PushEx>(&g_cupti_push_ex);
  return next != nullptr ? next(attributes) : 0;
}

int HookDomainPushEx(void* domain, const NvtxEventAttributes* attributes) {
  MaybeStart(AsciiMessage(attributes));
  DomainPushEx next = Forward<DomainPushEx>(&g_cupti_domain_push_ex);
  return next != nullptr ? next(domain, attributes) : 0;
}

// One NVTX instance (each library built with NVTX's headers has its own) as libcupti sees
// it: its export table, with the core modules' slot lists copied and their push entries
// pointing at the g_cupti_* variables. libcupti may ask for them long after the
// initialization, so each instance keeps its own entry points (no context argument).
constexpr int kMaxInstances = 8;
constexpr unsigned kMaxSlots = 64;
struct NvtxInstance {
  NvtxGetExportTable nvtx_export = nullptr;
  const NvtxExportTableCallbacks* nvtx_callbacks = nullptr;
  NvtxExportTableCallbacks callbacks{};
  NvtxFunctionPointer* core[kMaxSlots] = {};
  NvtxFunctionPointer* core2[kMaxSlots] = {};
  unsigned core_size = 0, core2_size = 0;  // 0: the module is NVTX's own
};
NvtxInstance g_instances[kMaxInstances];
std::mutex g_instances_mutex;
int g_instance_count = 0;

template <int I>
int InstanceModuleTable(int module, NvtxFunctionTable* out_table, unsigned int* out_size) {
  NvtxInstance& instance = g_instances[I];
  const unsigned size = module == kNvtxModuleCore ? instance.core_size : module == kNvtxModuleCore2 ? instance.core2_size : 0;
  if (size == 0) return instance.nvtx_callbacks->GetModuleFunctionTable(module, out_table, out_size);
  if (out_table != nullptr) *out_table = module == kNvtxModuleCore ? instance.core : instance.core2;
  if (out_size != nullptr) *out_size = size;
  return 1;
}

template <int I>
const void* InstanceExportTable(uint32_t id) {
  NvtxInstance& instance = g_instances[I];
  return id == kNvtxExportTableCallbacks ? &instance.callbacks : instance.nvtx_export(id);
}

template <int... I>
constexpr std::array<std::pair<NvtxGetExportTable, decltype(&InstanceModuleTable<0>)>, sizeof...(I)> EntryPoints(
    std::integer_sequence<int, I...>) {
  return {std::make_pair(&InstanceExportTable<I>, &InstanceModuleTable<I>)...};
}
constexpr auto kEntryPoints = EntryPoints(std::make_integer_sequence<int, kMaxInstances>());

// Copies a module's slot list for libcupti with the push entries redirected, and puts the
// hooks into NVTX's slots. False (nothing changed) when the module is missing or larger
// than expected.
bool Redirect(const NvtxExportTableCallbacks* nvtx, int module,
              std::initializer_list<std::tuple<unsigned, NvtxFunctionPointer*, NvtxFunctionPointer>> pushes,
              NvtxFunctionPointer** copy, unsigned* copy_size) {
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (nvtx->GetModuleFunctionTable(module, &table, &size) == 0 || table == nullptr || size + 1 > kMaxSlots) return false;
  for (const auto& [index, shadow, hook] : pushes)
    if (index > size || table[index] == nullptr) return false;
  for (unsigned i = 0; i <= size; ++i) copy[i] = table[i];
  for (const auto& [index, shadow, hook] : pushes) {
    copy[index] = shadow;
    __atomic_store_n(table[index], hook, __ATOMIC_RELEASE);
  }
  *copy_size = size;
  return true;
}

}  // namespace

int InitializeNvtxWithStartHook(NvtxInitializeInjection cupti_init, NvtxGetExportTable get_export_table,
                                const std::string& range_name, NvtxStartCallback on_start) {
  const auto* nvtx = static_cast<const NvtxExportTableCallbacks*>(get_export_table(kNvtxExportTableCallbacks));
  std::unique_lock<std::mutex> lock(g_instances_mutex);
  if (nvtx == nullptr || nvtx->struct_size < sizeof(NvtxExportTableCallbacks) ||
      nvtx->GetModuleFunctionTable == nullptr || g_instance_count == kMaxInstances) {
    lock.unlock();
    return cupti_init(get_export_table);  // this instance's ranges cannot start the window
  }
  if (g_on_start == nullptr) {  // once, before any hook can read them
    g_range_name = range_name;
    g_on_start = on_start;
  }
  const int index = g_instance_count++;
  NvtxInstance& instance = g_instances[index];
  instance.nvtx_export = get_export_table;
  instance.nvtx_callbacks = nvtx;
  instance.callbacks = {sizeof(NvtxExportTableCallbacks), kEntryPoints[index].second};
  Redirect(nvtx, kNvtxModuleCore,
           {{kCoreRangePushA, &g_cupti_push_a, reinterpret_cast<NvtxFunctionPointer>(HookPushA)},
            {kCoreRangePushEx, &g_cupti_push_ex, reinterpret_cast<NvtxFunctionPointer>(HookPushEx)}},
           instance.core, &instance.core_size);
  Redirect(nvtx, kNvtxModuleCore2,
           {{kCore2DomainRangePushEx, &g_cupti_domain_push_ex, reinterpret_cast<NvtxFunctionPointer>(HookDomainPushEx)}},
           instance.core2, &instance.core2_size);
  lock.unlock();
  return cupti_init(kEntryPoints[index].first);
}

}  // namespace kraken::cupti
