// The Progress dock's data: campaigns from the workspace store, best-so-far curves per arm and
// the predicted-vs-measured scatter (rank metrics from the cost model's calibration).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/ProgressData.h"

#include "cake/Cost/Calibrate.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <map>

namespace cake::views {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

QJsonObject objectOf(const std::string& json) {
  return QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
}

std::optional<double> timeOf(const ProgressCandidate& c, ProgressBasis basis) {
  return basis == ProgressBasis::Measured ? c.measuredUs : c.predictedUs;
}

double spend(const ProgressCandidate& c, ProgressAxis axis) {
  return axis == ProgressAxis::Tokens ? c.tokens : c.wallSeconds;
}

} // namespace

ProgressCampaign progressCampaign(const ws::CampaignRecord& campaign,
                                  const std::vector<ws::CandidateRecord>& candidates) {
  ProgressCampaign out;
  out.name = qs(campaign.name);
  out.folder = qs(campaign.folder);
  for (const QJsonValue& arm : objectOf(campaign.spec).value(QStringLiteral("arms")).toArray())
    if (QString name = arm.toObject().value(QStringLiteral("name")).toString();
        !name.isEmpty() && !out.arms.contains(name))
      out.arms << name;
  out.candidates.reserve(qsizetype(candidates.size()));
  for (const ws::CandidateRecord& r : candidates) {
    ProgressCandidate c;
    c.id = qs(r.id);
    c.arm = qs(r.arm);
    c.kernel = qs(r.kernel);
    for (const std::string& p : r.parents)
      c.parents << qs(p);
    c.accepted = r.accepted;
    c.loweredOk = r.loweredOk;
    c.predictedUs = r.predictedUs;
    c.measuredUs = r.measuredUs;
    // The log format checked the budget's numbers at import (>= 0); absent means 0.
    QJsonObject budget = objectOf(r.budget);
    c.tokens = std::max(0.0, budget.value(QStringLiteral("tokens")).toDouble());
    c.wallSeconds = std::max(0.0, budget.value(QStringLiteral("wall_s")).toDouble());
    if (!c.arm.isEmpty() && !out.arms.contains(c.arm))
      out.arms << c.arm;
    out.candidates.push_back(std::move(c));
  }
  return out;
}

ProgressStore readProgressStore(const QString& dir) {
  ProgressStore store;
  store.workspace = dir;
  auto w = ws::Workspace::open(dir.toStdString(), ws::OpenMode::MustExist);
  if (!w) {
    store.error = qs(w.error().text());
    return store;
  }
  auto campaigns = w->campaigns();
  if (!campaigns) {
    store.error = qs(campaigns.error().text());
    return store;
  }
  for (const ws::CampaignRecord& c : *campaigns) {
    auto candidates = w->candidates(c.name);
    if (!candidates) {
      store.error = qs(candidates.error().text());
      return store;
    }
    store.campaigns.push_back(progressCampaign(c, *candidates));
  }
  return store;
}

QString progressAxisLabel(ProgressAxis axis) {
  switch (axis) {
  case ProgressAxis::Candidates:
    return QStringLiteral("candidates");
  case ProgressAxis::Tokens:
    return QStringLiteral("tokens");
  case ProgressAxis::WallTime:
    return QStringLiteral("wall time (s)");
  }
  return {};
}

