// GET /api/v1/cost/budgets/metrics: the kraken_budget_* gauges of `kraken cost chargeback`
// (docs/cost.md) for Prometheus to scrape and alert on. The Prometheus it reads and the
// budgets come from `kraken serve --budget-prometheus URL --budgets FILE`, never from the
// request: a scrape cannot make the server fetch another URL.
#include "app/cost_request.h"
#include "server/http_util.h"
#include "server/server_context.h"

namespace kraken::server {

void AddBudgetRoute(httplib::Server& server, ServerContext& ctx) {
  server.Get("/api/v1/cost/budgets/metrics", [&ctx](const httplib::Request&, httplib::Response& res) {
    const ServeOptions& o = ctx.options;
    if (o.budget_prometheus.empty())
      return SendError(res, 404, "not_configured",
                       "budget metrics need `kraken serve --budget-prometheus URL --budgets FILE`");
    ChargebackSettings settings;
    settings.prometheus = o.budget_prometheus;
    settings.budgets = o.budgets_file;
    settings.range = o.budget_range;
    settings.gpu_model = o.budget_gpu_model;
    settings.forecast = o.budget_forecast;
    settings.timeout_s = o.timeout_s;
    auto text = RenderChargeback(settings, ChargebackFormat::kPrometheus);
    // Prometheus down or too slow: 503 with Retry-After (the scrape comes again anyway).
    if (!text.ok() && text.status().code() == StatusCode::kUnavailable) return SendStatus(res, text.status());
    if (!text.ok()) return SendError(res, 502, "upstream", text.status().message());
    res.status = 200;
    res.set_content(*text, "text/plain; version=0.0.4; charset=utf-8");
  });
}

}  // namespace kraken::server
