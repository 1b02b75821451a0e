// The Progress view: best-so-far speedup of campaigns per arm against candidates, tokens or
// wall time, and the predicted-vs-measured scatter with Spearman's rho and top-1 regret (or
// the honest "no measurements" state). Paints the store the Progress dock read in the
// background; a click on a point names its candidate.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/ProgressData.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QToolButton;

namespace cake::widgets {

class Plot;

class ProgressView : public QWidget {
  Q_OBJECT
public:
  explicit ProgressView(QWidget* parent = nullptr);

  /// The campaigns to choose from; keeps the chosen ones that still exist (all when none was
  /// chosen or none of them exists).
  void setStore(const views::ProgressStorePtr& store);
  const views::ProgressStorePtr& store() const { return m_store; }
  /// Chooses the campaigns drawn (names); unknown names are ignored.
  void setSelectedCampaigns(const QStringList& names);
  QStringList selectedCampaigns() const { return m_selected; }
  void setAxis(views::ProgressAxis axis);
  views::ProgressAxis axis() const;
  void setBasis(views::ProgressBasis basis);

  /// What is drawn now (tests and the screenshot read it).
  const views::ProgressChart& chart() const { return m_chart; }
  const views::ProgressScatter& scatter() const { return m_scatter; }
  QString summaryText() const;
  Plot* progressPlot() const { return m_progress; }
  Plot* scatterPlot() const { return m_scatterPlot; }

  /// Acts as a click on point `index` of curve `curve` of the chart (-1: the scatter).
  void activatePoint(int curve, int index);

Q_SIGNALS:
  /// A candidate's point was clicked: its campaign, the campaign folder and kernel path.
  void candidateActivated(QString campaign, QString id, QString folder, QString kernel);
  /// The user asked to read the workspace's campaigns again (Reload).
  void reloadRequested();

private:
  void rebuild();
  void rebuildCampaignMenu();
  std::vector<views::ProgressCampaign> chosen() const;
  void activate(const views::CandidateRef& ref);

  views::ProgressStorePtr m_store;
  QStringList m_selected;
  std::vector<views::ProgressCampaign> m_shown; ///< the campaigns refs index into
  views::ProgressChart m_chart;
  views::ProgressScatter m_scatter;
  QVector<int> m_curveOfHandle; ///< progress plot point-set handle → curve (-1: none)
  QToolButton* m_campaigns;
  QComboBox* m_axis;
  QComboBox* m_basis;
  QToolButton* m_reload;
  QLabel* m_summary;
  Plot* m_progress;
  Plot* m_scatterPlot;
};

} // namespace cake::widgets
