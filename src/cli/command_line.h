// What main.cc does around CLI11's parse: the KRAKEN design's KRAKEN_MODE=daemon (its
// DaemonSet runs the image without arguments), and the one-line errors with a suggestion
// for an unknown subcommand or option ("unknown command 'analyz' (did you mean
// 'analyze'?)") where CLI11 would say "A subcommand is required".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kraken::cli {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
// two neighbours ("anlayze" is 1 from "analyze").
int EditDistance(std::string_view a, std::string_view b);

// The candidate closest to `typed`, when close enough to be what was meant: at most 2
// edits (1 for names of up to 4 letters), or `typed` is the start of exactly one name, or
// the longest name of 4 or more characters is the start of `typed` ("--output": "--out").
std::optional<std::string> ClosestName(std::string_view typed, const std::vector<std::string>& candidates);

// The arguments with KRAKEN_MODE applied: "daemon" (any case) and no subcommand (nothing,
// or only options other than --help/--version) is `kraken agent ARGS`. Another mode without
// a subcommand is an error; with a subcommand KRAKEN_MODE is not consulted.
Result<std::vector<std::string>> ApplyKrakenMode(std::vector<std::string> args, std::string_view mode);

// The error for a first argument that names no subcommand, "" when it does (or is an
// option): "unknown command 'analyz' (did you mean 'analyze'?)".
std::string UnknownCommandError(std::string_view first, const std::vector<std::string>& commands);

// The error for options of `command` that it does not have, "" when there is none among
// `args` (tokens up to "--"): "unknown option '--intervl' of 'kraken agent' (did you mean
// '--interval'?)".
std::string UnknownOptionError(const std::string& command, const std::vector<std::string>& args,
                               const std::vector<std::string>& options);

}  // namespace kraken::cli
