// cake-workbench entry point: interactive window, or `--screenshot` for headless rendering.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSettings>
#include <QTableView>
#include <cstdio>
#include <string_view>

#ifndef CAKE_CORPUS_DIR
#define CAKE_CORPUS_DIR ""
#endif

namespace {

int fail(const QString& message) {
  std::fprintf(stderr, "cake-workbench: %s\n", qPrintable(message));
  return 2;
}

/// Renders the requested view of a window whose check has finished.
QImage render(cake::app::MainWindow& w, const QString& view) {
  if (view == QLatin1String("all"))
    return w.grab().toImage();
  if (view == QLatin1String("editor"))
    return w.centralWidget()->grab().toImage();
  auto* dock = w.findChild<QDockWidget*>(QStringLiteral("findingsDock"));
  return dock->grab().toImage();
}

} // namespace

int main(int argc, char** argv) {
  // --screenshot renders offscreen: it must work without any display.
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--screenshot" && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
      qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("cake-workbench"));
  QApplication::setApplicationName(QStringLiteral("cake-workbench"));
  QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Cake Workbench: read, edit and audit Cake IR kernels."));
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption workspace({"w", "workspace"}, "Workspace directory (default: the bundled corpus).", "dir");
  QCommandLineOption open("open", "Kernel file to open.", "file");
  QCommandLineOption screenshot("screenshot", "Render offscreen to a PNG and exit.", "png");
  QCommandLineOption view("view", "View to render: editor, findings or all (default all).", "view", "all");
  QCommandLineOption size("size", "Window size for --screenshot, WxH (default 1400x900).", "WxH", "1400x900");
  QCommandLineOption registry("registry", "Primitive directory.", "dir");
  QCommandLineOption targets("targets", "Target directory.", "dir");
  parser.addOptions({workspace, open, screenshot, view, size, registry, targets});
  parser.addPositionalArgument("file", "Kernel file to open (same as --open).", "[file]");
  parser.process(app);

  cake::driver::DataPaths paths = cake::driver::defaultDataPaths(QCoreApplication::applicationFilePath().toStdString());
  if (parser.isSet(registry))
    paths.primitives = parser.value(registry).toStdString();
  if (parser.isSet(targets))
    paths.targets = parser.value(targets).toStdString();

  QString ws = parser.isSet(workspace) ? parser.value(workspace) : QStringLiteral(CAKE_CORPUS_DIR);
  QString file = parser.isSet(open) ? parser.value(open)
                                    : parser.positionalArguments().value(0);
  bool headless = parser.isSet(screenshot);
  QString viewName = parser.value(view);
  static const QStringList knownViews{"editor", "findings", "all"};
  static const QStringList laterViews{"graph", "layout", "timeline", "performance", "code"};
  if (headless && laterViews.contains(viewName))
    return fail(QStringLiteral("view '%1' is not built yet (the IR graph, memory layout, timeline, "
                               "performance and lowered-code views belong to the workbench issue); "
                               "available: %2").arg(viewName, knownViews.join(", ")));
  if (headless && !knownViews.contains(viewName))
    return fail(QStringLiteral("unknown view '%1' (available: %2)").arg(viewName, knownViews.join(", ")));
  if (headless) {
    // Screenshots never read or write the user's settings.
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, QDir::tempPath() + "/cake-workbench-shot");
  }

  cake::views::CompileSession session;
  cake::app::MainWindow window(&session);
  window.setWorkspace(ws);
  if (!headless)
    window.restoreLayout();
  session.start(paths);

  if (file.isEmpty())
    file = headless ? window.defaultExample() : QSettings().value("lastFile", window.defaultExample()).toString();
  if (!file.isEmpty()) {
    QString error;
    if (!window.openFile(file, &error)) {
      if (headless)
        return fail(error);
      std::fprintf(stderr, "cake-workbench: %s\n", qPrintable(error));
    }
  }

  if (!headless) {
    window.show();
    return app.exec();
  }

  QStringList wh = parser.value(size).split('x');
  int width = wh.value(0).toInt(), height = wh.value(1).toInt();
  if (wh.size() != 2 || width < 200 || height < 150 || width > 8000 || height > 8000)
    return fail(QStringLiteral("--size must be WxH between 200x150 and 8000x8000"));
  window.resize(width, height);
  window.show();
  // Wait (bounded) for the background check so the picture shows its findings.
  QElapsedTimer timer;
  timer.start();
  bool failed = false;
  QObject::connect(&session, &cake::views::CompileSession::compilerFailed, [&] { failed = true; });
  while (!file.isEmpty() && window.shownJob() == 0 && !failed && timer.elapsed() < 20000)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  if (!file.isEmpty() && window.shownJob() == 0)
    return fail(failed ? QStringLiteral("the compiler data is invalid") : QStringLiteral("timed out waiting for the check"));
  QCoreApplication::processEvents();
  QImage image = render(window, viewName);
  QString out = parser.value(screenshot);
  if (image.isNull() || !image.save(out, "PNG"))
    return fail(QStringLiteral("cannot write '%1'").arg(out));
  std::printf("cake-workbench: wrote %s (%dx%d, view %s)\n", qPrintable(out), image.width(), image.height(), qPrintable(viewName));
  return 0;
}
