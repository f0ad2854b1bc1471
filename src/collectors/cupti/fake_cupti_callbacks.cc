// The callback API of libkraken_cupti_fake.so (fake_cupti.cc): one subscriber per process
// (cuptiSubscribe), its callback switches (cuptiEnableCallback) and the "driver" finishing
// cuInit (the exported kraken_fake_cuda_init_finished, which the test programs call after
// InitializeInjection and which calls a subscriber's CU_INIT_FINISHED callback). Each
// subscription and switch is a line of KRAKEN_FAKE_CUPTI_LOG: "subscribe", "unsubscribe",
// "callback_on_<domain>" or "callback_off_<domain>" with the cbid.
//
// KRAKEN_FAKE_CUPTI_REFUSE_CALLBACK=N: the N-th cuptiEnableCallback that turns a callback
// on (counted from 1 over the process) is refused with CUPTI_ERROR_UNKNOWN and changes
// nothing, logged as "callback_refused_<domain>", so that the tests reach a tracer's
// clean-up when CUPTI refuses part of a set of callbacks. Turning one off is never refused.
// cuptiEnableDomain turns a whole domain's callbacks on ("domain_on_<domain>"), and the
// exported kraken_fake_cuda_api_call is the application making a CUDA runtime call
// (cudaLaunchKernel): a subscriber that enabled it is called at its entry and its exit.
#include <cupti.h>

#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <utility>

// fake_cupti.cc's log (KRAKEN_FAKE_CUPTI_LOG) and its record of CUPTI's attachment.
void KrakenFakeLog(const char* what, long long detail);
void KrakenFakeTouch();

namespace {

std::mutex g_mutex;
CUpti_CallbackFunc g_subscriber = nullptr;
void* g_subscriber_data = nullptr;
bool g_init_finished_enabled = false;
std::set<std::pair<int, uint32_t>> g_enabled_callbacks;  // (domain, cbid) the subscriber enabled
std::set<int> g_enabled_domains;                          // cuptiEnableDomain's
bool g_driver_initialized = false;
int64_t g_callbacks_turned_on = 0;  // cuptiEnableCallback(1, ...) calls so far, refused ones included

// Whether this call, the `nth` to turn a callback on, is the one the test asked to refuse.
bool RefusedByTheTest(int64_t nth) {
  const char* refuse = std::getenv("KRAKEN_FAKE_CUPTI_REFUSE_CALLBACK");
  return refuse != nullptr && *refuse != '\0' && std::atoll(refuse) == nth;
}

std::string DomainName(CUpti_CallbackDomain domain) {
  return domain == CUPTI_CB_DOMAIN_DRIVER_API    ? "driver"
         : domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "runtime"
         : domain == CUPTI_CB_DOMAIN_RESOURCE    ? "resource"
                                                 : "other";
}

// Under g_mutex.
void ForgetSubscriberLocked() {
  g_subscriber = nullptr;
  g_init_finished_enabled = false;
  g_enabled_callbacks.clear();
  g_enabled_domains.clear();
}

}  // namespace

// For fake_range_profiler.cc (one subscriber per process, as in CUPTI): the subscriber's
// callback and data when it enabled (domain, cbid), else a null callback.
void KrakenFakeSubscriberFor(CUpti_CallbackDomain domain, uint32_t cbid, CUpti_CallbackFunc* callback,
                             void** userdata) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const bool enabled = g_enabled_callbacks.count({domain, cbid}) != 0 || g_enabled_domains.count(domain) != 0;
  *callback = enabled ? g_subscriber : nullptr;
  *userdata = enabled ? g_subscriber_data : nullptr;
}

// For fake_cupti.cc's cuptiFinalize: the subscription ends with it.
void KrakenFakeForgetSubscriber() {
  std::lock_guard<std::mutex> lock(g_mutex);
  ForgetSubscriberLocked();
}

// For fake_cupti.cc (HW trace) and fake_range_profiler.cc: whether the "driver" finished cuInit.
bool KrakenFakeDriverInitialized() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_driver_initialized;
}

extern "C" {

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback, void* userdata) {
  KrakenFakeTouch();
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_subscriber != nullptr) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  KrakenFakeLog("subscribe", 0);
  g_subscriber = callback;
  g_subscriber_data = userdata;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(&g_subscriber);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle) {
  KrakenFakeTouch();
  std::lock_guard<std::mutex> lock(g_mutex);
  KrakenFakeLog("unsubscribe", 0);
  ForgetSubscriberLocked();
  return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle, CUpti_CallbackDomain domain) {
  KrakenFakeTouch();
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_subscriber == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  KrakenFakeLog(((enable != 0 ? "domain_on_" : "domain_off_") + DomainName(domain)).c_str(), 0);
  if (enable != 0) {
    g_enabled_domains.insert(domain);
  } else {
    g_enabled_domains.erase(domain);
  }
  return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle, CUpti_CallbackDomain domain,
                                CUpti_CallbackId cbid) {
  KrakenFakeTouch();
  std::lock_guard<std::mutex> lock(g_mutex);
  const std::string domain_name = DomainName(domain);
  if (enable != 0 && RefusedByTheTest(++g_callbacks_turned_on)) {
    KrakenFakeLog(("callback_refused_" + domain_name).c_str(), cbid);
    return CUPTI_ERROR_UNKNOWN;
  }
  KrakenFakeLog(((enable != 0 ? "callback_on_" : "callback_off_") + domain_name).c_str(), cbid);
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CU_INIT_FINISHED)
    g_init_finished_enabled = enable != 0;
  if (enable != 0) {
    g_enabled_callbacks.insert({domain, cbid});
  } else {
    g_enabled_callbacks.erase({domain, cbid});
  }
  return CUPTI_SUCCESS;
}

// The test programs' stand-in for the driver finishing cuInit after InitializeInjection.
void kraken_fake_cuda_init_finished() {
  CUpti_CallbackFunc callback = nullptr;
  void* userdata = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_driver_initialized = true;
    if (g_init_finished_enabled) callback = g_subscriber, userdata = g_subscriber_data;
  }
  CUpti_ResourceData data{};
  if (callback != nullptr) callback(userdata, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CU_INIT_FINISHED, &data);
}

// The application's CUDA runtime call (a cudaLaunchKernel): a subscriber that enabled it,
// or the runtime domain, is called at its entry and at its exit, without the lock (the
// subscriber may call back into the library, cuptiFinalize included).
void kraken_fake_cuda_api_call() {
  constexpr uint32_t kLaunch = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  for (CUpti_ApiCallbackSite site : {CUPTI_API_ENTER, CUPTI_API_EXIT}) {
    CUpti_CallbackFunc callback = nullptr;
    void* userdata = nullptr;
    KrakenFakeSubscriberFor(CUPTI_CB_DOMAIN_RUNTIME_API, kLaunch, &callback, &userdata);
    if (callback == nullptr) return;
    CUpti_CallbackData data{};
    data.callbackSite = site;
    data.functionName = "cudaLaunchKernel";
    callback(userdata, CUPTI_CB_DOMAIN_RUNTIME_API, kLaunch, &data);
  }
}

}  // extern "C"
