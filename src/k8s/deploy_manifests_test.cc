// deploy/ is valid: every plain manifest parses as YAML with apiVersion, kind and
// metadata.name; RBAC grants no wildcard and no create/update/delete; the Helm chart's
// templates render with values.yaml (helm is not packaged in Debian 12, so the test
// renders the subset of Go templates the chart uses: {{ .Values.x.y }},
// {{ .Release.Name/Namespace }}, {{- if .Values.flag }} ... {{- end }}) and the result
// parses; the Grafana dashboard is JSON whose queries read DCGM_* and kraken_* metrics.

// GCC 12 reports a false -Wmaybe-uninitialized inside libstdc++'s std::regex automaton
// (std::function moves) under -O2 with the sanitizers; the warning is in the standard
// library's code, not this test's, so it is silenced for this file only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <gtest/gtest.h>
#include <simdjson.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "base/testing/test_data.h"
#include "base/text.h"

namespace kraken {
namespace {

std::string DeployDir() { return testing::SourceDir() + "/deploy"; }

std::vector<YAML::Node> LoadDocuments(const std::string& text) {
  std::vector<YAML::Node> docs;
  for (YAML::Node& doc : YAML::LoadAll(text))
    if (doc.IsDefined() && !doc.IsNull()) docs.push_back(doc);
  return docs;
}

void ExpectObject(const YAML::Node& doc, const std::string& where) {
  ASSERT_TRUE(doc.IsMap()) << where;
  EXPECT_TRUE(doc["apiVersion"].IsScalar()) << where;
  EXPECT_TRUE(doc["kind"].IsScalar()) << where;
  EXPECT_FALSE(doc["metadata"]["name"].as<std::string>("").empty()) << where;
  std::string kind = doc["kind"].as<std::string>("");
  if (kind == "ClusterRole" || kind == "Role") {
    for (const YAML::Node& rule : doc["rules"]) {
      for (const YAML::Node& verb : rule["verbs"]) {
        std::string v = verb.as<std::string>();
        EXPECT_TRUE(v == "get" || v == "list" || v == "watch" || v == "patch") << where << ": verb " << v;
      }
      for (const YAML::Node& resource : rule["resources"]) EXPECT_NE(resource.as<std::string>(), "*") << where;
    }
  }
  if (kind == "DaemonSet" || kind == "Deployment") {
    const YAML::Node containers = doc["spec"]["template"]["spec"]["containers"];
    ASSERT_TRUE(containers.IsSequence()) << where;
    for (const YAML::Node& c : containers) {
      EXPECT_FALSE(c["image"].as<std::string>("").empty()) << where;
      ASSERT_TRUE(c["securityContext"].IsMap()) << where << ": container without securityContext";
      EXPECT_EQ(c["securityContext"]["allowPrivilegeEscalation"].as<std::string>(""), "false") << where;
    }
    // The selector must match the pod template's labels.
    for (const auto& label : doc["spec"]["selector"]["matchLabels"]) {
      EXPECT_EQ(doc["spec"]["template"]["metadata"]["labels"][label.first.as<std::string>()].as<std::string>(""),
                label.second.as<std::string>())
          << where;
    }
  }
}

// Pod attribution: the agent reads the kubelet's pod-resources socket through a read-only
// hostPath mount of its directory, and is told where the socket is.
void ExpectPodResourcesMount(const YAML::Node& daemonset, const std::string& where) {
  const YAML::Node spec = daemonset["spec"]["template"]["spec"];
  const YAML::Node c = spec["containers"][0];
  std::string volume;
  for (const YAML::Node& mount : c["volumeMounts"]) {
    if (mount["mountPath"].as<std::string>("") != "/var/lib/kubelet/pod-resources") continue;
    volume = mount["name"].as<std::string>("");
    EXPECT_EQ(mount["readOnly"].as<std::string>(""), "true") << where;
  }
  ASSERT_FALSE(volume.empty()) << where << ": /var/lib/kubelet/pod-resources is not mounted";
  int host_paths = 0;
  for (const YAML::Node& v : spec["volumes"]) {
    if (v["name"].as<std::string>("") != volume) continue;
    EXPECT_EQ(v["hostPath"]["path"].as<std::string>(""), "/var/lib/kubelet/pod-resources") << where;
    ++host_paths;
  }
  EXPECT_EQ(host_paths, 1) << where;
  std::vector<std::string> args = c["args"].as<std::vector<std::string>>(std::vector<std::string>{});
  auto flag = std::find(args.begin(), args.end(), "--pod-resources-socket");
  ASSERT_NE(flag, args.end()) << where;
  ASSERT_NE(flag + 1, args.end()) << where;
  EXPECT_EQ(*(flag + 1), "/var/lib/kubelet/pod-resources/kubelet.sock") << where;
}

// The chart's template subset, with values looked up in values.yaml.
std::string RenderTemplate(std::string text, const YAML::Node& values, const std::string& release,
                           const std::string& ns) {
  // {{- if .Values.a.b }} ... {{- end }} (not nested in this chart).
  std::regex if_block(R"(\{\{-? if \.Values\.([A-Za-z0-9_.]+) \}\}([\s\S]*?)\{\{-? end \}\})");
  std::smatch m;
  auto lookup = [&](const std::string& path) {
    YAML::Node node = YAML::Clone(values);
    for (std::string_view part : Split(path, '.')) node = node[std::string(part)];
    return node;
  };
  while (std::regex_search(text, m, if_block)) {
    YAML::Node flag = lookup(m[1]);
    bool on = flag.IsDefined() && flag.as<std::string>("false") != "false";
    text = m.prefix().str() + (on ? m[2].str() : "") + m.suffix().str();
  }
  std::regex value(R"(\{\{ \.Values\.([A-Za-z0-9_.]+) \}\})");
  while (std::regex_search(text, m, value)) {
    YAML::Node v = lookup(m[1]);
    EXPECT_TRUE(v.IsScalar()) << "values.yaml has no " << m[1];
    text = m.prefix().str() + v.as<std::string>("") + m.suffix().str();
  }
  text = std::regex_replace(text, std::regex(R"(\{\{ \.Release\.Name \}\})"), release);
  text = std::regex_replace(text, std::regex(R"(\{\{ \.Release\.Namespace \}\})"), ns);
  return text;
}

TEST(DeployManifestsTest, PlainManifestsParseWithRequiredFields) {
  std::map<std::string, int> kinds;
  for (const auto& entry : std::filesystem::directory_iterator(DeployDir() + "/kubernetes")) {
    std::string path = entry.path().string();
    std::vector<YAML::Node> docs = LoadDocuments(testing::ReadFileOrDie(path));
    for (const YAML::Node& doc : docs) {
      if (doc["kind"].as<std::string>("") == "KubeSchedulerConfiguration") {
        EXPECT_EQ(doc["extenders"][0]["filterVerb"].as<std::string>(), "filter");
        EXPECT_EQ(doc["extenders"][0]["prioritizeVerb"].as<std::string>(), "prioritize");
        ++kinds["KubeSchedulerConfiguration"];
        continue;
      }
      ExpectObject(doc, path);
      if (doc["kind"].as<std::string>("") == "DaemonSet") ExpectPodResourcesMount(doc, path);
      ++kinds[doc["kind"].as<std::string>("")];
    }
  }
  EXPECT_EQ(kinds["Namespace"], 1);
  EXPECT_EQ(kinds["ServiceAccount"], 2);
  EXPECT_EQ(kinds["ClusterRole"], 2);
  EXPECT_EQ(kinds["ClusterRoleBinding"], 2);
  EXPECT_EQ(kinds["DaemonSet"], 1);
  EXPECT_EQ(kinds["Deployment"], 1);
  EXPECT_EQ(kinds["Service"], 2);
  EXPECT_EQ(kinds["ServiceMonitor"], 1);
  EXPECT_EQ(kinds["KubeSchedulerConfiguration"], 1);
}

TEST(DeployManifestsTest, HelmChartRendersWithItsValues) {
  const std::string chart = DeployDir() + "/helm/kraken";
  YAML::Node meta = YAML::Load(testing::ReadFileOrDie(chart + "/Chart.yaml"));
  EXPECT_EQ(meta["apiVersion"].as<std::string>(), "v2");
  EXPECT_EQ(meta["name"].as<std::string>(), "kraken");
  YAML::Node values = YAML::Load(testing::ReadFileOrDie(chart + "/values.yaml"));
  for (bool extender : {true, false}) {
    values["extender"]["enabled"] = extender;
    std::map<std::string, int> kinds;
    int containers_in_api = 0;
    for (const auto& entry : std::filesystem::directory_iterator(chart + "/templates")) {
      std::string rendered =
          RenderTemplate(testing::ReadFileOrDie(entry.path().string()), values, "kraken", "kraken-system");
      EXPECT_EQ(rendered.find("{{"), std::string::npos) << entry.path() << " left a template action";
      for (const YAML::Node& doc : LoadDocuments(rendered)) {
        ExpectObject(doc, entry.path().string());
        ++kinds[doc["kind"].as<std::string>("")];
        if (doc["kind"].as<std::string>("") == "Deployment")
          containers_in_api = static_cast<int>(doc["spec"]["template"]["spec"]["containers"].size());
        if (doc["kind"].as<std::string>("") == "DaemonSet") {
          const YAML::Node c = doc["spec"]["template"]["spec"]["containers"][0];
          EXPECT_EQ(c["image"].as<std::string>(), "ghcr.io/kraken-profiler/kraken:0.1.0");
          EXPECT_EQ(c["args"][4].as<std::string>(), "100ms");
          EXPECT_EQ(c["ports"][0]["containerPort"].as<int>(), 9400);
          EXPECT_EQ(doc["metadata"]["namespace"].as<std::string>(), "kraken-system");
          ExpectPodResourcesMount(doc, entry.path().string());
        }
      }
    }
    EXPECT_EQ(kinds["DaemonSet"], 1);
    EXPECT_EQ(kinds["Deployment"], 1);
    EXPECT_EQ(kinds["ServiceMonitor"], 1);
    EXPECT_EQ(kinds["ClusterRole"], 2);
    EXPECT_EQ(containers_in_api, extender ? 2 : 1);
  }
}

TEST(DeployManifestsTest, GrafanaDashboardReadsDcgmAndKrakenMetrics) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(DeployDir() + "/grafana/kraken-gpu-dashboard.json").get(doc), simdjson::SUCCESS);
  int dcgm = 0, kraken = 0, panels = 0;
  for (simdjson::dom::element panel : doc["panels"].get_array()) {
    ++panels;
    for (simdjson::dom::element target : panel["targets"].get_array()) {
      std::string_view expr = target["expr"];
      dcgm += expr.find("DCGM_FI_") != std::string_view::npos;
      kraken += expr.find("kraken_") != std::string_view::npos;
    }
  }
  EXPECT_EQ(panels, 7);
  EXPECT_EQ(dcgm, 7);
  EXPECT_EQ(kraken, 1);
}

}  // namespace
}  // namespace kraken
