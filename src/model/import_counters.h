// The one list of import counters (Profile::import_counters): every name an importer
// may count, with what it counts. Like Perfetto's stats table, it is what a reader of
// `import_counters` in `kraken analyze --json` looks a name up in; docs/json-output.md's
// counter section is generated from it (import_counters_test checks the two match, and
// regenerates the section with KRAKEN_REGENERATE_DOCS=1).
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace kraken {

struct ImportCounterInfo {
  // The counter's name; for a family (`family` true) the fixed prefix of names whose
  // rest is variable, e.g. "kineto_ignored_category:" + the category.
  std::string_view name;
  bool family;
  std::string_view description;  // what one unit of the count is, and why it was counted
};

// Every counter, grouped by importer, in a stable order.
std::span<const ImportCounterInfo> ImportCounterCatalog();

// The entry a counter name belongs to (an exact name, else the family whose prefix it
// starts with); nullptr for a name no importer declares.
const ImportCounterInfo* FindImportCounter(std::string_view name);

// The Markdown table of the catalog, as docs/json-output.md carries it between its
// generated-section markers.
std::string ImportCounterMarkdown();

}  // namespace kraken
