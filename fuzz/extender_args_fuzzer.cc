// libFuzzer target: the scheduler extender's ExtenderArgs (what kube-scheduler POSTs to
// filter and prioritize), parsed, decided and answered as the server does. Built with
// `make fuzz`; seeds in fuzz/seeds/extender_args.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "k8s/extender/scheduler_extender.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto request = kraken::k8s::ParseExtenderArgs(body);
  if (!request.ok()) {
    if (request.status().message().empty()) __builtin_trap();  // errors must explain themselves
    return 0;
  }
  auto decisions = kraken::k8s::DecideNodes(*request);
  (void)kraken::k8s::FilterResponseJson(*request, decisions);
  (void)kraken::k8s::PrioritizeResponseJson(decisions);
  (void)kraken::k8s::DecisionsJson(*request, decisions);
  return 0;
}
