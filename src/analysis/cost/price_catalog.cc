#include "analysis/cost/price_catalog.h"

#include <map>

#include "base/csv_reader.h"
#include "base/number_input.h"
#include "base/text.h"
#include "model/device_catalog.h"

namespace kraken::cost {
namespace {

// A catalog larger than this is not a price list (bounds memory and time of --prices).
constexpr size_t kMaxCatalogRows = 100'000;

Status RowError(const std::string& origin, size_t line, const std::string& what) {
  return InvalidInput(origin + ":" + std::to_string(line) + ": " + what);
}

class RowReader {
 public:
  RowReader(const std::map<std::string, size_t>& columns, const std::vector<std::string>& fields,
            const std::string& origin, size_t line)
      : columns_(columns), fields_(fields), origin_(origin), line_(line) {}

  std::string Text(const std::string& column) const {
    auto it = columns_.find(column);
    if (it == columns_.end() || it->second >= fields_.size()) return "";
    return std::string(Trim(fields_[it->second]));
  }
  // A number in [low, high]; nullopt when the cell is empty and `required` is false.
  Result<std::optional<double>> Number(const std::string& column, double low, double high, bool required) const {
    std::string text = Text(column);
    if (text.empty()) {
      if (required) return RowError(origin_, line_, column + " is empty");
      return std::optional<double>();
    }
    auto value = ParseBoundedNumber(text, low, high);
    if (!value) {
      return RowError(origin_, line_,
                      column + " '" + text + "' is not a number in [" + FormatNumber(low) + ", " +
                          FormatNumber(high) + "]");
    }
    return std::optional<double>(*value);
  }

 private:
  static std::string FormatNumber(double v) {
    std::string s = std::to_string(v);
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }
  const std::map<std::string, size_t>& columns_;
  const std::vector<std::string>& fields_;
  const std::string& origin_;
  size_t line_;
};

Result<InstancePrice> ParseRow(const RowReader& row, const std::string& origin, size_t line) {
  InstancePrice p;
  p.line = static_cast<int>(line);
  p.provider = ToLower(row.Text("provider"));
  p.instance = row.Text("instance");
  p.region = row.Text("region");
  p.gpu_model = row.Text("gpu_model");
  p.source_url = row.Text("source_url");
  p.source_date = row.Text("source_date");
  if (p.provider.empty()) return RowError(origin, line, "provider is empty");
  if (p.instance.empty()) return RowError(origin, line, "instance is empty");
  const DeviceSpec* spec = FindDeviceSpec(p.gpu_model);
  if (spec == nullptr)
    return RowError(origin, line, "gpu_model '" + p.gpu_model + "' is not in kraken's device catalog (see `kraken devices`)");
  p.gpu_model = spec->id;
  KRAKEN_ASSIGN_OR_RETURN(auto gpus, row.Number("gpus", 1, 64, true));
  if (*gpus != static_cast<int>(*gpus)) return RowError(origin, line, "gpus must be a whole number");
  p.gpus = static_cast<int>(*gpus);
  KRAKEN_ASSIGN_OR_RETURN(auto vcpus, row.Number("vcpus", 1, 100'000, false));
  if (vcpus) p.vcpus = static_cast<int>(*vcpus);
  KRAKEN_ASSIGN_OR_RETURN(p.ram_gib, row.Number("ram_gib", 0.5, 1e7, false));
  KRAKEN_ASSIGN_OR_RETURN(auto on_demand, row.Number("on_demand_usd_per_hour", 0.001, 1e5, true));
  p.on_demand_usd_per_hour = *on_demand;
  KRAKEN_ASSIGN_OR_RETURN(p.spot_usd_per_hour, row.Number("spot_usd_per_hour", 0.001, 1e5, false));
  return p;
}

}  // namespace

Result<std::vector<InstancePrice>> ParsePriceCatalog(std::string_view text, const std::string& origin) {
  CsvReader reader(text);
  std::vector<std::string> fields;
  std::map<std::string, size_t> columns;
  std::vector<InstancePrice> rows;
  while (reader.Next(&fields)) {
    if (reader.unterminated_quote()) return RowError(origin, reader.line(), "unterminated quoted field");
    std::string_view first = fields.empty() ? std::string_view() : Trim(fields[0]);
    if ((fields.size() == 1 && first.empty()) || StartsWith(first, "#")) continue;
    if (columns.empty()) {
      for (size_t i = 0; i < fields.size(); ++i) columns[ToLower(std::string(Trim(fields[i])))] = i;
      for (const char* required : {"provider", "instance", "gpu_model", "gpus", "on_demand_usd_per_hour"})
        if (!columns.count(required))
          return RowError(origin, reader.line(), std::string("the header has no column '") + required + "'");
      continue;
    }
    if (rows.size() >= kMaxCatalogRows)
      return RowError(origin, reader.line(), "more than " + std::to_string(kMaxCatalogRows) + " rows");
    RowReader row(columns, fields, origin, reader.line());
    KRAKEN_ASSIGN_OR_RETURN(InstancePrice price, ParseRow(row, origin, reader.line()));
    rows.push_back(std::move(price));
  }
  if (columns.empty()) return InvalidInput(origin + ": no header line (provider,instance,gpu_model,gpus,...)");
  if (rows.empty()) return InvalidInput(origin + ": no instance rows");
  return rows;
}

const std::vector<InstancePrice>& BuiltinPriceCatalog() {
  static const std::vector<InstancePrice> rows = [] {
    auto parsed = ParsePriceCatalog(BuiltinPriceCatalogText(), "data/prices/gpu_instances.csv");
    // The built-in file is checked by a test; a broken build-time copy is a build defect.
    return parsed.ok() ? std::move(parsed).value() : std::vector<InstancePrice>();
  }();
  return rows;
}

std::vector<InstancePrice> FilterByProvider(const std::vector<InstancePrice>& rows, const std::string& provider) {
  std::string wanted = ToLower(provider);
  std::vector<InstancePrice> out;
  for (const InstancePrice& p : rows)
    if (wanted == "any" || p.provider == wanted) out.push_back(p);
  return out;
}

}  // namespace kraken::cost
