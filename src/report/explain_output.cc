#include "report/explain_output.h"

#include <cmath>

#include "base/text.h"
#include "base/text_table.h"

namespace kraken {
namespace {

void Items(std::string& out, const char* title, const std::vector<ExplainItem>& items, const std::string& indent) {
  if (items.empty()) return;
  TextTable table({title, "value", "from"}, {TextTable::Align::kLeft, TextTable::Align::kRight, TextTable::Align::kLeft});
  for (const ExplainItem& i : items) table.AddRow({i.name, FormatExplainValue(i.value, i.unit), i.note});
  out += table.Render(indent);
}

void WriteItems(JsonWriter& json, const char* key, const std::vector<ExplainItem>& items) {
  json.Key(key).BeginArray();
  for (const ExplainItem& i : items)
    json.BeginObject().Field("name", i.name).Field("value", i.value).Field("unit", i.unit).Field("note", i.note).EndObject();
  json.EndArray();
}

}  // namespace

std::string FormatExplainValue(double value, const std::string& unit) {
  if (unit == "B") return FormatBytes(value);
  if (unit == "ratio" || unit.rfind("ratio ", 0) == 0) return FormatFixed(100 * value, 2) + "%";
  if (unit == "B/s") return FormatBytes(value) + "/s";
  if (unit == "s") return FormatFixed(value, std::abs(value) < 0.01 ? 6 : 3) + " s";
  if (unit == "$") return std::string(1, '$').append(FormatFixed(value, 2));
  if (unit.empty()) return value == std::floor(value) && std::abs(value) < 1e15 ? FormatFixed(value, 0) : FormatFixed(value, 4);
  return FormatFixed(value, std::abs(value) < 10 ? 4 : 2) + " " + unit;
}

void RenderExplanationText(std::string& out, const Explanation& e, const std::string& indent) {
  Items(out, "input", e.inputs, indent);
  Items(out, "term", e.terms, indent);
  for (const std::string& a : e.assumptions) out += indent + "assumes: " + a + "\n";
}

void WriteExplanationJson(JsonWriter& json, const Explanation& e) {
  json.BeginObject();
  WriteItems(json, "inputs", e.inputs);
  WriteItems(json, "terms", e.terms);
  json.Key("assumptions").BeginArray();
  for (const std::string& a : e.assumptions) json.String(a);
  json.EndArray().EndObject();
}

}  // namespace kraken
