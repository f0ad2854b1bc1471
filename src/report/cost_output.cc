#include "report/cost_output.h"

#include <cstdio>

#include "base/json_writer.h"
#include "base/text_table.h"

namespace kraken {
namespace {

std::string Usd(double v) {
  std::string out = "$";  // appended: "$" + a temporary trips GCC 12's false -Wrestrict
  out.append(FormatFixed(v, 2));
  return out;
}
std::string Percent(double fraction) {
  std::string out = FormatFixed(fraction * 100, 1);
  out.push_back('%');
  return out;
}

// "x1.50": appended, as in Usd.
std::string Speed(double time_ratio) {
  std::string out = "x";
  out.append(FormatFixed(1 / time_ratio, 2));
  return out;
}

std::string HtmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string LabelValue(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void DemandText(const cost::MeasuredDemand& d, std::string& out) {
  out += d.name + ": " + d.workload_type + ", " + std::to_string(d.gpus) + " GPU(s) " +
         (d.gpu_model.empty() ? "of unknown model" : d.gpu_model) + ", GPU busy " +
         (d.busy_measured ? Percent(d.gpu_busy) : "not measured") + ", memory peak " +
         (d.memory_measured ? FormatFixed(d.memory_peak_bytes / (1024.0 * 1024 * 1024), 2) + " GiB"
                            : std::string("not measured (GPUs at least as large as its own taken to fit)")) +
         ", " + d.bound + "-bound";
  if (d.step_time_s) out += ", step " + FormatFixed(*d.step_time_s * 1000, 1) + " ms";
  out += "\n";
}

void CandidateJson(JsonWriter& w, const cost::Candidate& c) {
  w.BeginObject();
  w.Field("provider", c.instance.provider).Field("instance", c.instance.instance).Field("region", c.instance.region);
  w.Field("gpu_model", c.instance.gpu_model).Field("gpus", c.instance.gpus);
  w.Field("price", c.spot_price ? "spot" : "on_demand");
  w.Field("usd_per_hour", c.usd_per_hour).Field("usd_per_month", c.usd_per_month);
  w.Field("usd_per_work_hour", c.usd_per_work_hour).Field("time_ratio", c.time_ratio);
  w.Field("copies_it_holds", c.replicas).Field("basis", c.basis).Field("current", c.current);
  w.Key("savings_fraction");
  c.savings_fraction ? w.Number(*c.savings_fraction) : w.Null();
  w.Key("savings_usd_per_month");
  c.savings_usd_per_month ? w.Number(*c.savings_usd_per_month) : w.Null();
  w.Field("source_url", c.instance.source_url).Field("source_date", c.instance.source_date);
  w.EndObject();
}

}  // namespace

std::string RenderCostRecommendText(const CostRecommendView& view) {
  std::string out = "Cloud instances for the measured demand (" + view.cloud + ", " +
                    (view.spot ? "spot where published" : "on demand") +
                    (view.budget_usd_per_month > 0 ? ", budget " + Usd(view.budget_usd_per_month) + "/month" : "") +
                    "; prices: " + view.prices_origin + ")\n";
  for (const cost::Recommendation& r : view.workloads) {
    out += "\n";
    DemandText(r.demand, out);
    if (r.current) {
      out += "  current: " + r.current->instance.provider + " " + r.current->instance.instance + " " +
             Usd(r.current->usd_per_hour) + "/h, " + Usd(r.current->usd_per_work_hour) + " per hour of work (" +
             r.current_basis + ")\n";
    } else {
      out += "  current: none priced (" + r.current_basis + "); no savings computed\n";
    }
    TextTable table({"rank", "provider", "instance", "GPUs", "$/h", "$/work-hour", "$/month", "speed", "savings",
                     "basis"},
                    {TextTable::Align::kRight, TextTable::Align::kLeft, TextTable::Align::kLeft,
                     TextTable::Align::kRight, TextTable::Align::kRight, TextTable::Align::kRight,
                     TextTable::Align::kRight, TextTable::Align::kRight, TextTable::Align::kRight,
                     TextTable::Align::kLeft});
    int rank = 0;
    for (const cost::Candidate& c : r.ranked) {
      if (++rank > view.max_rows) break;
      table.AddRow({std::to_string(rank), c.instance.provider, c.instance.instance + (c.current ? " *" : ""),
                    std::to_string(c.instance.gpus) + "x " + c.instance.gpu_model,
                    Usd(c.usd_per_hour) + (c.spot_price ? " spot" : ""), Usd(c.usd_per_work_hour),
                    Usd(c.usd_per_month), Speed(c.time_ratio),
                    c.savings_fraction ? Percent(*c.savings_fraction) : "-", c.basis});
    }
    out += table.Render();
    out += "  " + std::to_string(r.ranked.size()) + " fit; not fit: " + std::to_string(r.rejected_memory) +
           " GPU memory too small, " + std::to_string(r.rejected_gpus) + " too few GPUs, " +
           std::to_string(r.rejected_budget) + " over budget. $/work-hour = the instance's $/h x time ratio "
           "(one hour of the measured work); $/month = the instance always on (730 h).\n";
  }
  return out;
}

std::string RenderCostRecommendJson(const CostRecommendView& view) {
  JsonWriter w;
  w.BeginObject();
  w.Field("cloud", view.cloud).Field("spot", view.spot).Field("budget_usd_per_month", view.budget_usd_per_month);
  w.Field("prices", view.prices_origin).Field("hours_per_month", cost::kHoursPerMonth);
  w.Key("workloads").BeginArray();
  for (const cost::Recommendation& r : view.workloads) {
    const cost::MeasuredDemand& d = r.demand;
    w.BeginObject();
    w.Key("demand").BeginObject();
    w.Field("name", d.name).Field("workload_type", d.workload_type).Field("gpu_model", d.gpu_model);
    w.Field("gpus", d.gpus).Key("gpu_busy");
    d.busy_measured ? w.Number(d.gpu_busy) : w.Null();
    w.Key("memory_peak_bytes");
    d.memory_measured ? w.Number(d.memory_peak_bytes) : w.Null();
    w.Field("bound", d.bound);
    w.Key("step_time_s");
    d.step_time_s ? w.Number(*d.step_time_s) : w.Null();
    w.EndObject();
    w.Key("current");
    if (r.current) {
      CandidateJson(w, *r.current);
    } else {
      w.Null();
    }
    w.Field("current_basis", r.current_basis);
    w.Key("ranked").BeginArray();
    for (const cost::Candidate& c : r.ranked) CandidateJson(w, c);
    w.EndArray();
    w.Key("rejected").BeginObject().Field("memory", r.rejected_memory).Field("gpus", r.rejected_gpus);
    w.Field("budget", r.rejected_budget).EndObject();
    w.EndObject();
  }
  w.EndArray().EndObject();
  return w.Take() + "\n";
}

namespace {

bool HasForecast(const cost::Chargeback& c) { return c.total.forecast.has_value(); }

// "$1200.00 [$900.00, $1500.00]", or why there is no forecast.
std::string ForecastCell(const cost::TeamCharge& t) {
  if (!t.forecast) return "-";
  if (!t.forecast->available) return "-";
  return Usd(t.forecast->usd) + " [" + Usd(t.forecast->low_usd) + ", " + Usd(t.forecast->high_usd) + "]";
}

// Against the budget: the forecast when there is one (OVER: its point is above; AT RISK:
// only its upper bound), else the straight-line projection.
std::string BudgetCell(const cost::TeamCharge& t) {
  if (!t.budget_usd) return "-";
  std::string cell = Usd(*t.budget_usd);
  if (t.forecast && t.forecast->available) {
    if (t.forecast->usd > *t.budget_usd) return cell + " OVER";
    if (t.forecast->high_usd > *t.budget_usd) return cell + " AT RISK";
    return cell;
  }
  return cell + (t.projected_month_usd && *t.projected_month_usd > *t.budget_usd ? " OVER" : "");
}

}  // namespace

std::string RenderChargebackText(const ChargebackView& view) {
  const cost::Chargeback& c = view.charge;
  std::string out = "GPU chargeback by " + view.by + " over " + FormatFixed(c.range_s / 86400.0, 1) +
                    " days (step " + std::to_string(c.step_s) + " s) from " + view.prometheus_url +
                    "; price: " + view.price_basis + "\n";
  const bool forecast = HasForecast(c);
  std::vector<std::string> headers = {"team", "pods", "GPU-h allocated", "GPU-h used", "util", "cost", "idle cost",
                                      "month (proj.)"};
  if (forecast) headers.push_back("month (forecast " + c.total.forecast->horizon + ", 95%)");
  headers.push_back("budget");
  std::vector<TextTable::Align> align(headers.size(), TextTable::Align::kRight);
  align[0] = TextTable::Align::kLeft;
  TextTable table(headers, align);
  auto row = [&](const cost::TeamCharge& t) {
    std::vector<std::string> cells = {t.team, std::to_string(t.pods), FormatFixed(t.allocated_gpu_hours, 2),
                                      FormatFixed(t.used_gpu_hours, 2), Percent(t.utilization()), Usd(t.cost_usd),
                                      Usd(t.idle_cost_usd), t.projected_month_usd ? Usd(*t.projected_month_usd) : "-"};
    if (forecast) cells.push_back(ForecastCell(t));
    cells.push_back(BudgetCell(t));
    table.AddRow(cells);
  };
  for (const cost::TeamCharge& t : c.teams) row(t);
  row(c.total);
  out += table.Render();
  if (!c.unpriced_models.empty()) {
    out += "  no price for GPU model(s):";
    for (const std::string& m : c.unpriced_models) out += " " + m;
    out += " (charged $0; give --gpu-model or --usd-per-gpu-hour)\n";
  }
  if (forecast) {
    for (const cost::TeamCharge& t : c.teams)
      if (t.forecast && !t.forecast->available) out += "  no forecast for " + t.team + ": " + t.forecast->reason + "\n";
    const cost::MonthForecast& f = *c.total.forecast;
    if (f.available)
      out += "  forecast: " + f.method + (f.period_s > 0 ? ", period " + std::to_string(f.period_s / 60) + " min" : "") +
             "; the month at the forecast's mean rate over " + f.horizon +
             ", the interval as if the error persisted all month (docs/cost.md)\n";
  }
  return out;
}

std::string RenderChargebackJson(const ChargebackView& view) {
  const cost::Chargeback& c = view.charge;
  JsonWriter w;
  w.BeginObject();
  w.Field("prometheus", view.prometheus_url).Field("by", view.by);
  w.Field("start_s", view.start_s).Field("end_s", view.end_s).Field("step_s", c.step_s);
  w.Field("price_basis", view.price_basis);
  auto team = [&](const cost::TeamCharge& t) {
    w.BeginObject().Field("team", t.team).Field("pods", t.pods);
    w.Field("allocated_gpu_hours", t.allocated_gpu_hours).Field("used_gpu_hours", t.used_gpu_hours);
    w.Field("utilization", t.utilization()).Field("cost_usd", t.cost_usd).Field("idle_cost_usd", t.idle_cost_usd);
    w.Key("projected_month_usd");
    t.projected_month_usd ? w.Number(*t.projected_month_usd) : w.Null();
    w.Key("budget_usd");
    t.budget_usd ? w.Number(*t.budget_usd) : w.Null();
    w.Key("forecast");
    if (t.forecast) {
      const cost::MonthForecast& f = *t.forecast;
      w.BeginObject().Field("horizon", f.horizon).Field("available", f.available);
      if (f.available) {
        w.Field("method", f.method).Field("period_s", f.period_s);
        w.Field("month_usd", f.usd).Field("month_low_usd", f.low_usd).Field("month_high_usd", f.high_usd);
        w.Field("month_gpu_hours", f.gpu_hours).Field("month_low_gpu_hours", f.low_gpu_hours);
        w.Field("month_high_gpu_hours", f.high_gpu_hours).Field("coverage95", f.coverage95);
      } else {
        w.Field("reason", f.reason);
      }
      w.EndObject();
    } else {
      w.Null();
    }
    w.EndObject();
  };
  w.Key("teams").BeginArray();
  for (const cost::TeamCharge& t : c.teams) team(t);
  w.EndArray();
  w.Key("total");
  team(c.total);
  w.Key("unpriced_models").BeginArray();
  for (const std::string& m : c.unpriced_models) w.String(m);
  w.EndArray().EndObject();
  return w.Take() + "\n";
}

std::string RenderChargebackCsv(const ChargebackView& view) {
  std::string out =
      "team,pods,allocated_gpu_hours,used_gpu_hours,utilization,cost_usd,idle_cost_usd,projected_month_usd,"
      "budget_usd,forecast_month_usd,forecast_month_low_usd,forecast_month_high_usd\n";
  auto row = [&](const cost::TeamCharge& t) {
    out += CsvField(t.team) + "," + std::to_string(t.pods) + "," + FormatFixed(t.allocated_gpu_hours, 4) + "," +
           FormatFixed(t.used_gpu_hours, 4) + "," + FormatFixed(t.utilization(), 4) + "," +
           FormatFixed(t.cost_usd, 2) + "," + FormatFixed(t.idle_cost_usd, 2) + "," +
           (t.projected_month_usd ? FormatFixed(*t.projected_month_usd, 2) : "") + "," +
           (t.budget_usd ? FormatFixed(*t.budget_usd, 2) : "");
    // Appended one by one: a chain of operator+ trips GCC 12's false -Wrestrict.
    bool f = t.forecast && t.forecast->available;
    for (double cost::MonthForecast::*field :
         {&cost::MonthForecast::usd, &cost::MonthForecast::low_usd, &cost::MonthForecast::high_usd}) {
      out.append(",");
      if (f) out.append(FormatFixed((*t.forecast).*field, 2));
    }
    out.append("\n");
  };
  for (const cost::TeamCharge& t : view.charge.teams) row(t);
  row(view.charge.total);
  return out;
}

namespace {

// kraken_budget_forecast_month_{,low_,high_}usd of the teams with a forecast.
void ForecastGauges(const cost::Chargeback& charge, std::string* out) {
  struct Gauge {
    const char* name;
    const char* help;
    double cost::MonthForecast::*value;
  };
  const Gauge gauges[] = {
      {"kraken_budget_forecast_month_usd", "The month (30 days) at the forecast's mean rate (--forecast).",
       &cost::MonthForecast::usd},
      {"kraken_budget_forecast_month_low_usd", "Lower end of the forecast month's 95% interval.",
       &cost::MonthForecast::low_usd},
      {"kraken_budget_forecast_month_high_usd", "Upper end of the forecast month's 95% interval.",
       &cost::MonthForecast::high_usd},
  };
  if (!HasForecast(charge)) return;
  for (const Gauge& g : gauges) {
    *out += std::string("# HELP ") + g.name + " " + g.help + "\n# TYPE " + g.name + " gauge\n";
    for (const cost::TeamCharge& t : charge.teams)
      if (t.forecast && t.forecast->available)
        *out += std::string(g.name) + "{team=\"" + LabelValue(t.team) + "\"} " + FormatFixed((*t.forecast).*g.value, 4) +
                "\n";
  }
}

}  // namespace

std::string RenderBudgetMetrics(const cost::Chargeback& charge) {
  std::string out =
      "# HELP kraken_budget_spent_usd GPU cost charged to the team over the chargeback range.\n"
      "# TYPE kraken_budget_spent_usd gauge\n";
  for (const cost::TeamCharge& t : charge.teams)
    out += "kraken_budget_spent_usd{team=\"" + LabelValue(t.team) + "\"} " + FormatFixed(t.cost_usd, 4) + "\n";
  out += "# HELP kraken_budget_projected_month_usd The range's cost scaled to 30 days.\n"
         "# TYPE kraken_budget_projected_month_usd gauge\n";
  for (const cost::TeamCharge& t : charge.teams)
    if (t.projected_month_usd)
      out += "kraken_budget_projected_month_usd{team=\"" + LabelValue(t.team) + "\"} " +
             FormatFixed(*t.projected_month_usd, 4) + "\n";
  out += "# HELP kraken_budget_limit_usd The team's monthly budget (--budgets).\n"
         "# TYPE kraken_budget_limit_usd gauge\n";
  for (const cost::TeamCharge& t : charge.teams)
    if (t.budget_usd)
      out += "kraken_budget_limit_usd{team=\"" + LabelValue(t.team) + "\"} " + FormatFixed(*t.budget_usd, 4) + "\n";
  ForecastGauges(charge, &out);
  out += "# HELP kraken_budget_idle_usd Cost of allocated GPU time the team's pods left idle.\n"
         "# TYPE kraken_budget_idle_usd gauge\n";
  for (const cost::TeamCharge& t : charge.teams)
    out += "kraken_budget_idle_usd{team=\"" + LabelValue(t.team) + "\"} " + FormatFixed(t.idle_cost_usd, 4) + "\n";
  return out;
}

std::string RenderChargebackHtmlSection(const ChargebackView& view) {
  std::string out = "<section id=\"chargeback\"><h2>GPU chargeback by " + HtmlEscape(view.by) +
                    "</h2>\n<p>Price: " + HtmlEscape(view.price_basis) + "</p>\n<table>\n<tr><th>team</th><th>pods</th>"
                    "<th>GPU-h allocated</th><th>GPU-h used</th><th>utilization</th><th>cost</th><th>idle cost</th>"
                    "<th>budget</th></tr>\n";
  auto row = [&](const cost::TeamCharge& t) {
    out += "<tr><td>" + HtmlEscape(t.team) + "</td><td>" + std::to_string(t.pods) + "</td><td>" +
           FormatFixed(t.allocated_gpu_hours, 2) + "</td><td>" + FormatFixed(t.used_gpu_hours, 2) + "</td><td>" +
           Percent(t.utilization()) + "</td><td>" + Usd(t.cost_usd) + "</td><td>" + Usd(t.idle_cost_usd) +
           "</td><td>" + (t.budget_usd ? Usd(*t.budget_usd) : "-") + "</td></tr>\n";
  };
  for (const cost::TeamCharge& t : view.charge.teams) row(t);
  row(view.charge.total);
  return out + "</table></section>\n";
}

}  // namespace kraken
