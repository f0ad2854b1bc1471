// deploy/ is valid: every plain manifest parses as YAML with apiVersion, kind and
// metadata.name; RBAC grants no wildcard and no create/update/delete; the CRD matches what
// the controller writes; the Grafana dashboard is JSON whose queries read DCGM_* and
// kraken_* metrics; the trial Jobs run `kraken trial` on one device of their class. The
// Helm chart is in deploy_helm_chart_test.cc.
//
// GCC 12 reports a false -Wmaybe-uninitialized inside libstdc++'s std::regex automaton
// (std::function moves) under -O2 with the sanitizers; the warning is in the standard
// library's code, not this test's, so it is silenced for this file only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <gtest/gtest.h>
#include <simdjson.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <regex>
#include <set>

#include "base/testing/test_data.h"
#include "base/text.h"
#include "k8s/controller/profile_run.h"
#include "k8s/controller/workload_profile.h"
#include "k8s/deploy_manifests_testing.h"

namespace kraken {
namespace {

using namespace deploy_testing;  // NOLINT: the shared checks, as if they were this file's

// The plain API Deployment's PostgreSQL option, as the chart's api.database.urlSecret:
// the URL only from a Secret (kraken-db, key url), here optional so that without it the
// pod starts on SQLite; it reaches `kraken serve` as KRAKEN_STORAGE_PATH, which is used
// only when no --db is given (pg_upload_cli_test.cc starts a replica that way).
void ExpectPlainApiStoreFromOptionalSecret(const std::vector<YAML::Node>& docs) {
  int apis = 0;
  for (const YAML::Node& doc : docs) {
    if (doc["kind"].as<std::string>() != "Deployment" || doc["metadata"]["name"].as<std::string>() != "kraken-api")
      continue;
    ++apis;
    const YAML::Node api = doc["spec"]["template"]["spec"]["containers"][0];
    std::vector<std::string> args = api["args"].as<std::vector<std::string>>();
    EXPECT_EQ(std::find(args.begin(), args.end(), "--db"), args.end());
    ASSERT_EQ(api["env"].size(), 1u);
    EXPECT_EQ(api["env"][0]["name"].as<std::string>(), "KRAKEN_STORAGE_PATH");
    const YAML::Node secret = api["env"][0]["valueFrom"]["secretKeyRef"];
    EXPECT_EQ(secret["name"].as<std::string>(), "kraken-db");
    EXPECT_EQ(secret["key"].as<std::string>(), "url");
    EXPECT_TRUE(secret["optional"].as<bool>());
  }
  EXPECT_EQ(apis, 1);
}

TEST(DeployManifestsTest, PlainManifestsParseWithRequiredFields) {
  std::map<std::string, int> kinds;
  std::vector<YAML::Node> all;
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
      all.push_back(doc);
      if (doc["kind"].as<std::string>("") == "DaemonSet") ExpectPodResourcesMount(doc, path);
      ++kinds[doc["kind"].as<std::string>("")];
    }
  }
  EXPECT_EQ(kinds["Namespace"], 1);
  EXPECT_EQ(kinds["ServiceAccount"], 3);
  EXPECT_EQ(kinds["ClusterRole"], 3);
  EXPECT_EQ(kinds["ClusterRoleBinding"], 3);
  EXPECT_EQ(kinds["DaemonSet"], 1);
  EXPECT_EQ(kinds["Deployment"], 2);
  // The plain manifests run neither profiled experiments nor --workload-profiles: the
  // grants they need are comments in rbac.yaml.
  ExpectControllerRbac(all, "kraken-controller", false, false);
  ExpectAgentRbacAndNodeName(all, "kraken-agent");
  int controllers = 0;
  for (const YAML::Node& doc : all) {
    if (doc["metadata"]["name"].as<std::string>("") != "kraken-controller") continue;
    std::string kind = doc["kind"].as<std::string>();
    if (kind == "Deployment") {
      ++controllers;
      ExpectControllerDeployment(doc, "kraken-controller", "http://prometheus-operated.monitoring.svc:9090", "default");
    }
    if (kind == "ClusterRoleBinding") {
      EXPECT_EQ(doc["subjects"][0]["name"].as<std::string>(), "kraken-controller");
    }
  }
  EXPECT_EQ(controllers, 1);
  ExpectPlainApiStoreFromOptionalSecret(all);
  EXPECT_EQ(kinds["Service"], 2);
  EXPECT_EQ(kinds["ServiceMonitor"], 1);
  EXPECT_EQ(kinds["KubeSchedulerConfiguration"], 1);
  EXPECT_EQ(kinds["CustomResourceDefinition"], 1);
}

