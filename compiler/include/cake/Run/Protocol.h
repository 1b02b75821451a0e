// The timing protocol of GPU runs (docs/runs.md), as pure functions the runner applies and tests
// pin: sample statistics, the warm-up rule, the stopping rule, the clock filter, the suspicion
// checks, and the comparison of two records (FAST / SLOW only beyond noise).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace cake::run {

/// Bumped whenever a rule below changes: records of different versions are not comparable.
constexpr int kProtocolVersion = 1;

/// Summary of timing samples (microseconds). Quartiles interpolate linearly between order
/// statistics (type 7, as numpy's default), so median == q2.
struct Stats {
  std::size_t n = 0;
  double median = 0, q1 = 0, q3 = 0, min = 0, max = 0, mean = 0;
  double stddev = 0; ///< sample standard deviation (n - 1); 0 for n < 2
  double rsd = 0;    ///< stddev / mean; 0 when the mean is 0
};
Stats summarize(std::vector<double> samples);
/// The p-quantile (0..1) of sorted values, linear interpolation; 0 for an empty list.
double quantile(const std::vector<double>& sorted, double p);

/// Limits of the protocol; the defaults are the documented ones.
struct ProtocolLimits {
  double warmupSeconds = 0.025;   ///< warm-up lasts at least this long ...
  std::size_t warmupLaunches = 3; ///< ... and at least this many launches
  std::size_t minSamples = 10;    ///< stop on noise only after this many samples ...
  double minSeconds = 0.5;        ///< ... and this much timed GPU time
  double targetRsd = 0.005;       ///< relative standard deviation to stop at
  std::size_t maxSamples = 200;   ///< hard stop
  double maxSeconds = 15;         ///< hard stop (wall clock of the timing loop)
  double minClockRatio = 0.75;    ///< drop samples taken below this fraction of the default clock
};

/// Whether warm-up may end after `launches` launches that took `seconds` of wall clock.
bool warmupDone(const ProtocolLimits& limits, std::size_t launches, double seconds);

enum class StopReason { Continue, Converged, MaxSamples, MaxTime };
/// "continue", "converged", "max-samples", "max-time".
const char* toString(StopReason reason);
/// The stopping rule after the accepted `samples` (µs) and `elapsedSeconds` of timing loop.
StopReason shouldStop(const ProtocolLimits& limits, const std::vector<double>& samples,
                      double elapsedSeconds);

/// Whether a sample taken at `smClockMHz` counts (nullopt clock: not known, counts).
bool clockAccepted(const ProtocolLimits& limits, std::optional<double> smClockMHz,
                   std::optional<double> defaultClockMHz);

/// Why a measured time is not believable, or nullopt: faster than the roofline allows, or more
/// than 10x faster than the baseline.
std::optional<std::string> suspicion(double medianUs, std::optional<double> rooflineUs,
                                     std::optional<double> baselineUs);

/// Outcome of comparing a candidate record with a reference record.
enum class Verdict { Fast, Slow, Ambiguous, Incomparable };
/// "FAST", "SLOW", "ambiguous", "incomparable".
const char* toString(Verdict verdict);

struct Comparison {
  Verdict verdict = Verdict::Incomparable;
  double ratio = 0; ///< candidate median / reference median (< 1: faster)
  double noise = 0; ///< the relative noise the difference had to exceed
  std::string why;  ///< for Incomparable and Ambiguous: the reason
};

/// Compares timing distributions as nvbench-compare does: the relative difference of the
/// medians must exceed the larger relative spread of the two ((q3 - q1) / median), and the
/// interquartile ranges must not overlap; otherwise "ambiguous".
Comparison compareTimes(const Stats& candidate, const Stats& reference);

} // namespace cake::run
