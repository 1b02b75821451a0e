// The painted views' shared colours, light and dark.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/ViewPalette.h"

#include <QString>

namespace cake::views {

namespace {

ViewPalette makeLight() {
  ViewPalette p;
  p.dark = false;
  p.canvas = QColor(0xfb, 0xfc, 0xfe);
  p.band[0] = QColor(0xfd, 0xfd, 0xfe);
  p.band[1] = QColor(0xf6, 0xf8, 0xfb);
  p.header = QColor(0xf1, 0xf3, 0xf6);
  p.headerEdge = QColor(0xd5, 0xda, 0xe2);
  p.text = QColor(0x1d, 0x23, 0x2b);
  p.mutedText = QColor(0x55, 0x5e, 0x6a);
  p.border = QColor(0x7d, 0x8a, 0x9c);
  p.plate = QColor(255, 255, 255, 235);
  p.onAccent = Qt::white;
  p.hatch = QColor(0, 0, 0, 24);
  p.selection = QColor(0x1f, 0x5f, 0xbf);
  p.selectionFill = QColor(0xc9, 0xde, 0xff);
  p.match = QColor(0xff, 0xf0, 0x9e);
  p.currentMatch = QColor(0xe0, 0x8a, 0x00);
  p.cost = QColor(0xe0, 0x6c, 0x10);
  p.edgeOrder = QColor(0xa9, 0xb1, 0xbd);
  p.edgeData = QColor(0x2f, 0x6d, 0xb5);
  p.edgeRendezvous = QColor(0x7a, 0x4f, 0xbf);
  p.syncTx = QColor(0x0e, 0x85, 0x78);
  p.syncCommit = QColor(0xa0, 0x3c, 0xb0);
  p.syncOther = QColor(0xd3, 0x6b, 0x12);
  p.phaseDone = QColor(0x2e, 0x8b, 0x3e);
  p.nested[0] = QColor(0xfa, 0xf6, 0xe6);
  p.nested[1] = QColor(0xff, 0xfd, 0xf3);
  p.nestedBorder = QColor(0xa8, 0x9f, 0x80);
  p.nestedText = QColor(0x6e, 0x63, 0x3a);
  p.added = QColor(0x1e, 0x8e, 0x3e);
  p.removed = QColor(0xc5, 0x22, 0x1f);
  p.changed = QColor(0xd9, 0x82, 0x00);
  return p;
}

ViewPalette makeDark() {
  // Same hues as the light palette; surfaces near the dark window colour (#1e1e1e), fills
  // deep enough for light text, lines and marks lightened to keep their contrast.
  ViewPalette p;
  p.dark = true;
  p.canvas = QColor(0x1b, 0x1d, 0x21);
  p.band[0] = QColor(0x1e, 0x20, 0x24);
  p.band[1] = QColor(0x23, 0x26, 0x2b);
  p.header = QColor(0x2a, 0x2d, 0x33);
  p.headerEdge = QColor(0x3c, 0x41, 0x49);
  p.text = QColor(0xe2, 0xe6, 0xeb);
  p.mutedText = QColor(0xa4, 0xac, 0xb8);
  p.border = QColor(0x6c, 0x77, 0x87);
  p.plate = QColor(0x1b, 0x1d, 0x21, 225);
  p.onAccent = QColor(0x12, 0x14, 0x17);
  p.hatch = QColor(255, 255, 255, 28);
  p.selection = QColor(0x6c, 0xa6, 0xff);
  p.selectionFill = QColor(0x24, 0x45, 0x75);
  p.match = QColor(0x5c, 0x52, 0x18);
  p.currentMatch = QColor(0xff, 0xb3, 0x40);
  p.cost = QColor(0xff, 0x9a, 0x45);
  p.edgeOrder = QColor(0x6a, 0x72, 0x7e);
  p.edgeData = QColor(0x6c, 0xa6, 0xf0);
  p.edgeRendezvous = QColor(0xb3, 0x92, 0xf0);
  p.syncTx = QColor(0x3f, 0xc9, 0xb6);
  p.syncCommit = QColor(0xd7, 0x7c, 0xe6);
  p.syncOther = QColor(0xf0, 0x97, 0x4a);
  p.phaseDone = QColor(0x5c, 0xc7, 0x6c);
  p.nested[0] = QColor(0x2a, 0x27, 0x1c);
  p.nested[1] = QColor(0x30, 0x2c, 0x20);
  p.nestedBorder = QColor(0x8a, 0x80, 0x5e);
  p.nestedText = QColor(0xd8, 0xcb, 0x96);
  p.added = QColor(0x4c, 0xc3, 0x6a);
  p.removed = QColor(0xf2, 0x6b, 0x67);
  p.changed = QColor(0xf5, 0xad, 0x3c);
  return p;
}

} // namespace

QColor ViewPalette::role(int role) const {
  static const QColor light[] = {QColor(0xdc, 0xec, 0xfb), QColor(0xec, 0xe3, 0xf7),
                                 QColor(0xdf, 0xf2, 0xe1), QColor(0xfd, 0xec, 0xd9),
                                 QColor(0xfb, 0xe0, 0xea), QColor(0xd9, 0xf3, 0xf4)};
  static const QColor darkFills[] = {QColor(0x1e, 0x33, 0x4d), QColor(0x31, 0x27, 0x47),
                                     QColor(0x1f, 0x3a, 0x27), QColor(0x47, 0x31, 0x1d),
                                     QColor(0x46, 0x23, 0x31), QColor(0x1b, 0x3c, 0x3f)};
  if (role < 0)
    return dark ? QColor(0x2c, 0x2f, 0x35) : QColor(0xee, 0xee, 0xee);
  return dark ? darkFills[role % 6] : light[role % 6];
}

QColor ViewPalette::roleText(int r) const {
  return dark ? role(r).lighter(330) : role(r).darker(260);
}

QColor ViewPalette::severity(int s) const {
  if (dark)
    return s == 0   ? QColor(0xff, 0x6b, 0x6b)
           : s == 1 ? QColor(0xf0, 0xa0, 0x3c)
                    : QColor(0x62, 0xb0, 0xf0);
  return s == 0   ? QColor(0xd0, 0x30, 0x30)
         : s == 1 ? QColor(0xc0, 0x70, 0x00)
                  : QColor(0x30, 0x80, 0xc0);
}

QColor ViewPalette::buffer(int n) const {
  static const QColor light[] = {QColor(0x8e, 0xb8, 0xe8), QColor(0xb5, 0x9c, 0xe3),
                                 QColor(0x8f, 0xd1, 0xa8), QColor(0xf2, 0xb7, 0x7c),
                                 QColor(0xe8, 0x9c, 0xb9), QColor(0x86, 0xcf, 0xd6),
                                 QColor(0xd6, 0xc8, 0x7a), QColor(0xa9, 0xb8, 0xcc)};
  QColor c = light[(n < 0 ? 0 : n) % 8];
  return dark ? c.darker(215) : c;
}

QColor ViewPalette::chunk(int n) const {
  static const QColor light[] = {QColor(0xdc, 0xea, 0xfb), QColor(0xfb, 0xe3, 0xd0),
                                 QColor(0xdf, 0xf3, 0xe0), QColor(0xf1, 0xe2, 0xf8),
                                 QColor(0xfd, 0xf3, 0xc8), QColor(0xd7, 0xf1, 0xf3),
                                 QColor(0xf9, 0xdc, 0xe4), QColor(0xe6, 0xe8, 0xec)};
  QColor c = light[(n < 0 ? 0 : n) % 8];
  return dark ? c.darker(470) : c;
}

QColor ViewPalette::conflict(int ways) const {
  if (dark)
    return ways <= 1   ? QColor(0x4f, 0xc0, 0x72)
           : ways == 2 ? QColor(0xf0, 0xa3, 0x30)
                       : QColor(0xf2, 0x5c, 0x5c);
  return ways <= 1   ? QColor(0x2e, 0x9b, 0x4f)
         : ways == 2 ? QColor(0xe0, 0x8a, 0x00)
                     : QColor(0xd0, 0x30, 0x30);
}

QColor ViewPalette::opFamily(const QString& name) const {
  QColor c;
  if (name.startsWith(QLatin1String("mbarrier.")))
    c = QColor(0xf3, 0xc1, 0x78);
  else if (name.startsWith(QLatin1String("tma.")) || name.startsWith(QLatin1String("bulk.")) ||
           name.startsWith(QLatin1String("cp.async")))
    c = QColor(0x83, 0xd0, 0xc4);
  else if (name.startsWith(QLatin1String("wgmma.")) || name.startsWith(QLatin1String("tcgen05.")) ||
           name.startsWith(QLatin1String("mma")))
    c = QColor(0xb9, 0xa2, 0xe8);
  else if (name.startsWith(QLatin1String("ld")) || name.startsWith(QLatin1String("st")))
    c = QColor(0x97, 0xbe, 0xec);
  else if (name.contains(QLatin1String("sync")) || name.startsWith(QLatin1String("fence")))
    c = QColor(0xc5, 0xcb, 0xd4);
  else
    c = QColor(0xdb, 0xe1, 0xe9);
  // Dark: the same hue, deep enough for the light label text drawn on it.
  return dark ? c.darker(250) : c;
}

QColor ViewPalette::roleClusterBorder(int r) const {
  return dark ? role(r).lighter(160) : role(r).darker(135);
}

QColor ViewPalette::roleClusterFill(int r) const {
  return dark ? role(r).darker(125) : role(r).lighter(112);
}

QColor ViewPalette::labelOutline(const QColor& ink) const {
  return dark ? ink.darker(150) : ink.lighter(150);
}

QColor ViewPalette::labelText(const QColor& ink) const {
  return dark ? ink.lighter(125) : ink.darker(125);
}

QColor ViewPalette::costText() const {
  return dark ? cost : cost.darker(150);
}

QColor ViewPalette::tint(QColor c, int alpha) {
  c.setAlpha(alpha);
  return c;
}

const ViewPalette& ViewPalette::light() {
  static const ViewPalette p = makeLight();
  return p;
}

const ViewPalette& ViewPalette::darkPalette() {
  static const ViewPalette p = makeDark();
  return p;
}

const ViewPalette& ViewPalette::forPalette(const QPalette& palette) {
  return palette.color(QPalette::Base).lightness() < 128 ? darkPalette() : light();
}

} // namespace cake::views