ProgressChart progressChart(const std::vector<ProgressCampaign>& campaigns, ProgressAxis axis,
                            ProgressBasis basis) {
  ProgressChart chart;
  const QString timeName =
      basis == ProgressBasis::Measured ? QStringLiteral("measured") : QStringLiteral("predicted");
  double yMin = 1, yMax = 1;
  for (std::size_t ci = 0; ci < campaigns.size(); ++ci) {
    const ProgressCampaign& camp = campaigns[ci];
    auto root = std::find_if(camp.candidates.begin(), camp.candidates.end(),
                             [](const ProgressCandidate& c) { return c.parents.isEmpty(); });
    if (root == camp.candidates.end()) {
      chart.notes << QStringLiteral("%1: no root candidate").arg(camp.name);
      continue;
    }
    std::optional<double> rootTime = timeOf(*root, basis);
    if (!root->accepted || !rootTime || *rootTime <= 0) {
      chart.notes
          << QStringLiteral("%1: its root %2 has no %3 time").arg(camp.name, root->id, timeName);
      continue;
    }
    const int rootIndex = int(root - camp.candidates.begin());
    QStringList arms = camp.arms;
    bool noArm =
        std::any_of(camp.candidates.begin(), camp.candidates.end(),
                    [&](const ProgressCandidate& c) { return c.arm.isEmpty() && &c != &*root; });
    if (noArm)
      arms << QString();
    for (const QString& arm : arms) {
      ProgressCurve curve;
      curve.campaign = camp.name;
      curve.arm = arm;
      QString armName = arm.isEmpty() ? QStringLiteral("(no arm)") : arm;
      curve.label = campaigns.size() > 1 ? camp.name + QStringLiteral(" / ") + armName : armName;
      double x = 0, best = 1;
      curve.staircase << QPointF(0, 1);
      curve.points << QPointF(0, 1);
      curve.refs << CandidateRef{int(ci), rootIndex};
      curve.improved << false;
      int members = 0;
      for (int i = 0; i < camp.candidates.size(); ++i) {
        const ProgressCandidate& c = camp.candidates[i];
        if (i == rootIndex || c.arm != arm)
          continue;
        ++members;
        x += axis == ProgressAxis::Candidates ? 1.0 : spend(c, axis);
        std::optional<double> t = timeOf(c, basis);
        // A kernel lowering refuses cannot run: its prediction is no progress (the lineage's
        // best path, campaign::bestPath, still counts it; see docs/campaigns.md).
        if (!c.accepted || !c.loweredOk || !t || *t <= 0)
          continue;
        double speedup = *rootTime / *t;
        bool up = speedup > best;
        curve.points << QPointF(x, speedup);
        curve.refs << CandidateRef{int(ci), i};
        curve.improved << up;
        yMin = std::min(yMin, speedup);
        if (up) {
          curve.staircase << QPointF(x, best) << QPointF(x, speedup);
          best = speedup;
        }
      }
      if (members == 0)
        continue;
      if (x <= 0) {
        // A search logs no spend (cake evolve writes 0 so its log stays byte-identical):
        // there is no budget curve to draw, and a flat line at x = 0 would pretend there is.
        chart.notes
            << QStringLiteral("%1 recorded no %2").arg(curve.label, progressAxisLabel(axis));
        continue;
      }
      curve.staircase << QPointF(x, best);
      curve.best = best;
      yMax = std::max(yMax, best);
      chart.xMax = std::max(chart.xMax, x);
      chart.curves.push_back(std::move(curve));
    }
  }
  chart.yMin = yMin;
  chart.yMax = yMax;
  return chart;
}

ProgressScatter progressScatter(const std::vector<ProgressCampaign>& campaigns) {
  ProgressScatter out;
  std::vector<double> predicted, measured;
  std::vector<std::string> group;
  for (std::size_t ci = 0; ci < campaigns.size(); ++ci) {
    const ProgressCampaign& camp = campaigns[ci];
    for (int i = 0; i < camp.candidates.size(); ++i) {
      const ProgressCandidate& c = camp.candidates[i];
      if (!c.accepted || !c.predictedUs)
        continue;
      ++out.predicted;
      if (!c.measuredUs)
        continue;
      out.points << QPointF(*c.predictedUs, *c.measuredUs);
      out.refs << CandidateRef{int(ci), i};
      predicted.push_back(*c.predictedUs);
      measured.push_back(*c.measuredUs);
      group.push_back(camp.name.toStdString());
    }
  }
  if (out.points.isEmpty()) {
    out.note = QStringLiteral("no measurements: none of the %1 accepted candidates has a measured "
                              "time (measured_us), so the prediction cannot be judged")
                   .arg(out.predicted);
    return out;
  }
  if (out.points.size() < 2) {
    out.note = QStringLiteral("one measured candidate: Spearman's rho and top-1 regret need two");
    return out;
  }
  out.rho = cost::spearman(predicted, measured);
  std::size_t groups = 0;
  double regret = cost::top1Regret(predicted, measured, group, &groups);
  if (groups > 0)
    out.regret = regret;
  else
    out.note = QStringLiteral("top-1 regret needs two measured candidates of one campaign");
  return out;
}

} // namespace cake::views
