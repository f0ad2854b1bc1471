// The simdjson-level half of object_json.h, for the parsers inside k8s/ that walk a larger
// document (a PodList, ExtenderArgs) and meet an object's metadata on the way.
#pragma once

#include <simdjson.h>

#include <string_view>

#include "base/status.h"
#include "k8s/client/object_json.h"

namespace kraken::k8s {

// "<context>: <what>: <simdjson's message>", e.g. "PodList: annotations: INCORRECT_TYPE".
Status ObjectJsonError(std::string_view context, std::string_view what, simdjson::error_code e);

// Which parts of metadata to keep. A null filter keeps every key; a key a filter drops is
// skipped without its value being read. Values must be strings (as the API server
// writes them); any other type is an error naming the map.
struct MetadataKeep {
  bool (*annotation)(std::string_view key) = nullptr;
  bool (*label)(std::string_view key) = nullptr;
  bool labels = true;  // false: metadata.labels skipped whole
  bool owners = true;  // false: metadata.ownerReferences skipped
};

// Reads metadata.{name, namespace, annotations, labels, ownerReferences} into `out`.
// `context` prefixes every error ("ExtenderArgs", "PodList", "Kubernetes object").
Status ReadObjectMetadata(simdjson::ondemand::object metadata, std::string_view context, const MetadataKeep& keep,
                          ObjectMetadata* out);

}  // namespace kraken::k8s
