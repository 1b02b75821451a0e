// The Lineage dock: a campaign's candidate DAG laid out on the serialized Graphviz worker and
// drawn in a QGraphicsView (nodes coloured by outcome and labelled with speedups, the best path
// highlighted), filters by author, outcome and finding code, and the last import's result.
// Selecting a node or an edge asks the window to open the candidate or compare parent and child.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/GraphLayoutWorker.h"
#include "cake/views/LineageController.h"
#include "cake/views/LineageData.h"

#include <QWidget>

class QComboBox;
class QGraphicsScene;
class QGraphicsView;
class QLabel;
class QPlainTextEdit;

namespace cake::widgets {

class LineageView : public QWidget {
  Q_OBJECT
public:
  explicit LineageView(QWidget* parent = nullptr);
  ~LineageView() override;

  /// Shows a campaign's lineage (a new one, or the shown one grown): the graph is rebuilt with
  /// the current filter and laid out in the background.
  void setLineage(const views::LineagePtr& lineage);
  const views::LineagePtr& lineage() const { return m_lineage; }
  /// The result of the last import (counts; located errors listed under the graph).
  void setImportSummary(const views::ImportSummaryPtr& summary);
  /// A message in place of the import line (an import or read that failed).
  void setMessage(const QString& message);
  /// Filters (the combo boxes follow); the graph is rebuilt and laid out again.
  void setFilter(const views::LineageFilter& filter);
  const views::LineageFilter& filter() const { return m_filter; }

  /// A layout was requested and has not been drawn yet.
  bool layoutPending() const;
  /// What is drawn (null before the first layout).
  const views::LineageGraph* graph() const { return m_shown.get(); }
  const views::GraphLayout* layout() const { return m_layout.get(); }
  QGraphicsScene* scene() const { return m_scene; }
  QGraphicsView* canvas() const { return m_canvas; }
  /// Selects a candidate's node and scrolls to it (no activation signal); false when hidden.
  bool selectCandidate(const QString& id);
  /// Selects the edge parent → child as a user click does (edgeActivated follows).
  bool activateEdge(const QString& parent, const QString& child);
  /// Selects the node as a user click does (candidateActivated follows).
  bool activateCandidate(const QString& id);
  /// Fits the whole lineage in the view (never above 1:1).
  void fitToView();
  /// What a new campaign opens with: the whole lineage when it is readable so, else
  /// kReadableScale centred on the best candidate.
  void showOverview();
  static constexpr double kReadableScale = 0.75;
  /// Options of the next layouts (tests force the fallback here).
  void setLayoutOptions(const views::LayoutOptions& options) { m_options = options; }
  /// Milliseconds the last scene build took on the GUI thread.
  qint64 lastSceneMs() const { return m_sceneMs; }

Q_SIGNALS:
  /// A node was selected: open this candidate.
  void candidateActivated(QString id);
  /// An edge was selected: compare the parent with the child.
  void edgeActivated(QString parent, QString child);
  /// A layout has been drawn.
  void layoutShown();

private:
  void rebuild();
  void onLayoutFinished(quint64 job, views::GraphPtr graph, views::GraphLayoutPtr layout);
  void buildScene();
  void onSceneSelection();
  void fillCombos();
  void updateTitle();

  views::LineagePtr m_lineage;
  views::LineageFilter m_filter;
  views::LayoutOptions m_options;
  views::GraphLayoutWorker m_worker;
  views::LineageGraphPtr m_requested; ///< the graph of the newest layout request
  views::LineageGraphPtr m_shown;     ///< the graph drawn
  views::GraphLayoutPtr m_layout;
  bool m_fitted = false;
  bool m_quiet = false; ///< programmatic selection: no activation signals
  qint64 m_sceneMs = 0;
  QString m_current; ///< selected candidate id, kept across layouts

  QLabel* m_title;
  QLabel* m_legend;
  QComboBox* m_author;
  QComboBox* m_outcome;
  QComboBox* m_code;
  QGraphicsScene* m_scene;
  QGraphicsView* m_canvas;
  QLabel* m_importLine;
  QPlainTextEdit* m_errors;
};

} // namespace cake::widgets
