// What the Progress dock shows: campaigns read from the workspace store (off the GUI thread),
// best-so-far speedup over each campaign's root per arm against candidates, tokens or wall time,
// and the predicted-vs-measured scatter with Spearman's rho and top-1 regret (docs/campaigns.md).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Workspace/Workspace.h"

#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>
#include <memory>
#include <optional>
#include <vector>

namespace cake::views {

/// One candidate as the progress views read it.
struct ProgressCandidate {
  QString id;
  QString arm;    ///< empty: no arm
  QString kernel; ///< relative to the campaign folder
  QStringList parents;
  bool accepted = false;  ///< by the verifier
  bool loweredOk = false; ///< lowering produced code
  std::optional<double> predictedUs, measuredUs;
  double tokens = 0, wallSeconds = 0; ///< the budget the author spent on this candidate
};

/// One campaign: its candidates in import order.
struct ProgressCampaign {
  QString name;
  QString folder;
  QStringList arms; ///< campaign.json's arms, then any other arm its candidates name
  QVector<ProgressCandidate> candidates;
};

/// Every campaign of a workspace, as the background read delivers it.
struct ProgressStore {
  QString workspace;
  std::vector<ProgressCampaign> campaigns;
  QString error; ///< the store could not be read (the stable ws-… code first)
};
using ProgressStorePtr = std::shared_ptr<const ProgressStore>;

/// A campaign from its stored records.
ProgressCampaign progressCampaign(const ws::CampaignRecord& campaign,
                                  const std::vector<ws::CandidateRecord>& candidates);
/// Reads every campaign of the workspace in `dir` (blocking: run it on a worker).
ProgressStore readProgressStore(const QString& dir);

/// The x axis of the best-so-far chart.
enum class ProgressAxis : quint8 { Candidates, Tokens, WallTime };
/// The time a speedup is computed from.
enum class ProgressBasis : quint8 { Predicted, Measured };
QString progressAxisLabel(ProgressAxis axis);

/// A candidate of one of the campaigns given to progressChart() / progressScatter().
struct CandidateRef {
  int campaign = -1;
  int candidate = -1;
  bool operator==(const CandidateRef&) const = default;
};

/// One curve: best-so-far speedup of one arm of one campaign.
struct ProgressCurve {
  QString campaign, arm;
  QString label;              ///< "arm", or "campaign / arm" when several campaigns are shown
  QVector<QPointF> staircase; ///< the best-so-far as a step line from x = 0 (the root, 1x)
  QVector<QPointF> points;    ///< one per candidate of the arm that has a time (clickable)
  QVector<CandidateRef> refs; ///< the candidate of each point
  QVector<bool> improved;     ///< the point raised the best-so-far
  double best = 1;            ///< the final best-so-far speedup
};

struct ProgressChart {
  std::vector<ProgressCurve> curves;
  QStringList notes; ///< what could not be drawn and why (no root time, no budget recorded)
  double xMax = 1, yMin = 0, yMax = 1;
};

/// Best-so-far speedup over the campaign's root (its first candidate without parents) per arm.
/// A candidate counts when the verifier accepted it, lowering produced its code (a kernel that
/// cannot be emitted cannot run) and it has a time on `basis`; candidates of no arm form the
/// curve "(no arm)". On a budget axis
/// x is the arm's cumulative spend; an arm that recorded none on that axis is a note, not a
/// curve.
ProgressChart progressChart(const std::vector<ProgressCampaign>& campaigns, ProgressAxis axis,
                            ProgressBasis basis = ProgressBasis::Predicted);

/// Predicted against measured time of the accepted candidates that have both.
struct ProgressScatter {
  QVector<QPointF> points; ///< (predicted µs, measured µs)
  QVector<CandidateRef> refs;
  int predicted = 0; ///< accepted candidates with a prediction (the ones that could be measured)
  /// Spearman's rho over all points; top-1 regret (measured time of the predicted-best over the
  /// best measured, minus 1) per campaign, averaged over campaigns with two or more points.
  std::optional<double> rho, regret;
  QString note; ///< the honest empty or partial state; empty when rho and regret are shown
};

ProgressScatter progressScatter(const std::vector<ProgressCampaign>& campaigns);

} // namespace cake::views
