// The application icon, rendered from the SVG compiled into the binary (resources/resources.qrc).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QIcon>
#include <QImage>
#include <QString>

namespace cake::widgets {

/// Resource path of the application icon's SVG source.
QString applicationIconPath();

/// The icon's SVG rendered into a transparent `size`×`size` image; a null image when the
/// resource is missing or does not parse.
QImage renderApplicationIcon(int size);

/// The application icon at the usual desktop sizes (16 … 256 px). Rendered here through
/// QSvgRenderer rather than left to Qt's SVG icon-engine plugin, so a missing plugin cannot
/// leave the window without an icon. Null only when the resource is missing.
QIcon applicationIcon();

} // namespace cake::widgets
