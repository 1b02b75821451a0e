// Fitting the cost model's parameters to measured kernel times, and the ranking metrics.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Cost/Calibrate.h"

#include "CostInternal.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace cake::cost {

namespace {

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), std::size_t(0));
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]])
      ++j;
    double mean = (double(i) + double(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k)
      r[idx[k]] = mean;
    i = j + 1;
  }
  return r;
}

/// Bounds of each parameter (efficiencies and the latency scale are multipliers).
constexpr double kLo[Params::kCount] = {0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.1, 0.0};
constexpr double kHi[Params::kCount] = {2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 10.0, 100.0};
constexpr double kOverheadShift = 0.05; ///< log(overhead + shift) keeps 0 reachable

double toSpace(int i, double v) {
  return i == 7 ? std::log(v + kOverheadShift) : std::log(std::max(v, 1e-9));
}
double fromSpace(int i, double x) {
  double v = i == 7 ? std::exp(x) - kOverheadShift : std::exp(x);
  return std::clamp(v, kLo[i], kHi[i]);
}

std::vector<double> predictAll(const std::vector<Sample>& samples, const Params& p) {
  std::vector<double> out;
  out.reserve(samples.size());
  for (const Sample& s : samples)
    out.push_back(predictUs(*s.prepared, p));
  return out;
}

} // namespace

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2)
    return 0.0;
  std::vector<double> rx = ranks(x), ry = ranks(y);
  double n = double(x.size());
  double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / n;
  double my = std::accumulate(ry.begin(), ry.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0.0;
}

double top1Regret(const std::vector<double>& predicted, const std::vector<double>& measured,
                  const std::vector<std::string>& group, std::size_t* groups) {
  std::map<std::string, std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < group.size() && i < predicted.size() && i < measured.size(); ++i)
    members[group[i]].push_back(i);
  double sum = 0;
  std::size_t n = 0;
  for (const auto& [name, idx] : members) {
    if (idx.size() < 2)
      continue;
    std::size_t chosen = idx[0], best = idx[0];
    for (std::size_t i : idx) {
      if (predicted[i] < predicted[chosen])
        chosen = i;
      if (measured[i] < measured[best])
        best = i;
    }
    sum += measured[best] > 0 ? measured[chosen] / measured[best] - 1.0 : 0.0;
    ++n;
  }
  if (groups)
    *groups = n;
  return n ? sum / double(n) : 0.0;
}

Quality quality(const std::vector<double>& predicted, const std::vector<double>& measured,
                const std::vector<std::string>& group) {
  Quality q;
  q.spearman = spearman(predicted, measured);
  q.top1Regret = top1Regret(predicted, measured, group, &q.groups);
  double se = 0;
  for (std::size_t i = 0; i < predicted.size() && i < measured.size(); ++i) {
    double d = std::log(std::max(predicted[i], 1e-12)) - std::log(std::max(measured[i], 1e-12));
    se += d * d;
  }
  q.rmsLogError = predicted.empty() ? 0.0 : std::sqrt(se / double(predicted.size()));
  return q;
}

