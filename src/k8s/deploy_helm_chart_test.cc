// deploy/helm/kraken: the Helm chart's templates render with values.yaml (helm is not
// packaged in Debian 12, so the test renders the subset of Go templates the chart uses:
// {{ .Values.x.y }}, {{ .Release.Name/Namespace }}, {{- if .Values.flag }} ... {{- end }},
// nested) and the result parses and passes the checks of the plain manifests
// (deploy_manifests_testing.h).
//
// GCC 12 reports a false -Wmaybe-uninitialized inside libstdc++'s std::regex automaton
// (std::function moves) under -O2 with the sanitizers; the warning is in the standard
// library's code, not this test's, so it is silenced for this file only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "base/testing/test_data.h"
#include "base/text.h"
#include "k8s/controller/profile_run.h"
#include "k8s/deploy_manifests_testing.h"

namespace kraken {
namespace {

using namespace deploy_testing;  // NOLINT: the shared checks, as if they were this file's

// The chart's template subset, with values looked up in values.yaml.
std::string RenderTemplate(std::string text, const YAML::Node& values, const std::string& release,
                           const std::string& ns) {
  auto lookup = [&](const std::string& path) {
    YAML::Node node = YAML::Clone(values);
    for (std::string_view part : Split(path, '.')) node = node[std::string(part)];
    return node;
  };
  // {{- if .Values.a.b }} ... {{- end }}, possibly nested: the last "if" of the text has no
  // other "if" before its "end", so resolving the last one first resolves inner blocks first.
  std::regex if_action(R"(^\{\{-? if \.Values\.([A-Za-z0-9_.]+) \}\})");
  std::regex end_action(R"(\{\{-? end \}\})");
  std::smatch m;
  for (size_t at = text.rfind("{{- if "); at != std::string::npos; at = text.rfind("{{- if ")) {
    std::string rest = text.substr(at);
    EXPECT_TRUE(std::regex_search(rest, m, if_action)) << rest.substr(0, 80);
    if (m.empty()) break;
    std::string flag_path = m[1];
    size_t body = at + m.length(0);
    std::smatch end;
    std::string tail = text.substr(body);
    EXPECT_TRUE(std::regex_search(tail, end, end_action)) << flag_path << ": if without end";
    if (end.empty()) break;
    YAML::Node flag = lookup(flag_path);
    // Helm's truthiness: false, 0 and "" are off.
    std::string flag_text = flag.IsDefined() ? flag.as<std::string>("false") : "false";
    bool on = flag_text != "false" && flag_text != "0" && !flag_text.empty();
    text = text.substr(0, at) + (on ? end.prefix().str() : "") + end.suffix().str();
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

TEST(DeployManifestsTest, HelmChartRendersWithItsValues) {
  const std::string chart = DeployDir() + "/helm/kraken";
  YAML::Node meta = YAML::Load(testing::ReadFileOrDie(chart + "/Chart.yaml"));
  EXPECT_EQ(meta["apiVersion"].as<std::string>(), "v2");
  EXPECT_EQ(meta["name"].as<std::string>(), "kraken");
  YAML::Node values = YAML::Load(testing::ReadFileOrDie(chart + "/values.yaml"));
  EXPECT_EQ(values["controller"]["interval"].as<std::string>(), "5m");
  // Off by default: no profile Jobs, no Job create or pods/log grant, no CRD reads.
  EXPECT_FALSE(values["controller"]["profileRuns"]["enabled"].as<bool>());
  EXPECT_EQ(values["controller"]["profileRuns"]["launchCount"].as<int>(), 50);
  EXPECT_FALSE(values["extender"]["workloadProfiles"]["enabled"].as<bool>());
  values["controller"]["namespaces"] = "ml,research";
  // Profiled experiments: 0 off (values.yaml), 1 on with the pods' own images, 2 on with an
  // image and launch count of the chart's; --workload-profiles with 1 and 2.
  for (int profile_variant = 0; profile_variant < 3; ++profile_variant) {
    for (bool extender : {true, false}) {
      for (bool controller : {true, false}) {
        bool profile_runs = profile_variant > 0;
        values["controller"]["profileRuns"]["enabled"] = profile_runs;
        const std::string launch_count = profile_variant == 2 ? "20" : "50";
        const std::string ncu_image = profile_variant == 2 ? "registry.example.com/ml/ncu:12.4" : "";
        values["controller"]["profileRuns"]["ncuImage"] = ncu_image;
        values["controller"]["profileRuns"]["launchCount"] = std::stoi(launch_count);
        values["extender"]["workloadProfiles"]["enabled"] = profile_runs;
        std::vector<std::string> profile_run_args;
        if (profile_runs) profile_run_args = {"--profile-runs", "--ncu-launch-count", launch_count};
        if (!ncu_image.empty()) profile_run_args.insert(profile_run_args.end(), {"--ncu-image", ncu_image});
        values["extender"]["enabled"] = extender;
        values["controller"]["enabled"] = controller;
        // The API's cluster page from Prometheus (here a Thanos Query URL) or, "", its store.
        std::string api_prometheus = controller ? "http://thanos-query.monitoring.svc:9090" : "";
        values["api"]["prometheus"] = api_prometheus;
        // The API replicas' shared PostgreSQL store, its URL from a Secret, or none.
        std::string db_secret = extender ? "kraken-db" : "";
        values["api"]["database"]["urlSecret"] = db_secret;
        std::map<std::string, int> kinds;
        std::vector<YAML::Node> all;
        int containers_in_api = 0;
        for (const auto& entry : std::filesystem::directory_iterator(chart + "/templates")) {
          std::string rendered =
              RenderTemplate(testing::ReadFileOrDie(entry.path().string()), values, "kraken", "kraken-system");
          EXPECT_EQ(rendered.find("{{"), std::string::npos) << entry.path() << " left a template action";
          for (const YAML::Node& doc : LoadDocuments(rendered)) {
            ExpectObject(doc, entry.path().string());
            all.push_back(doc);
            std::string kind = doc["kind"].as<std::string>("");
            std::string name = doc["metadata"]["name"].as<std::string>("");
            ++kinds[kind];
            if (kind == "Deployment" && name == "kraken-api") {
              containers_in_api = static_cast<int>(doc["spec"]["template"]["spec"]["containers"].size());
              std::vector<std::string> api_args =
                  doc["spec"]["template"]["spec"]["containers"][0]["args"].as<std::vector<std::string>>();
              std::vector<std::string> want_args = {"serve", "--host", "0.0.0.0", "--port", "7070"};
              if (!api_prometheus.empty()) want_args.insert(want_args.end(), {"--prometheus", api_prometheus});
              if (!db_secret.empty()) want_args.insert(want_args.end(), {"--db", "$(KRAKEN_DB_URL)"});
              EXPECT_EQ(api_args, want_args);
              const YAML::Node env = doc["spec"]["template"]["spec"]["containers"][0]["env"];
              EXPECT_EQ(env.IsDefined(), !db_secret.empty());
              if (!db_secret.empty()) {
                EXPECT_EQ(env[0]["name"].as<std::string>(), "KRAKEN_DB_URL");
                EXPECT_EQ(env[0]["valueFrom"]["secretKeyRef"]["name"].as<std::string>(), "kraken-db");
                EXPECT_EQ(env[0]["valueFrom"]["secretKeyRef"]["key"].as<std::string>(), "url");
              }
              if (extender) {
                std::vector<std::string> want_extender = {"extender", "--listen", "0.0.0.0:8888"};
                if (profile_runs) want_extender.push_back("--workload-profiles");
                EXPECT_EQ(doc["spec"]["template"]["spec"]["containers"][1]["args"].as<std::vector<std::string>>(),
                          want_extender);
              }
            }
            if (kind == "Deployment" && name == "kraken-controller")
              ExpectControllerDeployment(doc, "kraken-controller", "http://prometheus-operated.monitoring.svc:9090",
                                         "ml,research", profile_run_args);
            if (kind == "DaemonSet") {
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
        EXPECT_EQ(kinds["Deployment"], controller ? 2 : 1);
        EXPECT_EQ(kinds["ServiceMonitor"], 1);
        EXPECT_EQ(kinds["ServiceAccount"], controller ? 3 : 2);
        EXPECT_EQ(kinds["ClusterRoleBinding"], controller ? 3 : 2);
        ExpectAgentRbacAndNodeName(all, "kraken-agent");
        if (controller) {
          ExpectControllerRbac(all, "kraken-controller", profile_runs, profile_runs);
        } else {
          EXPECT_EQ(kinds["ClusterRole"], 2);
        }
        EXPECT_EQ(containers_in_api, extender ? 2 : 1);
      }
  }
  }
}

}  // namespace
}  // namespace kraken
