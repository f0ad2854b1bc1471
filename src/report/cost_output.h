// Rendering of `kraken cost recommend` and `kraken cost chargeback` (docs/cost.md): text
// tables, JSON, CSV, Prometheus exposition of the budgets and a section of the HTML report.
#pragma once

#include <string>
#include <vector>

#include "analysis/cost/chargeback.h"
#include "analysis/cost/instance_recommend.h"

namespace kraken {

struct CostRecommendView {
  std::string cloud;
  bool spot = false;
  double budget_usd_per_month = 0;
  std::string prices_origin;  // "built-in catalog" or the --prices file
  int max_rows = 10;
  std::vector<cost::Recommendation> workloads;
};

std::string RenderCostRecommendText(const CostRecommendView& view);
std::string RenderCostRecommendJson(const CostRecommendView& view);

struct ChargebackView {
  std::string prometheus_url;
  std::string by;  // namespace or label=NAME
  int64_t start_s = 0;
  int64_t end_s = 0;
  std::string price_basis;  // where the $/GPU-hour came from
  cost::Chargeback charge;
};

std::string RenderChargebackText(const ChargebackView& view);
std::string RenderChargebackJson(const ChargebackView& view);
std::string RenderChargebackCsv(const ChargebackView& view);
// kraken_budget_* gauges per team, for Prometheus alerting (docs/cost.md).
std::string RenderBudgetMetrics(const cost::Chargeback& charge);
// A self-contained <section> for the HTML report.
std::string RenderChargebackHtmlSection(const ChargebackView& view);

}  // namespace kraken
