// The two queueing approximations the latency model uses.
#pragma once

namespace kraken {

// p-quantile of the waiting time (before service) in an M/G/1 queue with Poisson
// arrivals at `rate_per_s` and service times of mean `service_s` and second moment
// `service_second_moment_s2`. The mean is Pollaczek-Khinchine's lambda E[S^2] / (2(1-rho));
// the tail is taken as exponential, P(W > t) = rho exp(-rho t / E[W]), which is exact for
// M/M/1 and conservative for near-constant service times. Returns +inf when rho >= 1.
double Mg1WaitQuantileSeconds(double rate_per_s, double service_s, double service_second_moment_s2, double p);

// Upper quantile of a Binomial(n, prob) count by the normal approximation,
// n prob + z sqrt(n prob (1 - prob)), within [0, n].
double BinomialUpperQuantile(double n, double prob, double z);

}  // namespace kraken
