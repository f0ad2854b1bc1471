// deploy/ is valid: every plain manifest parses as YAML with apiVersion, kind and
// metadata.name; RBAC grants no wildcard and no create/update/delete; the Helm chart's
// templates render with values.yaml (helm is not packaged in Debian 12, so the test
// renders the subset of Go templates the chart uses: {{ .Values.x.y }},
// {{ .Release.Name/Namespace }}, {{- if .Values.flag }} ... {{- end }}, nested) and the
// result parses; the Grafana dashboard is JSON whose queries read DCGM_* and kraken_* metrics.

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
        // create: only the controller's GpuWorkloadProfiles and profile Jobs (ExpectControllerRbac).
        EXPECT_TRUE(v == "get" || v == "list" || v == "watch" || v == "patch" || v == "create") << where << ": verb " << v;
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

// verbs by "apiGroup/resource" of a ClusterRole.
std::map<std::string, std::set<std::string>> Grants(const YAML::Node& role) {
  std::map<std::string, std::set<std::string>> grants;
  for (const YAML::Node& rule : role["rules"])
    for (const YAML::Node& group : rule["apiGroups"])
      for (const YAML::Node& resource : rule["resources"])
        for (const YAML::Node& verb : rule["verbs"])
          grants[group.as<std::string>() + "/" + resource.as<std::string>()].insert(verb.as<std::string>());
  return grants;
}

// The controller may get and patch exactly what the annotation writer touches; no other
// account of kraken may patch anything but the agent, its Node (ExpectAgentRbacAndNodeName).
// The API/extender account may read GpuWorkloadProfiles (extender --workload-profiles).
// Profiled experiments (profile_runs) add: LIST pods and Jobs, create the ncu Job, read its
// pod's log; without them none of these is granted.
void ExpectControllerRbac(const std::vector<YAML::Node>& docs, const std::string& controller_role, bool profile_runs,
                          bool workload_profiles) {
  const std::set<std::string> get_patch = {"get", "patch"};
  std::map<std::string, std::set<std::string>> expected = {
      {"/pods", get_patch},
      {"/nodes", get_patch},
      {"batch/jobs", get_patch},
      {"kraken.io/gpuworkloadprofiles", {"get", "create", "patch"}},
      {"kubeflow.org/mpijobs", get_patch},
      {"kubeflow.org/pytorchjobs", get_patch}};
  if (profile_runs) {
    expected["/pods"].insert("list");
    expected["/pods/log"] = {"get"};
    expected["batch/jobs"].insert({"list", "create"});
  }
  int roles = 0;
  for (const YAML::Node& doc : docs) {
    if (doc["kind"].as<std::string>("") != "ClusterRole") continue;
    ++roles;
    auto grants = Grants(doc);
    if (doc["metadata"]["name"].as<std::string>() == controller_role) {
      EXPECT_EQ(grants, expected);
      continue;
    }
    bool agent = doc["metadata"]["name"].as<std::string>() == "kraken-agent";
    if (doc["metadata"]["name"].as<std::string>().ends_with("-api")) {
      EXPECT_EQ(grants.count("kraken.io/gpuworkloadprofiles"), workload_profiles ? 1u : 0u);
      if (workload_profiles) {
        EXPECT_EQ(grants["kraken.io/gpuworkloadprofiles"], std::set<std::string>{"get"}) << doc["metadata"]["name"];
      }
    }
    for (const auto& [resource, verbs] : grants) {
      EXPECT_EQ(verbs.count("create"), 0u) << doc["metadata"]["name"] << " may create " << resource;
      if (agent && resource == "/nodes") continue;
      EXPECT_EQ(verbs.count("patch"), 0u) << doc["metadata"]["name"] << " may patch " << resource;
    }
  }
  EXPECT_EQ(roles, 3);
}

// The agent LISTs its node's pods for their kraken.io/* annotations and patches its own
// Node's kraken.io/gpu-topology: its ClusterRole is exactly get/list on pods and get/patch
// on nodes, and its DaemonSet gives it NODE_NAME from spec.nodeName.
void ExpectAgentRbacAndNodeName(const std::vector<YAML::Node>& docs, const std::string& agent) {
  int roles = 0, daemonsets = 0;
  for (const YAML::Node& doc : docs) {
    std::string kind = doc["kind"].as<std::string>("");
    if (kind == "ClusterRole" && doc["metadata"]["name"].as<std::string>() == agent) {
      ++roles;
      EXPECT_EQ(Grants(doc), (std::map<std::string, std::set<std::string>>{{"/pods", {"get", "list"}},
                                                                           {"/nodes", {"get", "patch"}}}));
    }
    if (kind != "DaemonSet") continue;
    ++daemonsets;
    const YAML::Node pod = doc["spec"]["template"]["spec"];
    EXPECT_EQ(pod["serviceAccountName"].as<std::string>(), agent);
    int node_name = 0;
    for (const YAML::Node& env : pod["containers"][0]["env"])
      if (env["name"].as<std::string>() == "NODE_NAME") {
        ++node_name;
        EXPECT_EQ(env["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>(), "spec.nodeName");
      }
    EXPECT_EQ(node_name, 1);
  }
  EXPECT_EQ(roles, 1);
  EXPECT_EQ(daemonsets, 1);
}

// The controller container runs `kraken annotate --every ...` under its own account, with
// profile_run_args (--profile-runs ...) after them.
void ExpectControllerDeployment(const YAML::Node& doc, const std::string& account, const std::string& prometheus,
                                const std::string& namespaces, const std::vector<std::string>& profile_run_args = {}) {
  const YAML::Node pod = doc["spec"]["template"]["spec"];
  EXPECT_EQ(pod["serviceAccountName"].as<std::string>(), account);
  EXPECT_EQ(doc["spec"]["replicas"].as<int>(), 1);
  std::vector<std::string> args;
  for (const YAML::Node& a : pod["containers"][0]["args"]) args.push_back(a.as<std::string>());
  std::vector<std::string> want = {"annotate", "--every", "5m",  "--range",
                                   "7d",       "--prometheus", prometheus, "--namespace", namespaces};
  want.insert(want.end(), profile_run_args.begin(), profile_run_args.end());
  EXPECT_EQ(args, want);
}

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
