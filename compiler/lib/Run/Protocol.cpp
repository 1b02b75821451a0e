// The timing protocol's statistics and rules (docs/runs.md).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Run/Protocol.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace cake::run {

double quantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty())
    return 0;
  double h = (static_cast<double>(sorted.size()) - 1) * std::clamp(p, 0.0, 1.0);
  auto lo = static_cast<std::size_t>(std::floor(h));
  std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Stats summarize(std::vector<double> samples) {
  Stats s;
  s.n = samples.size();
  if (samples.empty())
    return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.median = quantile(samples, 0.5);
  s.q1 = quantile(samples, 0.25);
  s.q3 = quantile(samples, 0.75);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.n);
  if (s.n >= 2) {
    double ss = 0;
    for (double x : samples)
      ss += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
  }
  s.rsd = s.mean != 0 ? s.stddev / s.mean : 0;
  return s;
}

bool warmupDone(const ProtocolLimits& limits, std::size_t launches, double seconds) {
  return launches >= limits.warmupLaunches && seconds >= limits.warmupSeconds;
}

const char* toString(StopReason reason) {
  switch (reason) {
  case StopReason::Continue:
    return "continue";
  case StopReason::Converged:
    return "converged";
  case StopReason::MaxSamples:
    return "max-samples";
  case StopReason::MaxTime:
    return "max-time";
  }
  return "continue";
}

StopReason shouldStop(const ProtocolLimits& limits, const std::vector<double>& samples,
                      double elapsedSeconds) {
  if (samples.size() >= limits.maxSamples)
    return StopReason::MaxSamples;
  if (elapsedSeconds >= limits.maxSeconds)
    return StopReason::MaxTime;
  // Noise is judged on the GPU time actually sampled, not on the loop's wall clock: a fast
  // kernel needs many samples to fill half a second, which is the point (nvbench's min-time).
  double gpuSeconds = std::accumulate(samples.begin(), samples.end(), 0.0) / 1e6;
  if (samples.size() >= limits.minSamples && gpuSeconds >= limits.minSeconds &&
      summarize(samples).rsd <= limits.targetRsd)
    return StopReason::Converged;
  return StopReason::Continue;
}

bool clockAccepted(const ProtocolLimits& limits, std::optional<double> smClockMHz,
                   std::optional<double> defaultClockMHz) {
  if (!smClockMHz || !defaultClockMHz || *defaultClockMHz <= 0)
    return true;
  return *smClockMHz >= limits.minClockRatio * *defaultClockMHz;
}

std::optional<std::string> suspicion(double medianUs, std::optional<double> rooflineUs,
                                     std::optional<double> baselineUs) {
  char buf[256];
  if (rooflineUs && *rooflineUs > 0 && medianUs < *rooflineUs) {
    std::snprintf(buf, sizeof buf,
                  "median %.3f us is below the roofline bound %.3f us: the kernel cannot be that "
                  "fast (skipped work, cached or replayed results?)",
                  medianUs, *rooflineUs);
    return std::string(buf);
  }
  if (baselineUs && *baselineUs > 0 && medianUs * 10 < *baselineUs) {
    std::snprintf(buf, sizeof buf,
                  "median %.3f us is more than 10x faster than the baseline's %.3f us", medianUs,
                  *baselineUs);
    return std::string(buf);
  }
  return std::nullopt;
}

const char* toString(Verdict verdict) {
  switch (verdict) {
  case Verdict::Fast:
    return "FAST";
  case Verdict::Slow:
    return "SLOW";
  case Verdict::Ambiguous:
    return "ambiguous";
  case Verdict::Incomparable:
    return "incomparable";
  }
  return "incomparable";
}

Comparison compareTimes(const Stats& candidate, const Stats& reference) {
  Comparison c;
  if (candidate.n == 0 || reference.n == 0 || candidate.median <= 0 || reference.median <= 0) {
    c.why = "a record has no timing samples";
    return c;
  }
  c.ratio = candidate.median / reference.median;
  double spreadC = (candidate.q3 - candidate.q1) / candidate.median;
  double spreadR = (reference.q3 - reference.q1) / reference.median;
  c.noise = std::max(spreadC, spreadR);
  double diff = std::abs(candidate.median - reference.median) / reference.median;
  bool overlap = candidate.q1 <= reference.q3 && reference.q1 <= candidate.q3;
  if (diff <= c.noise || overlap) {
    c.verdict = Verdict::Ambiguous;
    char buf[160];
    std::snprintf(buf, sizeof buf, "difference %.2f%% within noise %.2f%%%s", diff * 100,
                  c.noise * 100, overlap ? " (interquartile ranges overlap)" : "");
    c.why = buf;
    return c;
  }
  c.verdict = candidate.median < reference.median ? Verdict::Fast : Verdict::Slow;
  return c;
}

} // namespace cake::run
