// Heat map scale, cell geometry, hit testing and hover text (plain math over an ErrorMap).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/HeatMap.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cake::views {

namespace {

QString writerText(const interp::WrittenBy& w) {
  if (!w.known)
    return QStringLiteral("never written");
  QString s = QStringLiteral("written by line %1:%2 %3 (role %4, %5, CTA %6")
                  .arg(w.line)
                  .arg(w.column)
                  .arg(QString::fromStdString(w.op), QString::fromStdString(w.role),
                       QString::fromStdString(w.instance))
                  .arg(w.cta);
  if (!w.tile.empty()) {
    QStringList t;
    for (std::int64_t v : w.tile)
      t << QString::number(v);
    s += QStringLiteral(", tile [%1]").arg(t.join(QStringLiteral(", ")));
  }
  return s + QLatin1Char(')');
}

} // namespace

HeatScale HeatScale::of(const interp::ErrorMap& map) {
  double hi = 0.0, lo = std::numeric_limits<double>::infinity();
  auto see = [&](double e) {
    if (!std::isfinite(e) || e <= 0.0)
      return;
    hi = std::max(hi, e);
    lo = std::min(lo, e);
  };
  // Tiles carry each tile's largest error; the elements (when kept) the smallest ones too.
  for (const interp::TileError& t : map.tiles)
    see(t.maxAbsError);
  for (float e : map.elements)
    see(e);
  HeatScale s;
  if (hi <= 0.0)
    return s; // nothing finite and non-zero: the default decades
  s.logHi = std::log10(hi);
  s.logLo = std::clamp(std::log10(lo), s.logHi - 8.0, s.logHi - 1.0);
  return s;
}

double HeatScale::position(double error) const {
  if (error == 0.0)
    return -1.0;
  if (!std::isfinite(error) || std::isnan(error))
    return 1.0;
  double span = logHi - logLo;
  double t = span > 0 ? (std::log10(std::fabs(error)) - logLo) / span : 1.0;
  return std::clamp(t, 0.0, 1.0);
}

QColor HeatScale::ramp(double t) {
  // Pale yellow → orange → dark red (ColorBrewer YlOrRd ends): readable on light and dark
  // bases, and monotone in lightness so the magnitude reads without the legend.
  static const QColor stops[] = {QColor(0xff, 0xf3, 0xb0), QColor(0xf3, 0x9c, 0x34),
                                 QColor(0xa5, 0x0f, 0x15)};
  t = std::clamp(t, 0.0, 1.0);
  int i = t < 0.5 ? 0 : 1;
  double u = (t - 0.5 * i) / 0.5;
  const QColor& a = stops[i];
  const QColor& b = stops[i + 1];
  auto mix = [u](int x, int y) { return int(std::lround(x + (y - x) * u)); };
  return QColor(mix(a.red(), b.red()), mix(a.green(), b.green()), mix(a.blue(), b.blue()));
}

QColor HeatScale::colour(double error, bool wrong, const QColor& neutral) const {
  double t = position(error);
  if (t < 0)
    return neutral;
  return ramp(wrong ? 0.5 + 0.5 * t : 0.5 * t);
}

HeatMapGeometry HeatMapGeometry::fit(const interp::ErrorMap& map, bool elements,
                                     const QRectF& bounds, double minStrip) {
  HeatMapGeometry g;
  g.map = &map;
  g.elements = elements && !map.elements.empty();
  std::int64_t rows = g.cellRows(), cols = g.cellCols();
  if (rows <= 0 || cols <= 0 || bounds.width() <= 0 || bounds.height() <= 0)
    return g;
  double cw = bounds.width() / double(cols), ch = bounds.height() / double(rows);
  // Tile cells keep their tiles' shape, within 1:8 .. 8:1 (a softmax's one-row tiles would be
  // slivers, a GEMM's square tiles stay square); element cells are square.
  double aspect =
      g.elements
          ? 1.0
          : std::clamp(double(map.tileCols) / double(std::max<std::int64_t>(1, map.tileRows)),
                       1.0 / 8.0, 8.0);
  double s = std::min(ch, cw / aspect);
  g.cellWidth = s * aspect;
  g.cellHeight = s;
  if (rows == 1) {
    // A vector: use the width, and a strip tall enough to hover.
    g.cellWidth = cw;
    g.cellHeight = std::min(bounds.height(), std::max(minStrip, s));
  }
  double w = g.cellWidth * double(cols), h = g.cellHeight * double(rows);
  g.area = QRectF(bounds.left() + (bounds.width() - w) / 2,
                  bounds.top() + (bounds.height() - h) / 2, w, h);
  return g;
}

