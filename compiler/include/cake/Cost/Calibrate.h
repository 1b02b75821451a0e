// Calibration of the cost model from measured runs: a least-squares fit of the parameters in
// log space (Nelder-Mead over the identifiable ones), with the ranking quality agents care
// about — Spearman rank correlation and top-1 regret among alternatives for one problem.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Cost/CostModel.h"

#include <string>
#include <vector>

namespace cake::cost {

/// One measured kernel, prepared for repeated evaluation.
struct Sample {
  const Prepared* prepared = nullptr;
  double measuredUs = 0;
  std::string group; ///< kernels that are alternatives for one problem share a group
};

struct Quality {
  double spearman = 0;    ///< rank correlation of predicted and measured times (all samples)
  double top1Regret = 0;  ///< mean over groups of measured(predicted best) / measured best - 1
  double rmsLogError = 0; ///< sqrt(mean((log predicted - log measured)^2))
  std::size_t groups = 0; ///< groups with at least two alternatives
};

struct FitResult {
  Params params;
  Quality before, after;
  std::vector<double> predictedBefore, predictedAfter; ///< microseconds, per sample
  std::vector<int> fitted;         ///< Params indices the measurements determine
  std::vector<int> unidentifiable; ///< left at their starting value
  int evaluations = 0;
};

/// Spearman's rank correlation (ties get their mean rank); 0 when either side is constant.
double spearman(const std::vector<double>& x, const std::vector<double>& y);
/// Mean top-1 regret over the groups with at least two members (`groups` receives their count).
double top1Regret(const std::vector<double>& predicted, const std::vector<double>& measured,
                  const std::vector<std::string>& group, std::size_t* groups = nullptr);
Quality quality(const std::vector<double>& predicted, const std::vector<double>& measured,
                const std::vector<std::string>& group);

/// Fits the parameters to the samples, starting from `start`.
FitResult fit(const std::vector<Sample>& samples, const Params& start);

/// The calibration file for `target` (compiler/calibration/<target>.json) describing `result`.
std::string calibrationFile(const std::string& target, const FitResult& result,
                            std::size_t measurements, const std::string& source);

} // namespace cake::cost
