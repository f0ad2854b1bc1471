// GPU cloud instance prices: kraken's built-in catalog (data/prices/gpu_instances.csv,
// compiled into the binary) or a user's own file in the same CSV format (docs/cost.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kraken::cost {

struct InstancePrice {
  std::string provider;  // aws, gcp, azure, lambda, coreweave, ... (lower case)
  std::string instance;  // p4d.24xlarge
  std::string region;
  std::string gpu_model;  // device catalog id (a100-40gb-sxm)
  int gpus = 0;
  std::optional<int> vcpus;
  std::optional<double> ram_gib;
  double on_demand_usd_per_hour = 0;
  std::optional<double> spot_usd_per_hour;  // empty: no public spot price
  std::string source_url;
  std::string source_date;  // YYYY-MM-DD
  int line = 0;             // where the row is in its file

  // The price a request pays: spot when asked and published, else on demand.
  double UsdPerHour(bool spot) const {
    return spot && spot_usd_per_hour ? *spot_usd_per_hour : on_demand_usd_per_hour;
  }
};

// Parses a catalog CSV: '#' comment lines, a header naming at least provider, instance,
// gpu_model, gpus and on_demand_usd_per_hour, then one row per instance. `origin` names
// the file in errors, which read "FILE:LINE: what is wrong". Every gpu_model must be in
// kraken's device catalog.
Result<std::vector<InstancePrice>> ParsePriceCatalog(std::string_view text, const std::string& origin);

// The catalog compiled into kraken.
const std::vector<InstancePrice>& BuiltinPriceCatalog();
// Its text (for `--prices` documentation and tests).
std::string_view BuiltinPriceCatalogText();

// The rows of `provider` ("any" keeps every row; "gcp", "aws", "azure", or any other
// provider name of the catalog).
std::vector<InstancePrice> FilterByProvider(const std::vector<InstancePrice>& rows, const std::string& provider);

}  // namespace kraken::cost
