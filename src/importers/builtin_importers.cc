#include "importers/builtin_importers.h"

#include "importers/registry.h"

namespace kraken {

void RegisterBuiltinImporters(ImporterRegistry& registry) {
  // Sniffing order: the most specific signatures first.
  registry.Register(CreateKrakenJsonImporter());
  registry.Register(CreateNcuCsvImporter());
  registry.Register(CreateKernelLabelsImporter());
  registry.Register(CreatePrometheusTextImporter());
  registry.Register(CreateDcgmCountersImporter());
  registry.Register(CreateOrionCsvImporter());
  registry.Register(CreateHeliosSequenceImporter());
  registry.Register(CreateGenAiPodImporter());
  registry.Register(CreatePaiMinibatchImporter());
  registry.Register(CreateNvidiaSmiImporter());
  registry.Register(CreateKinetoImporter());
}

}  // namespace kraken
