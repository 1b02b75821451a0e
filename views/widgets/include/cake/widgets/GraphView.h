// The IR graph view: operations per warp role as nodes, data and barrier edges, clusters per
// role and loop, laid out on the serialized Graphviz worker and drawn in a QGraphicsView with
// pan/zoom, fit, a minimap, search, keyboard navigation, collapse/expand, finding overlays and
// SVG/PNG/DOT export. Follows and drives the shared selection.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompareData.h"
#include "cake/views/GraphLayoutWorker.h"
#include "cake/views/SelectionModel.h"

#include <QHash>
#include <QSet>
#include <QWidget>

class QGraphicsScene;
class QGraphicsView;
class QLabel;
class QLineEdit;
class QToolButton;

namespace cake::widgets {

class GraphCanvas;
class GraphMinimap;
class NodeItem;
class EdgeItem;
class ClusterItem;

class GraphView : public QWidget {
  Q_OBJECT
public:
  explicit GraphView(views::SelectionModel* selection, QWidget* parent = nullptr);
  ~GraphView() override;

protected:
  /// Claims Ctrl+F (QKeySequence::Find) on the canvas and the search field, before any window
  /// shortcut of the same key sees it.
  bool eventFilter(QObject* watched, QEvent* event) override;

public:

  /// Shows the graph of a snapshot (the layout follows asynchronously).
  void setSnapshot(const views::CheckSnapshotPtr& snapshot);
  /// The predicted cost share of each operation (costShares()) for the check with job id
  /// `checkJob`; drawn on the nodes of that check's graph while the cost overlay is on.
  void setCostShares(quint64 checkJob, const QHash<int, double>& shares);
  /// The share drawn on an operation's node, or -1 (overlay off, no estimate of this check).
  double costShare(int op) const;
  void setCostOverlay(bool on);
  /// Diff marks of a comparison (Compare view): operations added / removed / changed get a
  /// coloured outline and a +, − or ~ tag, edges present on this side only a thick colour.
  /// Empty marks: none drawn.
  void setDiffMarks(const views::GraphMarks& marks);
  /// The mark drawn on an operation's nodes (views::DiffMark as int; 0: none).
  int diffMark(int op) const { return int(m_diffOps.value(op)); }
  /// Edges drawn as present on this side only.
  int markedEdges() const;
  /// Edge labels drawn, in scene coordinates (index-aligned with nothing: one per drawn label;
  /// labels without a free place are left to the edges' tool tips, views::placeEdgeLabels).
  QVector<QRectF> shownEdgeLabels() const;
  /// Scrolls to the first operation with a diff mark (program order); false when none.
  bool centerOnFirstMark();
  bool costOverlay() const { return m_costOverlay; }
  /// Options for the next layouts (tests inject Graphviz failures here).
  void setLayoutOptions(const views::LayoutOptions& options);
  /// Graphs with more nodes open with their loops collapsed (0: never).
  void setCollapseThreshold(int nodes) { m_collapseThreshold = nodes; }

  /// A layout was requested and has not been drawn yet.
  bool layoutPending() const;
  /// Job id of the snapshot whose layout is drawn (0 before the first).
  quint64 shownSnapshot() const { return m_shownSnapshot; }
  const views::GraphDescription* graph() const { return m_graph.get(); }
  const views::GraphLayout* layout() const { return m_layout.get(); }
  QGraphicsView* canvas() const;
  QGraphicsScene* scene() const { return m_scene; }

  /// Index (into graph()) of the current node, or -1.
  int currentNode() const { return m_current; }
  /// Makes a node current and selects its operation everywhere.
  void selectNode(int node);
  void navigate(views::NavDirection direction);
  void fitToView();
  bool fitted() const { return m_fitted; }

  /// Highlights nodes whose name, operands or id contain `text`; returns the match count.
  int setSearchText(const QString& text);
  /// Moves to the next (or previous) match and selects it.
  void findNext(bool backwards = false);
  /// Puts the keyboard focus in the search field (what Ctrl+F does inside the graph).
  void focusSearch();
  int searchMatches() const { return int(m_matches.size()); }
  int currentMatch() const { return m_matchIndex; }

  void setCollapsed(const QSet<QString>& clusters);
  const QSet<QString>& collapsed() const { return m_collapsed; }
  /// Collapses an expanded cluster or expands a collapsed one (re-layout).
  void toggleCluster(const QString& cluster);

  bool exportSvg(const QString& path, QString* error = nullptr) const;
  bool exportPng(const QString& path, QString* error = nullptr) const;
  bool exportDot(const QString& path, QString* error = nullptr) const;

  /// A role's node fill in the application palette's variant (views::ViewPalette::role).
  static QColor roleColor(int role);
  /// The canvas background: views::ViewPalette's, light or dark after the widget palette.
  QColor canvasColor() const;

Q_SIGNALS:
  /// A layout of the snapshot with this job id has been drawn.
  void layoutShown(quint64 snapshotJob);

protected:
  void resizeEvent(QResizeEvent* event) override;
  /// A palette change (--dark, a desktop theme switch) repaints the scene in the new variant.
  void changeEvent(QEvent* event) override;

private:
  friend class GraphCanvas;
  void requestLayout();
  void onLayoutFinished(quint64 job, views::GraphPtr graph, views::GraphLayoutPtr layout);
  void buildScene();
  void onSelectionChanged(const views::Selection& selection, views::SelectionOrigin origin);
  void setCurrent(int node, bool center);
  void updateHighlights();
  void updateStatus();
  void placeOverlays();
  int nodeForOp(int op, int role) const;
  void userMovedView();

  views::SelectionModel* m_selection;
  views::GraphLayoutWorker m_worker;
  views::LayoutOptions m_options;
  views::CheckSnapshotPtr m_snapshot;
  std::shared_ptr<const views::GraphDescription> m_full; ///< the snapshot's whole graph
  views::GraphPtr m_graph;        ///< what is drawn (collapsed clusters applied)
  views::GraphLayoutPtr m_layout; ///< its layout
  quint64 m_requestedSnapshot = 0;
  quint64 m_shownSnapshot = 0;
  QSet<QString> m_collapsed;
  int m_collapseThreshold = 800;
  bool m_autoCollapse = true; ///< the next layout folds loops of a large graph
  bool m_fitted = true;
  bool m_showLegend = true;
  bool m_costOverlay = true;
  quint64 m_costCheck = 0;        ///< check job of the shares
  QHash<int, double> m_costShares; ///< op → share of the predicted time
  QHash<int, views::DiffMark> m_diffOps; ///< op → diff mark (Compare view)
  QSet<QString> m_diffEdges;             ///< views::edgeDiffKey of edges on this side only
  views::DiffMark m_edgeMark = views::DiffMark::Changed;
  QToolButton* m_costButton = nullptr;
  int m_current = -1;
  QString m_currentId; ///< kept across layouts
  QVector<int> m_matches;
  int m_matchIndex = -1;
  QString m_search;

  QGraphicsScene* m_scene;
  GraphCanvas* m_canvas;
  GraphMinimap* m_minimap;
  QWidget* m_legend;
  QLineEdit* m_searchField;
  QLabel* m_searchCount;
  QLabel* m_status;
  QVector<NodeItem*> m_nodeItems;
  QVector<EdgeItem*> m_edgeItems;
  QVector<ClusterItem*> m_clusterItems;
};

} // namespace cake::widgets
