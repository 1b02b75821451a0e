// The application icon: the SVG resource rendered at the desktop sizes.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/AppIcon.h"

#include <QPainter>
#include <QPixmap>
#include <QSvgRenderer>

// A resource compiled into a static library is dropped by the linker unless something refers to
// it: Q_INIT_RESOURCE is that reference. It must be called outside any namespace.
static void initCakeResources() {
  Q_INIT_RESOURCE(resources);
}

namespace cake::widgets {

QString applicationIconPath() {
  return QStringLiteral(":/cake/icons/cake-workbench.svg");
}

QImage renderApplicationIcon(int size) {
  initCakeResources();
  QSvgRenderer renderer(applicationIconPath());
  if (!renderer.isValid() || size <= 0)
    return {};
  QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  renderer.render(&painter);
  painter.end();
  return image;
}

QIcon applicationIcon() {
  QIcon icon;
  for (int size : {16, 24, 32, 48, 64, 128, 256}) {
    QImage image = renderApplicationIcon(size);
    if (!image.isNull())
      icon.addPixmap(QPixmap::fromImage(image));
  }
  return icon;
}

} // namespace cake::widgets
