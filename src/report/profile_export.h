// `kraken export --format json`: a whole profile as one JSON document (keys in
// docs/store.md), written in pieces so that a 24 h capture streams to disk series by series
// instead of being held as one string. The flat tables (CSV, Parquet): export_tables.h.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "base/json_writer.h"
#include "model/profile.h"

namespace kraken {

// The profile as one JSON object: writes every key up to an open "series" array, then
// WriteSeriesJson for each series (with its samples, which may come from elsewhere than
// series.samples), then EndProfileJson. Numbers are exact (shortest round-trip form).
void BeginProfileJson(const Profile& profile, JsonWriter& json);
void WriteSeriesJson(const Series& series, std::span<const Sample> samples, JsonWriter& json);
void EndProfileJson(JsonWriter& json);
// All three, with each series' own samples.
void WriteProfileJson(const Profile& profile, JsonWriter& json);

// Parts that `kraken show --json` shares.
void WriteMetadataJson(const ProfileMetadata& metadata, JsonWriter& json);
void WriteDeviceJson(const DeviceInfo& device, JsonWriter& json);
void WriteEntityJson(const SeriesEntity& entity, JsonWriter& json);
// "gpu 3 pid 40001 (python3)", "gpu 0 mig 1 (1g.10gb)", "node": for tables.
std::string DescribeEntity(const SeriesEntity& entity);

}  // namespace kraken