// The GpuWorkloadProfile CRD (docs/crd.md) against what the controller writes: every
// field of the object WorkloadProfileJson renders (and status.ncu) is in the schema with its type, the
// required ones are there, every printer column's path resolves in it, and the Helm
// chart's crds/ copy is the same file.
TEST(DeployManifestsTest, GpuWorkloadProfileCrdMatchesWhatTheControllerWrites) {
  const std::string crd_text = testing::ReadFileOrDie(DeployDir() + "/kubernetes/crd-gpuworkloadprofile.yaml");
  EXPECT_EQ(crd_text, testing::ReadFileOrDie(DeployDir() + "/helm/kraken/crds/gpuworkloadprofile.yaml"));
  YAML::Node crd = YAML::Load(crd_text);
  EXPECT_EQ(crd["metadata"]["name"].as<std::string>(), std::string(k8s::kProfilePlural) + ".kraken.io");
  EXPECT_EQ(crd["spec"]["names"]["kind"].as<std::string>(), k8s::kProfileKind);
  const YAML::Node version = crd["spec"]["versions"][0];
  EXPECT_EQ("kraken.io/" + version["name"].as<std::string>(), k8s::kProfileGroupVersion);
  k8s::WorkloadProfile profile;
  profile.workload = {"batch/v1", "Job", "ml", "bert-ft"};
  profile.pods = 2;
  profile.facts = {"training", "memory", 0.957, 18.2, 0.41, "mig-slice: 3g.40gb"};
  simdjson::dom::parser parser;
  // With a profiled experiment's status.ncu (profile_run.h), which a merge patch adds.
  NcuRunFacts ncu{3, 46.9148177, "compute", 0.7136, 0, "NVIDIA A100-SXM4-40GB"};
  std::string json = k8s::WorkloadProfileJson(profile, "2026-11-26T08:40:00Z");
  json.insert(json.size() - 2, ",\"ncu\":" + k8s::NcuStatusJson(ncu, "kraken-ncu-job-bert-ft", "2026-11-26T08:45:00Z"));
  simdjson::dom::element object = parser.parse(json);
  const YAML::Node schema = version["schema"]["openAPIV3Schema"];
  // Each leaf of the object has a schema of its JSON type; objects recurse.
  std::function<void(simdjson::dom::element, const YAML::Node&, const std::string&)> check =
      [&](simdjson::dom::element value, const YAML::Node& node, const std::string& where) {
        ASSERT_TRUE(node.IsMap()) << where << " is not in the schema";
        std::string type = node["type"].as<std::string>();
        if (value.is_object()) {
          ASSERT_EQ(type, "object") << where;
          if (where == ".metadata") return;
          for (const YAML::Node& r : node["required"]) EXPECT_FALSE(value[r.as<std::string>()].error()) << where << "." << r;
          for (auto [k, v] : simdjson::dom::object(value))
            check(v, node["properties"][std::string(k)], where + "." + std::string(k));
        } else if (value.is_string()) {
          EXPECT_EQ(type, "string") << where;
        } else if (value.is_int64()) {
          EXPECT_TRUE(type == "integer" || type == "number") << where;
        } else {
          EXPECT_EQ(type, "number") << where;
        }
      };
  check(object, schema, "");
  for (const YAML::Node& column : version["additionalPrinterColumns"]) {
    std::string path = column["jsonPath"].as<std::string>();  // ".status.busyP95"
    simdjson::dom::element at = object;
    for (std::string_view part : Split(std::string_view(path).substr(1), '.')) ASSERT_FALSE(at[part].get(at)) << path;
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
  EXPECT_EQ(panels, 8);
  EXPECT_EQ(dcgm, 7);
  EXPECT_EQ(kraken, 4);  // the agent's window analysis: util p95, idle ratio, workload info, memory peak
}

// deploy/trial: a PVC for the reports and one `kraken trial` Job per candidate class (a whole
// H100, an H100 1g.10gb MIG slice), each selecting its class by node label, asking the device
// plugin for exactly one device and writing its JSON report to the claim.
TEST(DeployManifestsTest, TrialJobsRunKrakenTrialOnOneDeviceOfTheirClass) {
  std::vector<YAML::Node> docs = LoadDocuments(testing::ReadFileOrDie(DeployDir() + "/trial/trial-jobs.yaml"));
  ASSERT_EQ(docs.size(), 6u);
  for (const YAML::Node& doc : docs) ExpectObject(doc, "trial-jobs.yaml");
  EXPECT_EQ(docs[0]["kind"].as<std::string>(), "PersistentVolumeClaim");
  std::string claim = docs[0]["metadata"]["name"].as<std::string>();
  EXPECT_EQ(claim, "kraken-trial-results");
  // --annotate-job: the service account may get and patch Jobs of its namespace, nothing more.
  EXPECT_EQ(docs[1]["kind"].as<std::string>(), "ServiceAccount");
  std::string account = docs[1]["metadata"]["name"].as<std::string>();
  const YAML::Node role = docs[2];
  EXPECT_EQ(role["kind"].as<std::string>(), "Role");
  ASSERT_EQ(role["rules"].size(), 1u);
  EXPECT_EQ(role["rules"][0]["apiGroups"][0].as<std::string>(), "batch");
  EXPECT_EQ(role["rules"][0]["resources"].size(), 1u);
  EXPECT_EQ(role["rules"][0]["resources"][0].as<std::string>(), "jobs");
  EXPECT_EQ(role["rules"][0]["verbs"].size(), 2u);
  EXPECT_EQ(role["rules"][0]["verbs"][0].as<std::string>(), "get");
  EXPECT_EQ(role["rules"][0]["verbs"][1].as<std::string>(), "patch");
  const YAML::Node binding = docs[3];
  EXPECT_EQ(binding["kind"].as<std::string>(), "RoleBinding");
  EXPECT_EQ(binding["roleRef"]["name"].as<std::string>(), role["metadata"]["name"].as<std::string>());
  EXPECT_EQ(binding["subjects"][0]["name"].as<std::string>(), account);
  const std::vector<std::pair<std::string, std::string>> classes = {{"nvidia.com/gpu", "/results/h100-80gb.json"},
                                                                    {"nvidia.com/mig-1g.10gb",
                                                                     "/results/h100-mig-1g.10gb.json"}};
  for (size_t j = 0; j < classes.size(); ++j) {
    const YAML::Node& job = docs[j + 4];
    std::string where = job["metadata"]["name"].as<std::string>();
    EXPECT_EQ(job["apiVersion"].as<std::string>(), "batch/v1") << where;
    EXPECT_EQ(job["kind"].as<std::string>(), "Job") << where;
    EXPECT_EQ(job["spec"]["backoffLimit"].as<int>(), 0) << where;
    const YAML::Node pod = job["spec"]["template"]["spec"];
    EXPECT_EQ(pod["restartPolicy"].as<std::string>(), "Never") << where;
    EXPECT_EQ(pod["serviceAccountName"].as<std::string>(), account) << where;
    EXPECT_TRUE(pod["hostPID"].as<bool>()) << where;  // NVML's host pids must match the tree's
    EXPECT_EQ(pod["nodeSelector"]["nvidia.com/gpu.product"].as<std::string>(), "NVIDIA-H100-80GB-HBM3") << where;
    ASSERT_EQ(pod["containers"].size(), 1u) << where;
    const YAML::Node c = pod["containers"][0];
    EXPECT_EQ(c["securityContext"]["allowPrivilegeEscalation"].as<std::string>(), "false") << where;
    EXPECT_EQ(c["command"][0].as<std::string>(), "kraken") << where;
    std::vector<std::string> args;
    for (const YAML::Node& a : c["args"]) args.push_back(a.as<std::string>());
    ASSERT_GE(args.size(), 12u) << where;
    EXPECT_EQ(args[0], "trial") << where;
    auto after = [&](const std::string& flag) {
      for (size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == flag) return args[i + 1];
      return std::string();
    };
    EXPECT_EQ(after("--candidates"), "auto") << where;
    EXPECT_EQ(after("--out"), classes[j].second) << where;
    EXPECT_EQ(after("--throughput-regex"), "throughput: ([0-9.]+) samples/s") << where;
    EXPECT_NE(std::find(args.begin(), args.end(), "--json"), args.end()) << where;
    EXPECT_EQ(after("--annotate-job"), "$(JOB_NAME)") << where;
    auto dashes = std::find(args.begin(), args.end(), "--");
    ASSERT_NE(dashes, args.end()) << where;
    EXPECT_EQ(*(dashes + 1), "python") << where;  // the user's command follows "--"
    // Exactly one device of the class, requested and limited alike.
    ASSERT_EQ(c["resources"]["limits"].size(), 1u) << where;
    EXPECT_EQ(c["resources"]["limits"][classes[j].first].as<int>(), 1) << where;
    EXPECT_EQ(c["resources"]["requests"][classes[j].first].as<int>(), 1) << where;
    EXPECT_EQ(c["volumeMounts"][0]["mountPath"].as<std::string>(), "/results") << where;
    EXPECT_EQ(pod["volumes"][0]["persistentVolumeClaim"]["claimName"].as<std::string>(), claim) << where;
    bool utility = false, job_name = false;
    for (const YAML::Node& e : c["env"]) {
      utility |= e["name"].as<std::string>() == "NVIDIA_DRIVER_CAPABILITIES" &&
                 e["value"].as<std::string>("").find("utility") != std::string::npos;
      job_name |= e["name"].as<std::string>() == "JOB_NAME" &&
                  e["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>("") == "metadata.labels['job-name']";
    }
    EXPECT_TRUE(job_name) << where << ": $(JOB_NAME) comes from the label the Job controller sets";
    EXPECT_TRUE(utility) << where << ": NVML (libnvidia-ml) comes with the utility capability";
  }
}

}  // namespace
}  // namespace kraken
