// The history `kraken annotate --mig-forecast` forecasts (docs/mig-rebalancing.md "Ahead
// of a forecast peak"): per node and MIG profile, how many of the node's pods held an
// instance of that profile at each step of the pass's Prometheus query. A pod holds the
// profile the pooling plan gives it (node_mig_instances.h) at the steps where any of its
// DCGM series answered, so pods that come and go with the time of day show as a pattern.
#pragma once

#include <map>
#include <string>

#include "analysis/mig/peak_ahead.h"
#include "app/cluster_request.h"

namespace kraken {

using NodeMigHistories = std::map<std::string, mig::InstanceHistory>;

// Adds the pods of one namespace's pooling to `into` (passes over several namespaces query
// the same steps, so their counts add up).
void AddMigInstanceHistories(const ClusterPooling& pooling, NodeMigHistories* into);

}  // namespace kraken
