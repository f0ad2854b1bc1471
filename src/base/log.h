// Diagnostics of the long-running commands (agent, profile) on standard error, filtered
// by level (KRAKEN_LOG_LEVEL or the config's log_level). One line per message:
// "kraken agent: warn: store: database is locked".
#pragma once

#include <optional>
#include <string_view>

namespace kraken {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

std::optional<LogLevel> ParseLogLevel(std::string_view text);  // error, warn, info, debug
const char* LogLevelName(LogLevel level);

// Process-wide; set once at start-up, before threads are started.
void SetLogLevel(LogLevel level);
void SetLogPrefix(const char* prefix);  // "kraken agent"; must outlive the process
bool LogEnabled(LogLevel level);

// printf-style; thread-safe (one write per line).
void Log(LogLevel level, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace kraken
