// One palette for the painted views (B11): the role, severity, selection, edge, memory and
// timeline colours the graph, timeline and memory views draw with, in a light and a dark
// variant picked from the widget's QPalette, so `--dark` (or a dark desktop) darkens them too.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QPalette>

namespace cake::views {

struct ViewPalette {
  bool dark = false;
  // Surfaces and text of a canvas.
  QColor canvas;     ///< background of the graph, timeline and memory views
  QColor band[2];    ///< alternating lane / row bands
  QColor header;     ///< axis and header strips
  QColor headerEdge; ///< separators, grid lines
  QColor text;       ///< primary text drawn on the canvas
  QColor mutedText;  ///< secondary text (details, axis labels, empty-state messages)
  QColor border;     ///< node and block outlines
  QColor plate;      ///< semi-transparent plate under labels drawn over edges
  QColor onAccent;   ///< text and rings on saturated badges
  QColor hatch;      ///< hatching of collapsed or idle areas
  // Selection and search.
  QColor selection;     ///< selected outline / rubber band
  QColor selectionFill; ///< fill of the selected node
  QColor match;         ///< fill of a search match
  QColor currentMatch;  ///< outline of the current search match
  QColor cost;          ///< cost overlay bars and shares
  // Graph.
  QColor edgeOrder, edgeData, edgeRendezvous, syncTx, syncCommit, syncOther, phaseDone;
  QColor nested[2]; ///< fills of nested (loop, branch) clusters by depth parity
  QColor nestedBorder, nestedText;
  QColor added, removed, changed; ///< Compare marks

  /// Fill of a role's nodes, cluster and lanes (role < 0: no role).
  QColor role(int role) const;
  /// Text and outline colour on a role's fill.
  QColor roleText(int role) const;
  /// blocking 0, report 1, hint 2: readable on `canvas`.
  QColor severity(int severity) const;
  /// Memory view: the n-th buffer's and the n-th region's fills.
  QColor buffer(int n) const;
  QColor chunk(int n) const;
  /// Bank-conflict ways: 1 (none) green, 2 amber, more red.
  QColor conflict(int ways) const;
  /// Timeline block fill by operation family (barrier, copy, MMA, load/store, sync, other).
  QColor opFamily(const QString& primitive) const;
  /// A role cluster's outline and fill (a shade of role(), away from the canvas).
  QColor roleClusterBorder(int role) const;
  QColor roleClusterFill(int role) const;
  /// A label drawn on a plate in an ink colour (an edge's): the plate's outline and the text,
  /// shades of the ink that keep their contrast on the plate.
  QColor labelOutline(const QColor& ink) const;
  QColor labelText(const QColor& ink) const;
  /// Text in the cost colour (percentages on nodes, hot gutter cells), readable on fills.
  QColor costText() const;
  /// `c` with alpha `alpha` (tints of a mark colour over a canvas).
  static QColor tint(QColor c, int alpha);

  static const ViewPalette& light();
  static const ViewPalette& darkPalette();
  /// The variant matching a widget palette: dark when its Base is darker than mid grey.
  static const ViewPalette& forPalette(const QPalette& palette);
};

} // namespace cake::views
