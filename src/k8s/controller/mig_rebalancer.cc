#include "k8s/controller/mig_rebalancer.h"

#include "base/text.h"
#include "k8s/controller/annotation_writer.h"
#include "k8s/controller/node_labels.h"

namespace kraken::k8s {

std::string FormatRebalanceState(const mig::RebalanceState& state) {
  std::string out = "v1";
  if (!state.pending.empty() && state.pending_since_s >= 0)
    out += ";pending=" + state.pending + ";since=" + std::to_string(state.pending_since_s);
  if (state.last_change_s >= 0) out += ";changed=" + std::to_string(state.last_change_s);
  return out;
}

mig::RebalanceState ParseRebalanceState(std::string_view text) {
  mig::RebalanceState state;
  std::vector<std::string_view> fields = Split(Trim(text), ';');
  if (fields.empty() || fields[0] != "v1") return {};
  for (size_t i = 1; i < fields.size(); ++i) {
    size_t eq = fields[i].find('=');
    if (eq == std::string_view::npos) return {};
    std::string_view key = fields[i].substr(0, eq), value = fields[i].substr(eq + 1);
    if (key == "pending") {
      if (!IsValidLabelValue(value)) return {};
      state.pending = std::string(value);
    } else if (key == "since" || key == "changed") {
      std::optional<int64_t> s = ParseInt64(value);
      if (!s || *s < 0) return {};
      (key == "since" ? state.pending_since_s : state.last_change_s) = *s;
    }
  }
  if (state.pending.empty() != (state.pending_since_s < 0)) return {};
  return state;
}

Result<MigRebalanceResult> RebalanceNodeMig(const KubeClient& client, const std::string& node, const std::string& wanted,
                                            int64_t now_s, const mig::RebalanceOptions& options, bool apply_mig,
                                            const MigForecastInput* ahead) {
  const ObjectRef ref{"v1", "Node", "", node};
  KRAKEN_ASSIGN_OR_RETURN(std::string body, client.Get(ObjectPath(ref)));
  KRAKEN_ASSIGN_OR_RETURN(ObjectMeta meta, ParseObjectMeta(body, ""));
  MigRebalanceResult result;
  auto label = meta.labels.find(kMigConfigLabel);
  if (label == meta.labels.end()) label = meta.labels.find(kMigLayoutLabel);
  if (label != meta.labels.end()) result.current = label->second;
  mig::RebalanceState state;
  if (auto it = meta.annotations.find(kMigRebalanceKey); it != meta.annotations.end())
    state = ParseRebalanceState(it->second);
  result.decision = ahead != nullptr ? mig::DecideRebalanceAhead(state, result.current, ahead->wanted, ahead->forecasts,
                                                                 now_s, ahead->lookahead_s, options)
                                     : mig::DecideRebalance(state, result.current, wanted, now_s, options);
  const mig::RebalanceDecision& d = result.decision;
  std::string recommendation = (d.action == mig::RebalanceAction::kKeep ? result.current : d.layout) + " (" +
                               mig::RebalanceActionName(d.action) + ": " + d.reason + ")";
  AnnotationWriter writer(client);
  KRAKEN_RETURN_IF_ERROR(
      writer.Apply(ref, {{kMigRebalanceKey, FormatRebalanceState(d.next)}, {kMigRecommendationKey, recommendation}})
          .status());
  if (apply_mig && d.action == mig::RebalanceAction::kChange) {
    KRAKEN_RETURN_IF_ERROR(writer.ApplyNodeLabels(node, {{kMigConfigLabel, d.layout}}).status());
    result.labelled = true;
  }
  return result;
}

}  // namespace kraken::k8s
