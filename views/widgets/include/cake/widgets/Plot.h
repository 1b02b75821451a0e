// A chart in the workbench's own terms (lines, points with labels, error bars, stacked
// horizontal bars, notes), log or linear axes, following the widget palette. The adapter over
// QCustomPlot: only Plot.cpp includes qcustomplot.h.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>

class QCustomPlot;
class QCPGraph;
class QCPItemText;
class QCPItemLine;
class QCPItemRect;

namespace cake::widgets {

class Plot : public QWidget {
  Q_OBJECT
public:
  enum class Marker { Disc, Circle, Diamond, Cross };
  struct BarSeries {
    QString label;
    QColor color;
    QVector<double> values; ///< one per category
  };

  explicit Plot(QWidget* parent = nullptr);

  void clear();
  /// Axes: labels, ranges and scale (log10 when `log`).
  void setAxes(const QString& xLabel, double xMin, double xMax, bool xLog, const QString& yLabel,
               double yMin, double yMax, bool yLog);
  void addLine(const QVector<QPointF>& points, const QColor& color, const QString& legend,
               Qt::PenStyle style = Qt::SolidLine, qreal width = 2);
  /// Returns the set's handle, which pointClicked() names.
  int addPoints(const QVector<QPointF>& points, const QColor& color, const QString& legend,
                Marker marker = Marker::Disc, qreal size = 10);
  /// A vertical bar from yLo to yHi at x, with caps.
  void addErrorBar(double x, double yLo, double yHi, const QColor& color);
  /// Text anchored at a data point (`align`: which side of the text touches the point).
  void addText(const QPointF& at, const QString& text, const QColor& color,
               Qt::Alignment align = Qt::AlignLeft | Qt::AlignBottom, bool bold = false);
  /// Text in the top-left corner of the plot area (notes such as "no measured runs").
  void addNote(const QString& text, const QColor& color = {});
  /// Horizontal stacked bars: categories top to bottom, one series per stacked part;
  /// `toolTips` (one per category) show on hover. A click anywhere on a category's row of
  /// segments (any series) or on its value label emits categoryClicked() (B7).
  void setBars(const QStringList& categories, const QVector<BarSeries>& series,
               const QString& valueLabel, const QStringList& toolTips = {});
  /// The legend, below the plot area: in one row, or wrapped after `columns` entries.
  void setLegendVisible(bool visible, int columns = 0);
  void setTitle(const QString& title);
  /// Redraws (call after changing the content).
  void replot();
  /// Number of drawn items (lines, point sets, bars, texts): tests use it to see content.
  int itemCount() const;
  /// Where a data point is drawn, in the coordinates of the canvas (the child named
  /// "plotCanvas"; tests click there). Valid after replot() of a shown plot.
  QPoint toPixel(const QPointF& data) const;
  /// Restores the ranges of setAxes() / setBars() (also on double click).
  void resetView();
  /// The category whose stacked bar (any segment, or its value label) is under `pos` (plot
  /// canvas pixels), -1 for none.
  int categoryAt(QPointF pos) const;
  /// The pixel rectangle of one segment (`series` in setBars order) of a category's bar on the
  /// plot canvas; empty when the segment has no length or is out of range.
  QRectF segmentRect(int category, int series) const;
  /// Marks a category's bar as the selected one (a band behind it, its label bold); -1: none.
  void setHighlightedCategory(int category);
  int highlightedCategory() const { return m_highlighted; }
  /// The canvas widget that receives the mouse (tests click it).
  QWidget* canvas() const;

Q_SIGNALS:
  /// A bar of category `index` (setBars order) was clicked.
  void categoryClicked(int index);
  /// Point `index` (addPoints order) of the point set `handle` was clicked.
  void pointClicked(int handle, int index);

protected:
  void changeEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

private:
  void applyPalette();
  /// Fits the text to the width: value-axis tick count, elided category labels and title.
  void fitToWidth(int width);
  /// Places the point labels of addText() inside the axis rect without overlap, with leader
  /// lines to labels that moved (views::placeLabels); after every layout.
  void placeLabels();
  struct Label {
    QCPItemText* item = nullptr;
    QCPItemLine* leader = nullptr;
    QPointF at; ///< plot coordinates
    Qt::Alignment align;
    QString text; ///< unelided
  };
  QVector<Label> m_labels;
  QStringList m_categoryNames; ///< setBars() categories, unelided
  QCustomPlot* m_plot;
  QString m_title;
  bool m_legendBelow = false;
  int m_categories = 0;
  QStringList m_toolTips;
  QVector<QCPGraph*> m_pointSets;     ///< addPoints() handles
  QVector<QVector<int>> m_pointOrder; ///< per set: data index → the caller's point index
  QVector<QVector<double>> m_series; ///< the values of setBars, per series
  int m_highlighted = -1;
  int m_pressedCategory = -1;
  QCPItemRect* m_highlight = nullptr;
  double m_range[4] = {0, 1, 0, 1}; ///< x lo, x hi, y lo, y hi as last set
};

} // namespace cake::widgets
