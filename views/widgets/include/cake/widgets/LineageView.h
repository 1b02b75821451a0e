// The Lineage dock: a campaign's candidate DAG laid out on the serialized Graphviz worker and
// drawn in a QGraphicsView (nodes coloured by outcome and labelled with speedups, the best path
// highlighted), filters by author, outcome and finding code, and the last import's result.
// Selecting a node or an edge asks the window to open the candidate or compare parent and child.
// The GUI thread never builds the graph or the scene data (both run on the view's own worker
// thread) and creates the items in time-boxed slices, so a 2,000-candidate campaign does not
// stall it; the colours follow the palette (ViewPalette, `--dark`).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/GraphLayoutWorker.h"
#include "cake/views/LineageController.h"
#include "cake/views/LineageData.h"
#include "cake/views/LineageScene.h"

#include <QThreadPool>
#include <QVector>
#include <QWidget>

class QComboBox;
class QGraphicsItem;
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

  /// A rebuild (graph, layout, scene) was started and has not been drawn yet.
  bool layoutPending() const { return m_pending; }
  /// What is drawn (null before the first layout).
  const views::LineageGraph* graph() const { return m_shown.get(); }
  const views::GraphLayout* layout() const { return m_layout.get(); }
  QGraphicsScene* scene() const { return m_scene; }
  QGraphicsView* canvas() const { return m_canvas; }
  /// Selects a candidate's node and centres it (no activation signal); false when it is not
  /// drawn. A candidate of the lineage not drawn yet is selected when its layout is.
  bool selectCandidate(const QString& id);
  /// The selected candidate (kept across layouts; empty: none).
  const QString& currentCandidate() const { return m_current; }
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
  /// Where the last rebuild's time went, in milliseconds: the graph and the scene data on the
  /// view's worker thread, and on the GUI thread the items in slices (all slices, the longest
  /// one) and the swap of the finished scene in.
  struct Timings {
    qint64 graphMs = 0, sceneDataMs = 0;
    qint64 itemsMs = 0, longestSliceMs = 0, slices = 0, swapMs = 0;
  };
  const Timings& timings() const { return m_timings; }
  /// Milliseconds the last scene build took on the GUI thread (all slices and the swap).
  qint64 lastSceneMs() const { return m_timings.itemsMs + m_timings.swapMs; }
  /// The GUI thread's time box per slice of item creation.
  static constexpr int kSliceMs = 8;

Q_SIGNALS:
  /// A node was selected: open this candidate.
  void candidateActivated(QString id);
  /// An edge was selected: compare the parent with the child.
  void edgeActivated(QString parent, QString child);
  /// A layout has been drawn.
  void layoutShown();

protected:
  void changeEvent(QEvent* event) override;

private:
  struct Build; ///< a scene being filled in slices
  void rebuild();
  void onGraphBuilt(quint64 generation, views::LineagePtr lineage, views::LineageGraphPtr graph,
                    qint64 ms);
  void onLayoutFinished(quint64 job, views::GraphPtr graph, views::GraphLayoutPtr layout);
  void startItems(std::shared_ptr<Build> build);
  void fillSlice(std::shared_ptr<Build> build);
  void finishBuild(const std::shared_ptr<Build>& build);
  void disposeScene(QGraphicsScene* scene, QVector<QGraphicsItem*> items);
  void onSceneSelection();
  void fillCombos();
  void updateTitle();
  void applyPalette();

  views::LineagePtr m_lineage;
  views::LineageFilter m_filter;
  views::LayoutOptions m_options;
  views::GraphLayoutWorker m_worker;
  QThreadPool m_pool; ///< one thread: graph and scene data off the GUI thread, in order
  quint64 m_generation = 0; ///< bumped by every rebuild: older results are dropped
  bool m_pending = false;
  views::LineagePtr m_requestedLineage; ///< the lineage m_requested was built from
  quint64 m_requestedGeneration = 0;    ///< the rebuild m_requested belongs to
  views::LineageGraphPtr m_requested;   ///< the graph of the newest layout request
  views::LineagePtr m_shownLineage;     ///< the lineage the drawn graph was built from
  views::LineageGraphPtr m_shown;       ///< the graph drawn
  views::GraphLayoutPtr m_layout;
  QVector<QGraphicsItem*> m_nodeItems; ///< drawn graph node → its item
  QVector<QGraphicsItem*> m_edgeItems; ///< drawn graph edge → its item (null: no geometry)
  bool m_fitted = false;
  bool m_quiet = false; ///< programmatic selection: no activation signals
  bool m_centreCurrent = false; ///< centre m_current once the pending layout is drawn
  Timings m_timings;
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
