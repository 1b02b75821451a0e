// The output heat map's plain parts: the log colour scale of errors (exact = neutral), the
// geometry of a map's cells (tiles, or elements for a small output) in a rectangle with hit
// testing, and the hover text. Unit tested; the widget only paints with them.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Interp/Run.h"

#include <QColor>
#include <QPointF>
#include <QRectF>
#include <QString>

namespace cake::views {

/// Error magnitude → colour on a log scale over the decades an output's errors span.
struct HeatScale {
  double logLo = -7.0; ///< log10 of the smallest error the ramp distinguishes
  double logHi = 0.0;  ///< log10 of the largest finite error

  /// The scale of an output's map: from its largest finite error down to its smallest non-zero
  /// one, at least one and at most eight decades.
  static HeatScale of(const interp::ErrorMap& map);
  /// -1 for an exact (zero) error, else 0..1 (infinity, NaN or unwritten: 1).
  double position(double error) const;
  /// `neutral` for an exact error; an error within the tolerance on the ramp's first half (pale
  /// yellow to orange by magnitude), a `wrong` one (a tile with mismatches) on its second half
  /// (orange to dark red), so a correct output never shows red whatever its largest error.
  QColor colour(double error, bool wrong, const QColor& neutral) const;
  /// The ramp at position 0..1.
  static QColor ramp(double t);
};

/// What a point of the map is over.
struct HeatHit {
  int tile = -1;         ///< index into ErrorMap::tiles (-1: nothing)
  std::int64_t row = -1; ///< the element (matrix view); in tile mode the tile's first element
  std::int64_t col = -1;
  bool element = false; ///< the map shows elements: row/col name the element under the point
  bool valid() const { return tile >= 0; }
};

/// Cells of a map laid out in `bounds`: one per tile, or one per element (`elements`, only for
/// a map that kept them), centred. Element cells are square; tile cells have their tiles'
/// aspect ratio clamped to 1:8 .. 8:1; a one-row output gets a strip across the width at least
/// `minStrip` pixels high.
struct HeatMapGeometry {
  const interp::ErrorMap* map = nullptr;
  bool elements = false;
  QRectF area;             ///< the cells' rectangle
  double cellWidth = 0.0;  ///< pixels per cell column
  double cellHeight = 0.0; ///< pixels per cell row

  static HeatMapGeometry fit(const interp::ErrorMap& map, bool elements, const QRectF& bounds,
                             double minStrip = 24.0);
  std::int64_t cellRows() const;
  std::int64_t cellCols() const;
  QRectF cellRect(std::int64_t row, std::int64_t col) const;
  /// The rectangle of a tile (in element mode: the box of its elements).
  QRectF tileRect(int tile) const;
  HeatHit hit(const QPointF& point) const;
};

/// Hover text of a hit: the tile (box, wrong / unwritten elements, max errors, the writer of
/// its first wrong or largest-error element: line, role, instance, CTA, tile) and, in element
/// mode, the element's own error.
QString heatToolTip(const interp::OutputVerdict& output, const HeatMapGeometry& geometry,
                    const HeatHit& hit);

/// An error in three significant digits, "inf" and "nan" spelled so (the hover text and the
/// run verdict's rows say errors the same way).
QString errorText(double v);

} // namespace cake::views
