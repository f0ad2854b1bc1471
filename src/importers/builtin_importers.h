// Factories of the built-in importers, one per format folder.
#pragma once

#include <memory>

#include "importers/importer.h"

namespace kraken {

std::unique_ptr<Importer> CreateKinetoImporter();
std::unique_ptr<Importer> CreateKrakenJsonImporter();
std::unique_ptr<Importer> CreateNcuCsvImporter();
std::unique_ptr<Importer> CreateKernelLabelsImporter();
std::unique_ptr<Importer> CreateNvidiaSmiImporter();
std::unique_ptr<Importer> CreatePrometheusTextImporter();
std::unique_ptr<Importer> CreateDcgmCountersImporter();
std::unique_ptr<Importer> CreateOrionCsvImporter();
std::unique_ptr<Importer> CreateHeliosSequenceImporter();
std::unique_ptr<Importer> CreateGenAiPodImporter();
std::unique_ptr<Importer> CreatePaiMinibatchImporter();

}  // namespace kraken
