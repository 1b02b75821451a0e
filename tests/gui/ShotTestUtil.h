// Shared helpers of the tests that start `cake-workbench --screenshot` (and the `cake` CLI) as a
// process: run it offscreen and wait, read back the picture's colours and the layout report.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

namespace cake::test::shot {

/// How the started process sees a display.
enum class Display {
  Offscreen, ///< QT_QPA_PLATFORM=offscreen, as the tests render
  None,      ///< no QT_QPA_PLATFORM, DISPLAY or WAYLAND_DISPLAY: a machine without any display
};

/// Runs `program` with `args` and waits up to `timeoutMs`. Returns its exit code, -1 when it did
/// not finish in time, -2 when it crashed; `output` (when given) gets stdout then stderr.
inline int run(const QString& program, const QStringList& args, QString* output, int timeoutMs,
               Display display = Display::Offscreen) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  if (display == Display::Offscreen) {
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  } else {
    for (const char* var : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
      env.remove(QString::fromLatin1(var));
  }
  p.setProcessEnvironment(env);
  p.start(program, args);
  const bool finished = p.waitForFinished(timeoutMs);
  if (output)
    *output = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
  if (!finished)
    return -1;
  return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
}

#ifdef CAKE_WORKBENCH
/// Runs the workbench the test was built against (CAKE_WORKBENCH), as run() does.
inline int workbench(const QStringList& args, QString* output, int timeoutMs,
                     Display display = Display::Offscreen) {
  return run(QStringLiteral(CAKE_WORKBENCH), args, output, timeoutMs, display);
}

/// Runs `cake-workbench --screenshot TMP/x.png ARGS`, which must refuse its arguments: empty
/// when it exits with code 2 and its output contains `message`, else what it did instead.
inline QString refusal(const QStringList& args, const QString& message, int timeoutMs) {
  QTemporaryDir dir;
  QString out;
  const int code =
      workbench(QStringList{"--screenshot", dir.filePath("x.png")} + args, &out, timeoutMs);
  if (code != 2)
    return QStringLiteral("exit code %1, not 2: %2").arg(code).arg(out);
  if (!out.contains(message))
    return QStringLiteral("no '%1' in: %2").arg(message, out);
  return {};
}
#endif

/// Pixels of exactly this colour (alpha ignored).
inline int countPixels(const QImage& img, QRgb colour) {
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x)
      n += (img.pixel(x, y) & 0xffffff) == (colour & 0xffffff);
  return n;
}

/// Distinct colours in a sample every `step` pixels: a blank image has one or two.
inline int colourCount(const QImage& img, int step) {
  QSet<QRgb> colours;
  for (int y = 0; y < img.height(); y += step)
    for (int x = 0; x < img.width(); x += step)
      colours.insert(img.pixel(x, y));
  return int(colours.size());
}

/// The layout report `--layout-report PATH` wrote, as JSON; empty when there is none (`why`
/// says so).
inline QJsonObject readLayoutReport(const QString& path, QString* why) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    *why = QStringLiteral("no report written");
    return {};
  }
  return QJsonDocument::fromJson(f.readAll()).object();
}

} // namespace cake::test::shot
