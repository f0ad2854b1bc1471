// `kraken cost recommend` and `kraken cost chargeback`: the settings a request may give
// (messages name the CLI flags), the price catalog it uses and the one path to each
// document (docs/cost.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/cost/chargeback.h"
#include "analysis/cost/price_catalog.h"
#include "app/profile_inputs.h"
#include "base/status.h"

namespace kraken {

// The catalog of `--prices FILE`, or the built-in one when `path` is empty.
Result<std::vector<cost::InstancePrice>> LoadPriceCatalog(const std::string& path);

struct CostRecommendSettings {
  std::string prices;  // --prices FILE; "" = built-in
  std::string cloud = "any";
  double budget_usd_per_month = 0;
  bool spot = false;
  std::string current;  // --current INSTANCE
  std::string headroom = "10%";
  int top = 10;
};

// Imports or loads every argument, derives each profile's demand and ranks the instances.
Result<std::string> RenderCostRecommendation(const std::vector<std::string>& arguments, const InputOptions& inputs,
                                             const CostRecommendSettings& settings, bool json);

enum class ChargebackFormat { kText, kJson, kCsv, kPrometheus, kHtml };

struct ChargebackSettings {
  std::string prometheus;
  std::string range = "30d";
  std::string step = "auto";
  int64_t end_s = 0;
  std::string by = "namespace";  // namespace | label=NAME
  std::string prices;            // --prices FILE
  std::string cloud = "any";     // whose price per GPU-hour
  double usd_per_gpu_hour = 0;   // overrides the catalog when > 0
  std::string gpu_model;         // for series without modelName
  std::string budgets;           // --budgets FILE
  std::string forecast;          // --forecast 24h: the month projected through the forecaster; "" off
  int timeout_s = 60;
};

Result<std::string> RenderChargeback(const ChargebackSettings& settings, ChargebackFormat format);

}  // namespace kraken
