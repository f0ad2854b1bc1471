#include "importers/nvidia_smi/capture_sections.h"

#include "base/text.h"

namespace kraken::nvidia_smi {

bool IsBannerRule(std::string_view line) {
  line = Trim(line);
  if (line.size() < 20) return false;
  for (char c : line)
    if (c != '#') return false;
  return true;
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines = Split(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  for (auto& line : lines)
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return lines;
}

bool StartsWithCaptureBanner(std::string_view text) {
  std::vector<std::string_view> lines = Lines(text.substr(0, 4096));
  size_t i = 0;
  while (i < lines.size() && Trim(lines[i]).empty()) ++i;
  if (i + 1 >= lines.size() || !IsBannerRule(lines[i])) return false;
  // Comment lines up to the closing rule; a capture names its tool or a command.
  bool names_capture = false;
  for (size_t j = i + 1; j < lines.size(); ++j) {
    if (IsBannerRule(lines[j])) return names_capture;
    if (!StartsWith(lines[j], "#")) return false;
    if (ContainsIgnoreCase(lines[j], "nvidia-smi") || ContainsIgnoreCase(lines[j], "gpu capture")) {
      names_capture = true;
    }
  }
  return false;
}

namespace {

// Reads the banner starting at lines[i] (a rule); returns the index after its closing rule,
// or i when lines[i] does not open a banner.
size_t ReadBanner(const std::vector<std::string_view>& lines, size_t i, Section* section) {
  size_t j = i + 1;
  while (j < lines.size() && StartsWith(lines[j], "#") && !IsBannerRule(lines[j])) ++j;
  if (j == i + 1 || j >= lines.size()) return i;  // no comment lines, or never closed
  for (size_t k = i + 1; k < j; ++k) {
    std::string_view text = Trim(lines[k].substr(1));
    if (StartsWith(text, "$ ")) {
      if (section->command.empty()) section->command = std::string(Trim(text.substr(2)));
    } else if (section->title.empty()) {
      size_t sep = text.find(" :: ");
      if (sep != std::string_view::npos) {
        section->phase = std::string(Trim(text.substr(0, sep)));
        section->title = std::string(Trim(text.substr(sep + 4)));
      } else {
        section->title = std::string(text);
      }
    }
  }
  return j + 1;
}

}  // namespace

std::vector<Section> SplitSections(std::string_view text) {
  std::vector<std::string_view> lines = Lines(text);
  std::vector<Section> sections;
  if (!StartsWithCaptureBanner(text)) {
    Section whole;
    whole.body = text;
    sections.push_back(std::move(whole));
    return sections;
  }
  auto body_end = [&](size_t line_index) {
    return line_index < lines.size() ? static_cast<size_t>(lines[line_index].data() - text.data()) : text.size();
  };
  size_t i = 0;
  Section* open = nullptr;
  size_t open_start = 0;
  while (i < lines.size()) {
    if (IsBannerRule(lines[i])) {
      Section next;
      size_t after = ReadBanner(lines, i, &next);
      if (after != i) {
        if (open != nullptr) open->body = text.substr(open_start, body_end(i) - open_start);
        next.first_line = after + 1;
        sections.push_back(std::move(next));
        open = &sections.back();
        open_start = body_end(after);
        i = after;
        continue;
      }
      // A stray rule (two rules in a row): not part of any body.
    }
    ++i;
  }
  if (open != nullptr) open->body = text.substr(open_start);
  return sections;
}

std::optional<std::string> CommandOption(std::string_view command, std::string_view option) {
  std::vector<std::string_view> words = SplitWhitespace(command);
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == option && i + 1 < words.size()) return std::string(words[i + 1]);
    // "--loop=5" style
    if (StartsWith(words[i], option) && words[i].size() > option.size() && words[i][option.size()] == '=') {
      return std::string(words[i].substr(option.size() + 1));
    }
  }
  return std::nullopt;
}

}  // namespace kraken::nvidia_smi
