// What a series' labels say about the thing it measures: the GPU, its MIG instance,
// the host and the Kubernetes pod, under every spelling dcgm-exporter has used.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "importers/common/exposition_parser.h"
#include "model/device.h"
#include "model/series.h"

namespace kraken::prometheus {

// Fills the entity fields from the labels dcgm-exporter attaches:
//   gpu, UUID | uuid | gpu_uuid, modelName | model_name, Hostname | hostname, pci_bus_id,
//   GPU_I_ID, GPU_I_PROFILE, pod | pod_name, namespace | pod_namespace,
//   container | container_name.
// Every other label (device, DCGM_FI_DRIVER_VERSION, ...) is kept verbatim in
// entity.labels, as is a label whose field is already set or whose number is unreadable.
SeriesEntity EntityFromLabels(const std::vector<Label>& labels);

// Gathers one DeviceInfo per physical GPU over the series of a capture.
class DeviceCollector {
 public:
  // Records the GPU (and MIG instance) `entity` belongs to; returns its index in
  // devices(), or -1 when the labels name no GPU (no UUID and no gpu index).
  int Observe(const SeriesEntity& entity);
  // Device memory as the exporter reported it (DCGM_FI_DEV_FB_TOTAL of the whole GPU).
  void SetMemoryBytes(int device, double bytes);

  std::vector<DeviceInfo> TakeDevices() { return std::move(devices_); }

 private:
  std::vector<DeviceInfo> devices_;
  std::map<std::string, int> index_by_key_;
};

}  // namespace kraken::prometheus
