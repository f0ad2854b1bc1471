#include "cli/command_line.h"

#include <algorithm>

#include "base/text.h"

namespace kraken::cli {

int EditDistance(std::string_view a, std::string_view b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

std::optional<std::string> ClosestName(std::string_view typed, const std::vector<std::string>& candidates) {
  if (typed.empty()) return std::nullopt;
  const int allowed = typed.size() <= 4 ? 1 : 2;
  std::optional<std::string> best;
  int best_distance = allowed + 1;
  for (const std::string& name : candidates) {
    int distance = EditDistance(typed, name);
    if (distance < best_distance || (distance == best_distance && best && name < *best)) {
      best = name;
      best_distance = distance;
    }
  }
  if (best_distance <= allowed) return best;
  std::optional<std::string> prefixed;
  for (const std::string& name : candidates) {
    if (!StartsWith(name, typed)) continue;
    if (prefixed) return std::nullopt;  // ambiguous
    prefixed = name;
  }
  if (prefixed) return prefixed;
  // The name with more typed after it ("--output" for "--out"): the longest such name of
  // at least 4 characters ("--o" suggests nothing).
  std::optional<std::string> longest_start;
  for (const std::string& name : candidates)
    if (name.size() >= 4 && StartsWith(typed, name) && (!longest_start || name.size() > longest_start->size()))
      longest_start = name;
  return longest_start;
}

Result<std::vector<std::string>> ApplyKrakenMode(std::vector<std::string> args, std::string_view mode) {
  if (mode.empty() || args.empty()) return args;
  if (args.size() > 1) {
    const std::string& first = args[1];
    bool asks_for_kraken = first == "-h" || first == "--help" || first == "--version";
    if (!StartsWith(first, "-") || asks_for_kraken) return args;  // a subcommand, or kraken's own flags
  }
  if (ToLower(Trim(mode)) != "daemon") {
    std::string message = "KRAKEN_MODE: '";
    message.append(mode).append("' is not a mode kraken knows (daemon runs `kraken agent`)");
    return InvalidInput(message);
  }
  args.insert(args.begin() + 1, "agent");
  return args;
}

std::string UnknownCommandError(std::string_view first, const std::vector<std::string>& commands) {
  if (first.empty() || StartsWith(first, "-")) return "";
  if (std::find(commands.begin(), commands.end(), first) != commands.end()) return "";
  std::string message = "unknown command '";
  message.append(first).append("'");
  if (std::optional<std::string> closest = ClosestName(first, commands))
    return message + " (did you mean '" + *closest + "'?)";
  return message + " (`kraken --help` lists the commands)";
}

std::string UnknownOptionError(const std::string& command, const std::vector<std::string>& args,
                               const std::vector<std::string>& options) {
  for (const std::string& arg : args) {
    if (arg == "--") break;
    if (!StartsWith(arg, "--") || arg.size() == 2) continue;
    std::string name = arg.substr(0, arg.find('='));
    if (std::find(options.begin(), options.end(), name) != options.end()) continue;
    std::string message = "unknown option '" + name + "' of 'kraken " + command + "'";
    if (std::optional<std::string> closest = ClosestName(name, options))
      return message + " (did you mean '" + *closest + "'?)";
    return message + " (`kraken " + command + " --help` lists them)";
  }
  return "";
}

}  // namespace kraken::cli
