// What the deploy/ tests share (deploy_manifests_test.cc, deploy_helm_chart_test.cc): the
// YAML documents of a manifest, the fields every object needs, and the checks of the
// RBAC, the controller and the agent that the plain manifests and the rendered Helm chart
// must both pass.
#pragma once

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/testing/test_data.h"
#include "base/text.h"
#include "k8s/controller/profile_run.h"

namespace kraken::deploy_testing {

inline std::string DeployDir() { return testing::SourceDir() + "/deploy"; }

inline std::vector<YAML::Node> LoadDocuments(const std::string& text) {
  std::vector<YAML::Node> docs;
  for (YAML::Node& doc : YAML::LoadAll(text))
    if (doc.IsDefined() && !doc.IsNull()) docs.push_back(doc);
  return docs;
}

inline void ExpectObject(const YAML::Node& doc, const std::string& where) {
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
inline void ExpectPodResourcesMount(const YAML::Node& daemonset, const std::string& where) {
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

// verbs by "apiGroup/resource" of a ClusterRole.
inline std::map<std::string, std::set<std::string>> Grants(const YAML::Node& role) {
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
inline void ExpectControllerRbac(const std::vector<YAML::Node>& docs, const std::string& controller_role,
                                 bool profile_runs, bool workload_profiles) {
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
inline void ExpectAgentRbacAndNodeName(const std::vector<YAML::Node>& docs, const std::string& agent) {
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
inline void ExpectControllerDeployment(const YAML::Node& doc, const std::string& account,
                                       const std::string& prometheus, const std::string& namespaces,
                                       const std::vector<std::string>& profile_run_args = {}) {
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

}  // namespace kraken::deploy_testing