FitResult fit(const std::vector<Sample>& samples, const Params& start) {
  FitResult result;
  std::vector<double> measured;
  std::vector<std::string> groups;
  for (const Sample& s : samples) {
    measured.push_back(s.measuredUs);
    groups.push_back(s.group);
  }
  result.predictedBefore = predictAll(samples, start);
  result.before = quality(result.predictedBefore, measured, groups);

  // Identifiable parameters: a 20% change (1 us of overhead) moves some prediction by > 0.5%.
  for (int i = 0; i < Params::kCount; ++i) {
    Params probe = start;
    probe.at(i) = i == 7 ? start.at(i) + 1.0 : start.at(i) * 1.2;
    std::vector<double> moved = predictAll(samples, probe);
    double effect = 0;
    for (std::size_t k = 0; k < moved.size(); ++k)
      effect = std::max(effect, std::fabs(std::log(std::max(1e-9, moved[k]) /
                                                   std::max(1e-9, result.predictedBefore[k]))));
    (effect > 0.005 ? result.fitted : result.unidentifiable).push_back(i);
  }
  int evaluations = 0;
  std::vector<double> x0;
  for (int i : result.fitted)
    x0.push_back(toSpace(i, start.at(i)));
  auto paramsOf = [&](const std::vector<double>& x) {
    Params p = start;
    for (std::size_t k = 0; k < x.size(); ++k)
      p.at(result.fitted[k]) = fromSpace(result.fitted[k], x[k]);
    return p;
  };
  auto objective = [&](const std::vector<double>& x) {
    ++evaluations;
    Params p = paramsOf(x);
    double se = 0;
    for (std::size_t k = 0; k < samples.size(); ++k) {
      double d = std::log(std::max(1e-9, predictUs(*samples[k].prepared, p))) -
                 std::log(samples[k].measuredUs);
      se += d * d;
    }
    // A faint pull towards the start keeps flat directions where they were.
    double prior = 0;
    for (std::size_t k = 0; k < x.size(); ++k)
      prior += (x[k] - x0[k]) * (x[k] - x0[k]);
    return se / double(samples.size()) + 1e-6 * prior;
  };

  std::vector<double> best = x0;
  if (!x0.empty()) {
    // Nelder-Mead with a restart from the best point (standard coefficients).
    const std::size_t n = x0.size();
    for (int restart = 0; restart < 2; ++restart) {
      std::vector<std::vector<double>> simplex(n + 1, best);
      for (std::size_t k = 0; k < n; ++k)
        simplex[k + 1][k] += 0.4;
      std::vector<double> f(n + 1);
      for (std::size_t k = 0; k <= n; ++k)
        f[k] = objective(simplex[k]);
      for (int iter = 0; iter < 300 * int(n); ++iter) {
        std::vector<std::size_t> order(n + 1);
        std::iota(order.begin(), order.end(), std::size_t(0));
        std::sort(order.begin(), order.end(),
                  [&](std::size_t a, std::size_t b) { return f[a] < f[b]; });
        std::vector<std::vector<double>> s2;
        std::vector<double> f2;
        for (std::size_t k : order) {
          s2.push_back(simplex[k]);
          f2.push_back(f[k]);
        }
        simplex = std::move(s2);
        f = std::move(f2);
        if (std::fabs(f[n] - f[0]) < 1e-12 * (1.0 + std::fabs(f[0])) && iter > 10)
          break;
        std::vector<double> centroid(n, 0.0);
        for (std::size_t k = 0; k < n; ++k)
          for (std::size_t d = 0; d < n; ++d)
            centroid[d] += simplex[k][d] / double(n);
        auto along = [&](double t) {
          std::vector<double> p(n);
          for (std::size_t d = 0; d < n; ++d)
            p[d] = centroid[d] + t * (simplex[n][d] - centroid[d]);
          return p;
        };
        std::vector<double> xr = along(-1.0);
        double fr = objective(xr);
        if (fr < f[0]) {
          std::vector<double> xe = along(-2.0);
          double fe = objective(xe);
          if (fe < fr) {
            simplex[n] = xe;
            f[n] = fe;
          } else {
            simplex[n] = xr;
            f[n] = fr;
          }
        } else if (fr < f[n - 1]) {
          simplex[n] = xr;
          f[n] = fr;
        } else {
          std::vector<double> xc = fr < f[n] ? along(-0.5) : along(0.5);
          double fc = objective(xc);
          if (fc < std::min(fr, f[n])) {
            simplex[n] = xc;
            f[n] = fc;
          } else {
            for (std::size_t k = 1; k <= n; ++k) {
              for (std::size_t d = 0; d < n; ++d)
                simplex[k][d] = simplex[0][d] + 0.5 * (simplex[k][d] - simplex[0][d]);
              f[k] = objective(simplex[k]);
            }
          }
        }
      }
      std::size_t arg = std::size_t(std::min_element(f.begin(), f.end()) - f.begin());
      best = simplex[arg];
    }
  }
  result.params = paramsOf(best);
  result.params.rmsLogError = 0;
  result.evaluations = evaluations;
  result.predictedAfter = predictAll(samples, result.params);
  result.after = quality(result.predictedAfter, measured, groups);
  result.params.rmsLogError = result.after.rmsLogError;
  return result;
}

std::string calibrationFile(const std::string& target, const FitResult& r, std::size_t measurements,
                            const std::string& source) {
  json::Writer w;
  w.beginObject();
  w.key("$comment")
      .value("Cost-model calibration for " + target +
             ", fitted by 'cake calibrate' (docs/cost.md). "
             "SPDX-License-Identifier: GPL-3.0-or-later");
  w.key("target").value(target);
  w.key("params").beginObject();
  for (int i = 0; i < Params::kCount; ++i)
    w.key(Params::name(i)).value(std::round(r.params.at(i) * 1e6) / 1e6);
  w.endObject();
  w.key("fit").beginObject();
  w.key("source").value(source);
  w.key("measurements").value(std::uint64_t(measurements));
  w.key("groups").value(std::uint64_t(r.after.groups));
  w.key("rms_log_error").value(std::round(r.after.rmsLogError * 1e6) / 1e6);
  w.key("spearman").value(std::round(r.after.spearman * 1e6) / 1e6);
  w.key("top1_regret").value(std::round(r.after.top1Regret * 1e6) / 1e6);
  w.key("fitted").beginArray();
  for (int i : r.fitted)
    w.value(Params::name(i));
  w.endArray();
  w.endObject();
  w.endObject();
  return w.str() + "\n";
}

} // namespace cake::cost
