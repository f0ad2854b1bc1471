#include "collectors/cupti/cupti_detach.h"

#include <unistd.h>

#include <atomic>

#include "collectors/cupti/injection_setup.h"

namespace kraken::cupti {
namespace {

enum class Detach { kNone, kRequested, kFinalizing, kDone };
std::atomic<Detach> g_state{Detach::kNone};
const LoadedCupti* g_cupti = nullptr;  // set before the subscription, read in its callback
bool g_say_when_done = false;

void CUPTIAPI OnApiCall(void*, CUpti_CallbackDomain domain, CUpti_CallbackId, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  if (static_cast<const CUpti_CallbackData*>(data)->callbackSite != CUPTI_API_EXIT) return;
  Detach requested = Detach::kRequested;
  // One thread finalizes; the others' callbacks return (CUPTI ends them with the subscription).
  if (!g_state.compare_exchange_strong(requested, Detach::kFinalizing)) return;
  const CUptiResult result = g_cupti->functions.Finalize();
  g_state.store(Detach::kDone);
  if (result != CUPTI_SUCCESS) {
    Say("cuptiFinalize failed: " + g_cupti->functions.ErrorText(result) + "; CUPTI stays attached");
  } else if (g_say_when_done) {
    Say("CUPTI detached from pid " + std::to_string(getpid()) + ": the process runs on untraced");
  }
}

}  // namespace

std::string DetachObstacle(const LoadedCupti& cupti, bool nvtx_forwarded) {
  const CuptiFunctions& f = cupti.functions;
  if (f.Finalize == nullptr || f.Subscribe == nullptr || f.EnableDomain == nullptr || f.Unsubscribe == nullptr)
    return "this libcupti lacks cuptiFinalize, cuptiSubscribe or cuptiEnableDomain";
  if (nvtx_forwarded) return "libcupti handles the NVTX ranges (NVTX_INJECTION64_PATH) and would attach again";
  return "";
}

std::string RequestDetach(const LoadedCupti& cupti, bool say_when_done) {
  const CuptiFunctions& f = cupti.functions;
  if (std::string why = DetachObstacle(cupti, false); !why.empty()) return why;
  if (g_state.load() != Detach::kNone) return "requested already";
  g_cupti = &cupti;
  g_say_when_done = say_when_done;
  CUpti_SubscriberHandle subscriber = nullptr;
  if (CUptiResult r = f.Subscribe(&subscriber, OnApiCall, nullptr);
      r != CUPTI_SUCCESS)
    return "CUPTI refused the subscription (another CUPTI client, such as torch.profiler?): " + f.ErrorText(r);
  // The callbacks come from here on but act only once the request is made, after the
  // tracer's last CUPTI call: a call after cuptiFinalize would attach CUPTI again.
  for (CUpti_CallbackDomain domain : {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API}) {
    if (CUptiResult r = f.EnableDomain(1, subscriber, domain); r != CUPTI_SUCCESS) {
      f.Unsubscribe(subscriber);
      return "CUPTI refused the API callbacks: " + f.ErrorText(r);
    }
  }
  g_state.store(Detach::kRequested);
  return "";
}

bool CuptiDetachRequested() { return g_state.load() != Detach::kNone; }

}  // namespace kraken::cupti