std::int64_t HeatMapGeometry::cellRows() const {
  return !map ? 0 : elements ? map->rows : map->gridRows;
}

std::int64_t HeatMapGeometry::cellCols() const {
  return !map ? 0 : elements ? map->cols : map->gridCols;
}

QRectF HeatMapGeometry::cellRect(std::int64_t row, std::int64_t col) const {
  return QRectF(area.left() + double(col) * cellWidth, area.top() + double(row) * cellHeight,
                cellWidth, cellHeight);
}

QRectF HeatMapGeometry::tileRect(int tile) const {
  if (!map || tile < 0 || std::size_t(tile) >= map->tiles.size())
    return {};
  if (!elements)
    return cellRect(tile / map->gridCols, tile % map->gridCols);
  const interp::TileError& t = map->tiles[std::size_t(tile)];
  return QRectF(cellRect(t.row0, t.col0).topLeft(),
                cellRect(t.row0 + t.rows - 1, t.col0 + t.cols - 1).bottomRight());
}

HeatHit HeatMapGeometry::hit(const QPointF& p) const {
  HeatHit h;
  if (!map || cellWidth <= 0 || cellHeight <= 0 || !area.contains(p))
    return h;
  std::int64_t col = std::int64_t((p.x() - area.left()) / cellWidth);
  std::int64_t row = std::int64_t((p.y() - area.top()) / cellHeight);
  // The right and bottom edges belong to the last cell.
  col = std::min(col, cellCols() - 1);
  row = std::min(row, cellRows() - 1);
  if (elements) {
    const interp::TileError* t = map->tileAt(row, col);
    if (!t)
      return h;
    h.tile = int(t - map->tiles.data());
    h.row = row;
    h.col = col;
    h.element = true;
    return h;
  }
  h.tile = int(row * map->gridCols + col);
  if (std::size_t(h.tile) >= map->tiles.size())
    return HeatHit{};
  h.row = map->tiles[std::size_t(h.tile)].row0;
  h.col = map->tiles[std::size_t(h.tile)].col0;
  return h;
}

QString heatToolTip(const interp::OutputVerdict& o, const HeatMapGeometry& g, const HeatHit& h) {
  if (!g.map || !h.valid() || std::size_t(h.tile) >= g.map->tiles.size())
    return {};
  const interp::TileError& t = g.map->tiles[std::size_t(h.tile)];
  QString name = QString::fromStdString(o.name);
  QStringList lines;
  if (h.element) {
    std::size_t e = std::size_t(h.row * g.map->cols + h.col);
    double err = e < g.map->elements.size() ? g.map->elements[e] : 0.0;
    bool wrong = e < g.map->wrong.size() && g.map->wrong[e];
    lines << QStringLiteral("%1 element (%2, %3): |error| %4%5")
                 .arg(name)
                 .arg(h.row)
                 .arg(h.col)
                 .arg(errorText(err), wrong ? QStringLiteral(" (wrong)") : QString());
  }
  lines << QStringLiteral("tile rows %1–%2, columns %3–%4: %5 of %6 wrong%7")
               .arg(t.row0)
               .arg(t.row0 + t.rows - 1)
               .arg(t.col0)
               .arg(t.col0 + t.cols - 1)
               .arg(t.mismatches)
               .arg(t.rows * t.cols)
               .arg(t.unwritten ? QStringLiteral(", %1 never written").arg(t.unwritten)
                                : QString());
  lines << QStringLiteral("max abs error %1, max rel error %2")
               .arg(errorText(t.maxAbsError), errorText(t.maxRelError));
  if (t.worst >= 0) {
    std::int64_t r = t.worst / std::max<std::int64_t>(1, g.map->cols);
    std::int64_t c = t.worst % std::max<std::int64_t>(1, g.map->cols);
    lines << QStringLiteral("%1 (%2, %3) %4")
                 .arg(t.mismatches ? QStringLiteral("first wrong element")
                                   : QStringLiteral("largest error at"))
                 .arg(r)
                 .arg(c)
                 .arg(writerText(t.writtenBy));
  } else {
    lines << QStringLiteral("exact");
  }
  return lines.join(QLatin1Char('\n'));
}

QString errorText(double v) {
  if (std::isinf(v))
    return QStringLiteral("inf");
  if (std::isnan(v))
    return QStringLiteral("nan");
  return QString::number(v, 'g', 3);
}

} // namespace cake::views
