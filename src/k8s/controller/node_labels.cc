#include "k8s/controller/node_labels.h"

#include "analysis/mig/layout_name.h"
#include "base/json_writer.h"

namespace kraken::k8s {

std::map<std::string, std::string> NodeGpuLabels(const std::string& gpu_class, int gpu_count,
                                                 const std::map<std::string, int>& instances_by_profile) {
  std::map<std::string, std::string> labels;
  if (!gpu_class.empty() && IsValidLabelValue(gpu_class)) labels[kGpuClassLabel] = gpu_class;
  labels[kGpuCountLabel] = std::to_string(gpu_count);
  labels[kMigLayoutLabel] = mig::MigLayoutName(instances_by_profile);
  return labels;
}

std::string LabelPatchBody(const std::map<std::string, std::string>& labels) {
  JsonWriter json(/*pretty=*/false);
  json.BeginObject().Key("metadata").BeginObject().Key("labels").BeginObject();
  for (const auto& [key, value] : labels) json.Field(key, value);
  json.EndObject().EndObject().EndObject();
  return json.Take();
}

}  // namespace kraken::k8s
