// Aligned plain-text tables for the CLI's human-readable output.
#pragma once

#include <string>
#include <vector>

namespace kraken {

class TextTable {
 public:
  enum class Align { kLeft, kRight };

  // `columns`: header names; numeric columns are usually right-aligned.
  explicit TextTable(std::vector<std::string> columns, std::vector<Align> align = {});

  void AddRow(std::vector<std::string> cells);
  // Cuts cells of column `column` longer than `width` characters with "...".
  void SetMaxWidth(size_t column, size_t width);

  std::string Render(const std::string& indent = "  ") const;

 private:
  std::vector<std::string> columns_;
  std::vector<Align> align_;
  std::vector<size_t> max_width_;
  std::vector<std::vector<std::string>> rows_;
};

// "12.3" style fixed formatting used across tables.
std::string FormatFixed(double value, int decimals);
// A setting or bound as a message quotes it ("%g": "-1", "1001", "0.5", "1e+12").
std::string FormatGeneral(double value);

}  // namespace kraken
