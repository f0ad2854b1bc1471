// libFuzzer target: the small files and flag values users hand to kraken's analyses (the
// first byte picks which): mig-plan's workload CSV and --workload flag, the cost price
// catalog (--prices), chargeback budgets (--budgets), temporal horizons, disagg's remote
// link, plan tenants' tenants file and --gpus list (comma-separated here). Errors must
// explain themselves. Built with `make fuzz`; seeds in
// fuzz/seeds/user_files (first byte included) and the built-in price catalog.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/cost/chargeback.h"
#include "analysis/cost/price_catalog.h"
#include "analysis/disagg/remote_link.h"
#include "analysis/mig/mig_plan.h"
#include "analysis/temporal/series_selection.h"
#include "app/tenant_request.h"
#include "base/text.h"
#include "fuzz_checks.h"

using kraken::fuzzing::CheckExplained;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 8) {
    case 0:
      CheckExplained(kraken::mig::ParseMigPlanCsv(text));
      break;
    case 1:
      CheckExplained(kraken::mig::ParseMigWorkloadFlag(text));
      break;
    case 2:
      CheckExplained(kraken::cost::ParsePriceCatalog(text, "prices.csv"));
      break;
    case 3:
      CheckExplained(kraken::cost::ParseBudgets(text, "budgets.csv"));
      break;
    case 4:
      CheckExplained(kraken::temporal::ParseHorizons(std::string(text)));
      break;
    case 5:
      CheckExplained(kraken::disagg::ParseRemoteLink(text));
      break;
    case 6:
      CheckExplained(kraken::ParseTenantsCsv(std::string(text), "tenants.csv"));
      break;
    default: {
      std::vector<std::string> specs;
      for (std::string_view spec : kraken::Split(text, ',')) specs.emplace_back(spec);
      CheckExplained(kraken::ParseGpus(specs, kraken::cost::BuiltinPriceCatalog()));
      break;
    }
  }
  return 0;
}
