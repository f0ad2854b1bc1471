// A small dense simplex for the packing prices (packing_prices.h): maximise c.y subject
// to M y <= b, y >= 0, with b >= 0 (so y = 0 is feasible and no phase I is needed).
// Bland's rule guarantees termination on degenerate problems. Meant for tens of
// variables and a few hundred constraints.
#pragma once

#include <vector>

namespace kraken::pack {

struct LpSolution {
  std::vector<double> y;
  double objective = 0;
  bool bounded = true;
  int pivots = 0;
};

LpSolution MaximizeLp(const std::vector<std::vector<double>>& m, const std::vector<double>& b,
                      const std::vector<double>& c);

}  // namespace kraken::pack
