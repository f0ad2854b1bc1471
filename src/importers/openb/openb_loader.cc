#include "importers/openb/openb_loader.h"

#include <optional>

#include "base/byte_stream.h"
#include "base/csv_reader.h"
#include "base/text.h"

namespace kraken {
namespace {

// Column positions found in the header; -1 = absent.
struct Columns {
  std::map<std::string, int> index;
  size_t count = 0;

  int Find(const std::string& name) const {
    auto it = index.find(name);
    return it == index.end() ? -1 : it->second;
  }
};

std::string LinePrefix(const std::string& source, size_t line) {
  return source + ": line " + std::to_string(line) + ": ";
}

// Reads the header record and checks that every required column is there.
Result<Columns> ReadHeader(CsvReader& reader, const std::string& source, const std::vector<std::string>& required) {
  std::vector<std::string> fields;
  if (!reader.Next(&fields)) return InvalidInput(source + ": line 1: empty file, expected a CSV header");
  Columns columns;
  columns.count = fields.size();
  for (size_t i = 0; i < fields.size(); ++i) {
    std::string name(Trim(fields[i]));
    // A UTF-8 byte-order mark would otherwise hide the first column's name.
    if (i == 0 && StartsWith(name, "\xEF\xBB\xBF")) name = name.substr(3);
    columns.index.emplace(name, static_cast<int>(i));
  }
  for (const std::string& name : required)
    if (columns.Find(name) < 0)
      return InvalidInput(LinePrefix(source, reader.line()) + "missing column '" + name + "' (not an openb CSV?)");
  return columns;
}

bool IsBlank(const std::vector<std::string>& fields) { return fields.size() == 1 && Trim(fields[0]).empty(); }

std::optional<int64_t> IntField(const std::vector<std::string>& fields, int column) {
  if (column < 0 || static_cast<size_t>(column) >= fields.size()) return std::nullopt;
  return ParseInt64(fields[static_cast<size_t>(column)]);
}

std::string TextField(const std::vector<std::string>& fields, int column) {
  if (column < 0 || static_cast<size_t>(column) >= fields.size()) return "";
  return std::string(Trim(fields[static_cast<size_t>(column)]));
}

void CountBad(std::map<std::string, int64_t>& counters, const char* reason) {
  ++counters["openb_bad_rows"];
  ++counters[reason];
}

Result<std::string> ReadFile(const std::string& path) {
  auto stream = OpenFileStream(path);
  if (!stream.ok()) return stream.status().WithContext(path);
  auto text = ReadAll(**stream);
  if (!text.ok()) return text.status().WithContext(path);
  return std::move(text).value();
}

}  // namespace

Result<OpenbNodeList> ParseOpenbNodes(std::string_view text, const std::string& source) {
  CsvReader reader(text);
  KRAKEN_ASSIGN_OR_RETURN(Columns columns, ReadHeader(reader, source, {"sn", "cpu_milli", "memory_mib", "gpu"}));
  const int sn = columns.Find("sn"), cpu = columns.Find("cpu_milli"), mem = columns.Find("memory_mib"),
            gpu = columns.Find("gpu"), model = columns.Find("model");
  OpenbNodeList out;
  std::vector<std::string> fields;
  while (reader.Next(&fields)) {
    if (IsBlank(fields)) continue;
    if (fields.size() != columns.count) {
      CountBad(out.counters, "openb_wrong_field_count");
      continue;
    }
    auto cpu_milli = IntField(fields, cpu);
    auto memory_mib = IntField(fields, mem);
    auto gpu_count = IntField(fields, gpu);
    if (!cpu_milli || !memory_mib || !gpu_count) {
      CountBad(out.counters, "openb_unparsable_numbers");
      continue;
    }
    if (*cpu_milli < 0 || *memory_mib < 0 || *gpu_count < 0 || *gpu_count > 64) {
      CountBad(out.counters, "openb_negative_values");
      continue;
    }
    ClusterNode node;
    node.name = TextField(fields, sn);
    node.cpu_milli = *cpu_milli;
    node.memory_mib = *memory_mib;
    node.gpu_count = static_cast<int32_t>(*gpu_count);
    node.gpu_model = TextField(fields, model);
    if (node.gpu_count > 0 && node.gpu_model.empty()) ++out.counters["openb_gpu_without_model"];
    out.nodes.push_back(std::move(node));
  }
  if (reader.unterminated_quote()) return InvalidInput(LinePrefix(source, reader.line()) + "unterminated quoted field");
  return out;
}

Result<OpenbPodList> ParseOpenbPods(std::string_view text, const std::string& source) {
  CsvReader reader(text);
  KRAKEN_ASSIGN_OR_RETURN(Columns columns,
                          ReadHeader(reader, source, {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"}));
  const int name = columns.Find("name"), cpu = columns.Find("cpu_milli"), mem = columns.Find("memory_mib"),
            num_gpu = columns.Find("num_gpu"), gpu_milli = columns.Find("gpu_milli"),
            gpu_spec = columns.Find("gpu_spec");
  OpenbPodList out;
  std::vector<std::string> fields;
  while (reader.Next(&fields)) {
    if (IsBlank(fields)) continue;
    if (fields.size() != columns.count) {
      CountBad(out.counters, "openb_wrong_field_count");
      continue;
    }
    auto cpu_milli = IntField(fields, cpu);
    auto memory_mib = IntField(fields, mem);
    auto gpus = IntField(fields, num_gpu);
    auto milli = IntField(fields, gpu_milli);
    if (!cpu_milli || !memory_mib || !gpus || !milli) {
      CountBad(out.counters, "openb_unparsable_numbers");
      continue;
    }
    if (*cpu_milli < 0 || *memory_mib < 0 || *gpus < 0 || *milli < 0 || *gpus > 64) {
      CountBad(out.counters, "openb_negative_values");
      continue;
    }
    PodRequest pod;
    pod.name = TextField(fields, name);
    pod.cpu_milli = *cpu_milli;
    pod.memory_mib = *memory_mib;
    if (*gpus == 0) {
      // The trace's converter drops the GPU annotations of a pod without GPUs.
      if (*milli != 0) ++out.counters["openb_gpu_milli_without_gpus"];
    } else {
      if (*milli == 0 || *milli > kMilliPerGpu) {
        CountBad(out.counters, "openb_gpu_milli_out_of_range");
        continue;
      }
      // A pod never shares more than one GPU: several GPUs are always whole ones.
      if (*gpus > 1 && *milli != kMilliPerGpu) {
        CountBad(out.counters, "openb_multi_gpu_not_whole");
        continue;
      }
      pod.num_gpu = static_cast<int32_t>(*gpus);
      pod.gpu_milli = static_cast<int32_t>(*milli);
      const std::string spec = TextField(fields, gpu_spec);  // Split's views point into it
      for (std::string_view model : Split(spec, '|')) {
        model = Trim(model);
        if (!model.empty()) pod.gpu_spec.emplace_back(model);
      }
    }
    out.pods.push_back(std::move(pod));
  }
  if (reader.unterminated_quote()) return InvalidInput(LinePrefix(source, reader.line()) + "unterminated quoted field");
  return out;
}

Result<OpenbNodeList> LoadOpenbNodes(const std::string& path) {
  KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseOpenbNodes(text, path);
}

Result<OpenbPodList> LoadOpenbPods(const std::string& path) {
  KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseOpenbPods(text, path);
}

}  // namespace kraken
