#include "analysis/colocate/queueing.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kraken {

double Mg1WaitQuantileSeconds(double rate_per_s, double service_s, double service_second_moment_s2, double p) {
  if (rate_per_s <= 0 || service_s <= 0) return 0;
  double rho = rate_per_s * service_s;
  if (rho >= 1) return std::numeric_limits<double>::infinity();
  double mean_wait = rate_per_s * service_second_moment_s2 / (2 * (1 - rho));
  // P(W > t) = rho exp(-rho t / E[W]) <= 1 - p  <=>  t >= E[W] / rho * ln(rho / (1 - p)).
  if (rho <= 1 - p || mean_wait <= 0) return 0;
  return mean_wait / rho * std::log(rho / (1 - p));
}

double BinomialUpperQuantile(double n, double prob, double z) {
  if (n <= 0 || prob <= 0) return 0;
  prob = std::min(prob, 1.0);
  double q = n * prob + z * std::sqrt(n * prob * (1 - prob));
  return std::clamp(q, 0.0, n);
}

}  // namespace kraken
