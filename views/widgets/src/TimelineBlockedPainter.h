// Painting of a deadlock's blocked waits on the timeline (TimelineView.cpp draws the rest).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/TimelineData.h"
#include "cake/views/TimelineGeometry.h"
#include "cake/views/ViewPalette.h"

#include <QFont>

class QPainter;

namespace cake::widgets {

/// Each blocked wait of a deadlock: a hatched bar from where its role stopped to the end of
/// the lane, a stop sign (filled on the root cause, hollow and dashed on a consequence), what
/// it waits for and the finding that explains it.
void paintBlockedWaits(QPainter& p, const views::TimelineGeometry& geo,
                       const views::TimelineData& d, const QFont& bold, const QFont& plain,
                       const views::ViewPalette& pal);

} // namespace cake::widgets
