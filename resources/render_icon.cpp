// cake-render-icon: renders the application icon's SVG to PNG files (the hicolor sizes) at
// build time, so no raster copy of the icon is kept in the source tree.
// SPDX-License-Identifier: GPL-3.0-or-later
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <cstdio>

// Usage: cake-render-icon ICON.svg SIZE OUT.png [SIZE OUT.png]...
int main(int argc, char** argv) {
  if (argc < 4 || argc % 2 != 0) {
    std::fprintf(stderr, "usage: cake-render-icon ICON.svg SIZE OUT.png [SIZE OUT.png]...\n");
    return 2;
  }
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QGuiApplication app(argc, argv);
  QSvgRenderer renderer(QString::fromLocal8Bit(argv[1]));
  if (!renderer.isValid()) {
    std::fprintf(stderr, "cake-render-icon: %s: not a valid SVG file\n", argv[1]);
    return 1;
  }
  for (int i = 2; i + 1 < argc; i += 2) {
    bool ok = false;
    const int size = QByteArray(argv[i]).toInt(&ok);
    if (!ok || size <= 0 || size > 4096) {
      std::fprintf(stderr, "cake-render-icon: bad size '%s'\n", argv[i]);
      return 2;
    }
    QImage image(size, size, QImage::Format_ARGB32);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    renderer.render(&painter);
    painter.end();
    if (!image.save(QString::fromLocal8Bit(argv[i + 1]), "PNG")) {
      std::fprintf(stderr, "cake-render-icon: cannot write %s\n", argv[i + 1]);
      return 1;
    }
  }
  return 0;
}
