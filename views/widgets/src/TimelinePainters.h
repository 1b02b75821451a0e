// Painting of the timeline's marks, flow arrows, overview strip and measured interval, apart
// from the widget (TimelineView.cpp).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/TimelineData.h"
#include "cake/views/TimelineGeometry.h"
#include "cake/views/ViewPalette.h"

#include <QFont>
#include <QRectF>
#include <QString>

class QPainter;

namespace cake::widgets {

/// The point events of the visible range (sorted by time): triangles for arrivals, complete_tx
/// and commits, a dot for a phase completion; at most one per 3 px of a lane.
void paintMarks(QPainter& p, const views::TimelineGeometry& geo, const views::TimelineData& d,
                const views::ViewPalette& vp);

/// The arrive→wait arrows of the visible range, merged per 8-px bucket of their heads between
/// the same lanes (a heavier arrow labelled with the count); those into `highlighted` blocks
/// stay apart, drawn strong, and their labels are placed first.
void paintFlows(QPainter& p, const views::TimelineGeometry& geo, const views::TimelineData& d,
                const QVector<int>& highlighted, const QFont& font, const views::ViewPalette& vp);

/// The whole trace in `strip`: operation density per pixel column, the findings, and the
/// visible window framed.
void paintOverview(QPainter& p, const views::TimelineGeometry& geo, const views::TimelineData& d,
                   const QRectF& strip, const views::ViewPalette& vp);

/// The measured interval [from, to): a band over `lanes` and `readout` on a plate at
/// `plateTop`, over the interval's middle.
void paintMeasuredArea(QPainter& p, const views::TimelineGeometry& geo, double from, double to,
                       const QString& readout, const QRectF& lanes, double plateTop,
                       const QFont& font, const views::ViewPalette& vp);

} // namespace cake::widgets
