#include "collectors/cupti/hw_trace.h"

#include <atomic>
#include <chrono>

namespace kraken::cupti {
namespace {

// Process-wide like CUPTI's own switch; written by the callback on the thread in cuInit,
// read by the writer thread.
const LoadedCupti* g_hw_cupti = nullptr;
CUpti_SubscriberHandle g_hw_subscriber = nullptr;
std::atomic<bool> g_hw_subscribed{false};
std::atomic<int> g_hw_result{-1};  // the CUptiResult of cuptiActivityEnableHWTrace(1); -1: not tried
// How the request went: what the closing member says when the switch was not tried.
enum class Request { kNotMade, kSubscribed, kSubscriberRefused, kCallbackRefused, kDeferredAttach };
std::atomic<Request> g_hw_request{Request::kNotMade};

int64_t g_hw_requested_ns = 0;  // steady clock
constexpr int64_t kGiveUpNs = 2'000'000'000;

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void CUPTIAPI OnResourceEvent(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void*) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || cbid != CUPTI_CBID_RESOURCE_CU_INIT_FINISHED) return;
  int not_tried = -1;
  const int result = static_cast<int>(g_hw_cupti->functions.EnableHWTrace(1));
  g_hw_result.compare_exchange_strong(not_tried, result);
}

}  // namespace

void RequestHardwareTimestamps(const LoadedCupti& cupti, bool wanted) {
  const CuptiFunctions& f = cupti.functions;
  if (!wanted || f.EnableHWTrace == nullptr || f.Subscribe == nullptr || f.Unsubscribe == nullptr ||
      f.EnableCallback == nullptr)
    return;
  g_hw_cupti = &cupti;
  g_hw_requested_ns = SteadyNs();
  CUpti_SubscriberHandle subscriber = nullptr;
  if (f.Subscribe(&subscriber, OnResourceEvent, nullptr) != CUPTI_SUCCESS) {  // another tool subscribed
    g_hw_request.store(Request::kSubscriberRefused);
    return;
  }
  g_hw_subscriber = subscriber;
  g_hw_subscribed.store(true);
  g_hw_request.store(Request::kSubscribed);
  if (f.EnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CU_INIT_FINISHED) != CUPTI_SUCCESS) {
    g_hw_request.store(Request::kCallbackRefused);
    g_hw_subscribed.store(false);
    f.Unsubscribe(subscriber);
  }
}

void ReleaseHardwareTimestampsSubscription(bool now) {
  if (!g_hw_subscribed.load()) return;
  // cuInit finishes right after loading the tracer; should CUPTI never call back, the
  // subscription must not stay and shut the application's own CUPTI client out.
  const bool given_up = now || SteadyNs() - g_hw_requested_ns > kGiveUpNs;
  if (g_hw_result.load() < 0 && !given_up) return;
  if (!g_hw_subscribed.exchange(false)) return;
  g_hw_cupti->functions.Unsubscribe(g_hw_subscriber);
}

void SkipHardwareTimestampsForDeferredAttach() { g_hw_request.store(Request::kDeferredAttach); }

JsonMembers HardwareTimestampsMembers() {
  const int result = g_hw_result.load();
  JsonMembers members = {{"kraken_cupti_timestamps", JsonString(result == CUPTI_SUCCESS ? "hw" : "sw")}};
  if (result >= 0 && result != CUPTI_SUCCESS && result != CUPTI_ERROR_NOT_SUPPORTED)
    members.emplace_back("kraken_cupti_hw_trace",
                         JsonString(g_hw_cupti->functions.ErrorText(static_cast<CUptiResult>(result))));
  // What CUPTI answered, NOT_SUPPORTED included (a Hopper), or why it was not asked: the
  // GPU validation reads it to see the switch reached in CU_INIT_FINISHED (docs: "can be
  // called from the CUPTI_CBID_RESOURCE_CU_INIT_FINISHED callback").
  const Request request = g_hw_request.load();
  if (result >= 0) {
    members.emplace_back("kraken_cupti_hw_trace_result",
                         JsonString(g_hw_cupti->functions.ErrorText(static_cast<CUptiResult>(result))));
  } else if (request != Request::kNotMade) {
    members.emplace_back("kraken_cupti_hw_trace_result",
                         JsonString(request == Request::kSubscriberRefused ? "not asked: another CUPTI subscriber"
                                    : request == Request::kCallbackRefused ? "not asked: CU_INIT_FINISHED refused"
                                    : request == Request::kDeferredAttach
                                        ? "not asked: CUPTI was attached when the capture window opened, after "
                                          "cuInit (KRAKEN_CUPTI_DETACH=0 asks in cuInit)"
                                        : "not asked: no CU_INIT_FINISHED callback"));
  }
  return members;
}

}  // namespace kraken::cupti
