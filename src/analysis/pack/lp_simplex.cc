#include "analysis/pack/lp_simplex.h"

#include <cmath>

namespace kraken::pack {
namespace {
constexpr double kEps = 1e-12;
constexpr int kMaxPivots = 100000;
}  // namespace

LpSolution MaximizeLp(const std::vector<std::vector<double>>& m, const std::vector<double>& b,
                      const std::vector<double>& c) {
  const size_t rows = m.size(), vars = c.size(), cols = vars + rows + 1;  // variables, slacks, right-hand side
  // Tableau: one row per constraint, then the objective row (reduced costs).
  std::vector<double> t((rows + 1) * cols, 0.0);
  auto at = [&](size_t r, size_t col) -> double& { return t[r * cols + col]; };
  std::vector<size_t> basis(rows);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t v = 0; v < vars && v < m[r].size(); ++v) at(r, v) = m[r][v];
    at(r, vars + r) = 1;
    at(r, cols - 1) = b[r];
    basis[r] = vars + r;
  }
  for (size_t v = 0; v < vars; ++v) at(rows, v) = -c[v];

  LpSolution solution;
  while (solution.pivots < kMaxPivots) {
    // Bland: the entering column is the first with a negative reduced cost ...
    size_t enter = cols - 1;
    for (size_t col = 0; col + 1 < cols; ++col)
      if (at(rows, col) < -kEps) {
        enter = col;
        break;
      }
    if (enter == cols - 1) break;  // optimal
    // ... and the leaving row the one with the smallest ratio (lowest basic index on ties).
    size_t leave = rows;
    double best = 0;
    for (size_t r = 0; r < rows; ++r) {
      if (at(r, enter) <= kEps) continue;
      const double ratio = at(r, cols - 1) / at(r, enter);
      if (leave == rows || ratio < best - kEps || (std::fabs(ratio - best) <= kEps && basis[r] < basis[leave])) {
        leave = r;
        best = ratio;
      }
    }
    if (leave == rows) {
      solution.bounded = false;
      break;
    }
    const double pivot = at(leave, enter);
    for (size_t col = 0; col < cols; ++col) at(leave, col) /= pivot;
    for (size_t r = 0; r <= rows; ++r) {
      if (r == leave) continue;
      const double factor = at(r, enter);
      if (factor == 0) continue;
      for (size_t col = 0; col < cols; ++col) at(r, col) -= factor * at(leave, col);
    }
    basis[leave] = enter;
    ++solution.pivots;
  }
  solution.y.assign(vars, 0.0);
  for (size_t r = 0; r < rows; ++r)
    if (basis[r] < vars) solution.y[basis[r]] = at(r, cols - 1);
  for (size_t v = 0; v < vars; ++v) solution.objective += c[v] * solution.y[v];
  return solution;
}

}  // namespace kraken::pack
