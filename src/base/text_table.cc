#include "base/text_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kraken {

TextTable::TextTable(std::vector<std::string> columns, std::vector<Align> align)
    : columns_(std::move(columns)), align_(std::move(align)), max_width_(columns_.size(), 0) {
  align_.resize(columns_.size(), Align::kLeft);
}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

void TextTable::SetMaxWidth(size_t column, size_t width) {
  if (column < max_width_.size()) max_width_[column] = width;
}

std::string TextTable::Render(const std::string& indent) const {
  std::vector<std::vector<std::string>> cells;
  cells.push_back(columns_);
  for (const auto& row : rows_) cells.push_back(row);
  for (auto& row : cells) {
    for (size_t c = 0; c < row.size(); ++c) {
      size_t limit = max_width_[c];
      if (limit > 3 && row[c].size() > limit) row[c] = row[c].substr(0, limit - 3) + "...";
    }
  }
  std::vector<size_t> width(columns_.size(), 0);
  for (const auto& row : cells)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  std::string out;
  for (size_t r = 0; r < cells.size(); ++r) {
    std::string line = indent;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const std::string& cell = cells[r][c];
      size_t pad = width[c] - cell.size();
      bool last = c + 1 == columns_.size();
      if (align_[c] == Align::kRight) {
        line.append(pad, ' ');
        line += cell;
      } else {
        line += cell;
        if (!last) line.append(pad, ' ');
      }
      if (!last) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string FormatFixed(double value, int decimals) {
  if (!std::isfinite(value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, value);
  return buf;
}

std::string FormatGeneral(double value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", value);
  return buf;
}

}  // namespace kraken
