// object_json: the one metadata decoder behind the controller's GETs, the agent's pod
// LIST and the extender's ExtenderArgs.
#include "k8s/client/object_json.h"

#include <gtest/gtest.h>

#include "k8s/client/object_json_read.h"

namespace kraken::k8s {
namespace {

constexpr char kJobPod[] = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"train-0","namespace":"ml",
  "labels":{"app":"bert","team":"nlp"},
  "annotations":{"kraken.io/bound":"memory","kubectl.kubernetes.io/last-applied-configuration":"{}"},
  "ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"train","controller":true},
                     {"apiVersion":"v1","kind":"ConfigMap","name":"cfg"}]},
  "spec":{"nodeName":"gpu-node-3","containers":[]}})";

TEST(ObjectJson, ParseObjectMetaReadsEverythingTheControllerUses) {
  Result<ObjectMeta> meta = ParseObjectMeta(kJobPod, "ml");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->node_name, "gpu-node-3");
  EXPECT_EQ(meta->labels.at("team"), "nlp");
  EXPECT_EQ(meta->annotations.size(), 2u);
  // Only the owner with controller: true, in the object's namespace.
  ASSERT_EQ(meta->controllers.size(), 1u);
  EXPECT_EQ(meta->controllers[0], (ObjectRef{"batch/v1", "Job", "ml", "train"}));
}

bool KeepKrakenKey(std::string_view key) { return key.substr(0, 10) == "kraken.io/"; }

Status ReadMetadataOf(std::string_view json, const MetadataKeep& keep, ObjectMetadata* out) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  simdjson::ondemand::document doc;
  if (auto e = parser.iterate(padded).get(doc)) return ObjectJsonError("test", "not JSON", e);
  simdjson::ondemand::object metadata;
  if (auto e = doc["metadata"].get_object().get(metadata)) return ObjectJsonError("test", "metadata", e);
  return ReadObjectMetadata(metadata, "test", keep, out);
}

TEST(ObjectJson, FiltersKeepOnlyTheKeysAskedFor) {
  ObjectMetadata metadata;
  MetadataKeep keep;
  keep.annotation = KeepKrakenKey;
  keep.labels = false;
  keep.owners = false;
  ASSERT_TRUE(ReadMetadataOf(kJobPod, keep, &metadata).ok());
  EXPECT_EQ(metadata.name, "train-0");
  EXPECT_EQ(metadata.namespace_name, "ml");
  EXPECT_EQ(metadata.annotations, (std::map<std::string, std::string>{{"kraken.io/bound", "memory"}}));
  EXPECT_TRUE(metadata.labels.empty());
  EXPECT_TRUE(metadata.controllers.empty());
}

TEST(ObjectJson, ANonStringValueIsAnErrorNamingTheKey) {
  ObjectMetadata metadata;
  Status s = ReadMetadataOf(R"({"metadata":{"annotations":{"kraken.io/bound":3}}})", MetadataKeep{}, &metadata);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("test: annotations value kraken.io/bound"), std::string::npos) << s.message();
  // A dropped key is not read at all.
  MetadataKeep keep;
  keep.annotation = KeepKrakenKey;
  EXPECT_TRUE(ReadMetadataOf(R"({"metadata":{"annotations":{"other/x":3}}})", keep, &metadata).ok());
  EXPECT_FALSE(ParseObjectMeta("[1,2]", "ml").ok());
  EXPECT_FALSE(ParseObjectMeta(R"({"metadata":{"ownerReferences":{}}})", "ml").ok());
}

}  // namespace
}  // namespace kraken::k8s
