// cake-workbench entry point: interactive window, or `--screenshot` for headless rendering.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "MainWindow.h"

#include "cake/views/ProgressData.h"
#include "cake/views/LineageController.h"
#include "cake/views/ProposalController.h"
#include "cake/views/RunController.h"
#include "cake/views/RunData.h"
#include "cake/widgets/AppIcon.h"
#include "cake/widgets/ProgressView.h"
#include "cake/widgets/ProposalsView.h"
#include "cake/widgets/TimelineView.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QHash>
#include <QImage>
#include <QMap>
#include <QPainter>
#include <QPalette>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <cstdio>
#include <string_view>


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
  return w.viewDock(view)->grab().toImage();
}

/// Pumps events until `done()` or the deadline; false on timeout.
template <typename Done> bool waitFor(Done done, qint64 timeoutMs) {
  QElapsedTimer timer;
  timer.start();
  while (!done() && timer.elapsed() < timeoutMs)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  return done();
}

} // namespace

int main(int argc, char** argv) {
  // --screenshot renders offscreen, and --help / --version only print: they must work without
  // any display. An interactive start without one says so instead of aborting in Qt.
  bool needsNoDisplay = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a(argv[i]);
    needsNoDisplay |= a == "--screenshot" || a.rfind("--screenshot=", 0) == 0 || a == "--help" ||
                      a == "-h" || a == "--help-all" || a == "--version" || a == "-v";
  }
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    if (needsNoDisplay)
      qputenv("QT_QPA_PLATFORM", "offscreen");
    else if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
      std::fprintf(stderr,
                   "cake-workbench: no display (DISPLAY and WAYLAND_DISPLAY are unset). Render a view "
                   "instead:\n  cake-workbench --screenshot shot.png --view all [--open FILE]\n");
      return 2;
    }
  }
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("cake-workbench"));
  QApplication::setApplicationName(QStringLiteral("cake-workbench"));
  QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
  // Every window inherits the icon; the desktop file name ties the window to the installed
  // resources/cake-workbench.desktop entry on Wayland.
  QApplication::setWindowIcon(cake::widgets::applicationIcon());
  QGuiApplication::setDesktopFileName(QStringLiteral("cake-workbench"));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Cake Workbench: read, edit and audit Cake IR kernels."));
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption corpus("corpus", "Corpus directory: Examples menu, proposals/ and the gate's manifest "
                            "(default: the bundled corpus).", "dir");
  QCommandLineOption workspace({"w", "workspace"},
                               "Workspace store (docs/workspace.md; created when missing): the compiler overlays its "
                               "head, proposals are approved into it (default: <user data dir>/workspace; none for "
                               "--screenshot).",
                               "dir");
  QCommandLineOption openProposal("open-proposal", "Proposal folder to open in the Proposals dock.", "dir");
  QCommandLineOption proposalTab("proposal-tab",
                                 "Tab of the Proposals dock to show: definition, lowering, examples, gate or votes.",
                                 "tab", "definition");
  QCommandLineOption open("open", "Kernel file to open.", "file");
  QCommandLineOption screenshot("screenshot", "Render offscreen to a PNG and exit.", "png");
  QCommandLineOption view("view", "View to render: editor, findings, graph, layout, timeline, performance, code, "
                          "jobs, compare, proposals, progress, runs, lineage, run or all (default all); run runs the kernel on the CPU "
                          "first.",
                          "view", "all");
  QCommandLineOption runCpu("run", "Run the kernel on the CPU (Run > Run on CPU) before rendering: its verdict in "
                            "the findings and the heat map in the run view.");
  QCommandLineOption workload("workload", "Workload contract for --run (default: the corpus manifest case of the "
                              "kernel, as `cake run --device cpu` finds it).", "json");
  QCommandLineOption size("size", "Window size for --screenshot, WxH (default 1400x900).", "WxH", "1400x900");
  QCommandLineOption dark("dark", "Use a dark palette (Fusion style), e.g. to check a --screenshot in dark mode.");
  QCommandLineOption line("line", "Put the editor cursor on this line before rendering (selects its operation).", "n");
  QCommandLineOption compare("compare",
                             "Compare this kernel (older) with the one opened (newer) in the Compare view: "
                             "--compare A.cake B.cake.",
                             "file");
  QCommandLineOption baseline("baseline", "Pin this kernel as the baseline (deltas in the status bar and "
                              "the performance view).", "file");
  QCommandLineOption campaign("campaign", "Campaign to show in the Lineage dock (the first) and the Progress view (repeat, or separate names "
                              "with commas, to overlay several; default: all of the workspace's).",
                              "name");
  QCommandLineOption importCampaign("import-campaign", "Import this campaign folder into the workspace "
                                    "(as `cake campaign import`; repeat for several) before showing it.", "dir");
  QCommandLineOption layoutReport("layout-report",
                                  "With --screenshot: write the window's geometry as JSON (minimum size, dock "
                                  "rectangles and overlaps, editor width, findings rows shown).",
                                  "json");
  QCommandLineOption registry("registry", "Primitive directory.", "dir");
  QCommandLineOption targets("targets", "Target directory.", "dir");
  QCommandLineOption timelineAxis("timeline-axis", "Timeline x axis: time, steps or cluster (every CTA x role "
                                  "of one cluster).", "axis");
  parser.addOptions({corpus, workspace, openProposal, proposalTab, open, screenshot, view, size, dark, line,
                     compare, baseline, campaign, importCampaign, layoutReport, registry, targets, runCpu,
                     workload, timelineAxis});
  parser.addPositionalArgument("file", "Kernel file to open (same as --open).", "[file]");
  parser.process(app);

  cake::driver::DataPaths paths = cake::driver::defaultDataPaths(QCoreApplication::applicationFilePath().toStdString());
  if (parser.isSet(registry))
    paths.primitives = parser.value(registry).toStdString();
  if (parser.isSet(targets))
    paths.targets = parser.value(targets).toStdString();

  QString corpusDir = parser.isSet(corpus) ? parser.value(corpus)
                                            : QString::fromStdString(cake::driver::defaultCorpusDir(
                                                  QCoreApplication::applicationFilePath().toStdString()));
  QString file = parser.isSet(open) ? parser.value(open)
                                    : parser.positionalArguments().value(0);
  bool headless = parser.isSet(screenshot);
  bool fileGiven = !file.isEmpty(); // --compare's newer kernel must be named, never the default
  QString viewName = parser.value(view);
  static const QStringList knownViews{"editor", "findings", "graph",       "layout", "timeline",
                                      "performance", "code", "jobs", "compare", "proposals", "progress", "runs", "lineage", "run",
                                      "all"};
  if (headless && !knownViews.contains(viewName))
    return fail(QStringLiteral("unknown view '%1' (available: %2)").arg(viewName, knownViews.join(", ")));
  if (headless) {
    // Screenshots never read or write the user's settings.
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, QDir::tempPath() + "/cake-workbench-shot");
  }

  if (parser.isSet(dark)) {
    QApplication::setStyle(QStringLiteral("Fusion"));
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    p.setColor(QPalette::WindowText, QColor(0xdd, 0xdd, 0xdd));
    p.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    p.setColor(QPalette::AlternateBase, QColor(0x2a, 0x2a, 0x2a));
    p.setColor(QPalette::Text, QColor(0xdd, 0xdd, 0xdd));
    p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    p.setColor(QPalette::ButtonText, QColor(0xdd, 0xdd, 0xdd));
    p.setColor(QPalette::ToolTipBase, QColor(0x35, 0x35, 0x35));
    p.setColor(QPalette::ToolTipText, QColor(0xdd, 0xdd, 0xdd));
    p.setColor(QPalette::Highlight, QColor(0x2f, 0x65, 0xa8));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0x90));
    p.setColor(QPalette::Mid, QColor(0x50, 0x50, 0x50));
    QApplication::setPalette(p);
  }
  cake::views::CompileSession session;
  cake::app::MainWindow window(&session);
  window.setCorpus(corpusDir);
  if (!headless)
    window.restoreLayout();
  // The workspace store: given, else (interactive only) one in the user's data directory, so
  // approvals persist; a screenshot never creates one the user did not name.
  QString store = parser.value(workspace);
  if (store.isEmpty() && !headless)
    store = QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath("workspace");
  // A screenshot that imports a campaign without a named workspace imports into a throwaway one.
  QTemporaryDir scratch;
  if (store.isEmpty() && parser.isSet(importCampaign))
    store = scratch.path();
  for (const QString& dir : parser.values(importCampaign))
    if (!QFileInfo(dir).isDir())
      return fail(QStringLiteral("--import-campaign: '%1' is not a folder").arg(dir));
  session.start(paths, store);
  window.openWorkspace(store);
  if (parser.isSet(openProposal)) {
    QString dir = parser.value(openProposal);
    if (!QFileInfo(dir).isDir())
      return fail(QStringLiteral("--open-proposal: '%1' is not a folder").arg(dir));
    window.proposals()->addFolder(dir);
    window.proposals()->open(dir);
  }
  static const QStringList proposalTabs{"definition", "lowering", "examples", "gate", "votes"};
  if (!proposalTabs.contains(parser.value(proposalTab)))
    return fail(QStringLiteral("unknown --proposal-tab '%1' (available: %2)")
                    .arg(parser.value(proposalTab), proposalTabs.join(", ")));
  window.proposalsView()->showTab(parser.value(proposalTab));
  if (headless && viewName == QLatin1String("proposals"))
    window.scanProposals();
  // The Progress view alone shows every imported campaign (the Lineage dock is hidden).
  bool progressView = headless && viewName == QLatin1String("progress");
  QStringList campaigns;
  for (const QString& v : parser.values(campaign))
    campaigns << v.split(',', Qt::SkipEmptyParts);
  if (!campaigns.isEmpty())
    window.showProgressCampaigns(campaigns);

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

  if (parser.isSet(compare)) {
    if (!fileGiven)
      return fail(QStringLiteral("--compare A.cake needs the newer kernel too: --compare A.cake B.cake"));
    QString error;
    if (!window.compareFiles(parser.value(compare), file, &error))
      return fail(error);
  } else if (headless && viewName == QLatin1String("compare")) {
    return fail(QStringLiteral("--view compare needs --compare A.cake B.cake"));
  }
  if (parser.isSet(baseline)) {
    QString error;
    if (!window.pinBaselineFile(parser.value(baseline), &error))
      return fail(error);
  }
  // The Lineage dock: import first, then (or else) show the named campaign.
  QString lineageError;
  QObject::connect(window.lineage(), &cake::views::LineageController::failed,
                   [&](const QString& message) { lineageError = message; });
  bool lineageWanted = parser.isSet(importCampaign) || parser.isSet(campaign);
  if (headless && viewName == QLatin1String("lineage") && !lineageWanted)
    return fail(QStringLiteral("--view lineage needs --campaign NAME or --import-campaign DIR"));
  if (lineageWanted && store.isEmpty())
    return fail(QStringLiteral("--campaign needs --workspace DIR"));
  if (parser.isSet(importCampaign)) {
    // One import path (the Lineage dock's controller, one folder after the other); the
    // Progress dock re-reads the store on its `imported` signal.
    for (const QString& dir : parser.values(importCampaign))
      window.importCampaign(QFileInfo(dir).absoluteFilePath());
  } else if (parser.isSet(campaign) && !progressView) {
    window.showCampaign(campaigns.value(0));
  }
  if (progressView)
    window.refreshProgress(); // after the imports asked for, when there are some

  if (!headless) {
    window.show();
    return app.exec();
  }

  QStringList wh = parser.value(size).split('x');
  int width = wh.value(0).toInt(), height = wh.value(1).toInt();
  if (wh.size() != 2 || width < 200 || height < 150 || width > 8000 || height > 8000)
    return fail(QStringLiteral("--size must be WxH between 200x150 and 8000x8000"));
  QDockWidget* single = viewName == QLatin1String("all") || viewName == QLatin1String("editor")
                           ? nullptr
                           : window.viewDock(viewName);
  if (viewName == QLatin1String("editor")) {
    // The editor alone fills the window (squiggles, gutter marks and hover text need no dock).
    for (QDockWidget* d : window.findChildren<QDockWidget*>())
      d->hide();
  }
  if (single) {
    // One view alone, at the requested size (a floating dock on the offscreen screen).
    for (const char* other : {"findings", "graph", "layout", "timeline", "performance", "code", "jobs", "compare",
                              "proposals", "progress", "runs", "lineage", "run"})
      if (QDockWidget* d = window.viewDock(QString::fromLatin1(other)); d && d != single)
        d->hide();
    single->setFloating(true);
    single->resize(width, height);
    single->show();
    single->raise();
  }
  window.resize(width, height);
  window.show();
  // Wait (bounded) for the background check and the graph layout so the picture is complete.
  QElapsedTimer timer;
  timer.start();
  bool failed = false;
  QObject::connect(&session, &cake::views::CompileSession::compilerFailed, [&] { failed = true; });
  // When each kind of job last ended, for the timing line.
  QHash<quint64, cake::views::JobKind> kinds;
  QMap<int, qint64> endedAt;
  QObject::connect(&session, &cake::views::CompileSession::jobQueued,
                   [&](const cake::views::JobInfo& j) { kinds.insert(j.id, j.kind); });
  QObject::connect(&session, &cake::views::CompileSession::jobStateChanged,
                   [&](quint64 id, cake::views::JobState state, const QString&) {
                     if (state != cake::views::JobState::Queued && state != cake::views::JobState::Running)
                       endedAt[int(kinds.value(id))] = timer.elapsed();
                   });
  qint64 checkMs = 0;
  if (!file.isEmpty()) {
    if (!waitFor([&] { return failed || window.shownJob() != 0; }, 30000) || failed)
      return fail(failed ? QStringLiteral("the compiler data is invalid")
                         : QStringLiteral("timed out waiting for the check"));
    checkMs = timer.elapsed();
    if (parser.isSet(line)) {
      bool isNumber = false;
      int lineNumber = parser.value(line).toInt(&isNumber);
      if (!isNumber || lineNumber < 1)
        return fail(QStringLiteral("--line takes a line number of at least 1"));
      window.selection()->selectLine(lineNumber, cake::views::SelectionOrigin::Editor);
    }
    // The graph layout, the cost estimate and (for the code view) lowering + ptxas.
    if (!waitFor([&] { return window.viewsReady(); }, 90000))
      return fail(QStringLiteral("timed out waiting for the views (graph layout, cost estimate, lowering)"));
    if (parser.isSet(timelineAxis)) {
      static const QStringList axes{"time", "steps", "cluster"};
      int axis = int(axes.indexOf(parser.value(timelineAxis)));
      if (axis < 0)
        return fail(QStringLiteral("--timeline-axis takes time, steps or cluster"));
      for (auto* t : window.findChildren<cake::widgets::TimelineView*>())
        t->setAxis(cake::widgets::TimelineView::Axis(axis));
    }
    if (parser.isSet(baseline) &&
        !waitFor([&] { return window.baselineStatus().contains(QStringLiteral("findings")); }, 30000))
      return fail(QStringLiteral("timed out waiting for the baseline delta"));
    if (parser.isSet(baseline))
      std::printf("cake-workbench: baseline: %s\n", qPrintable(window.baselineStatus()));
    if (parser.isSet(runCpu) || viewName == QLatin1String("run")) {
      // Run on CPU, as Ctrl+R does, and wait (bounded) for its verdict.
      if (parser.isSet(workload))
        window.setRunWorkload(parser.value(workload));
      QString error;
      if (!window.runOnCpu(&error))
        return fail(error);
      if (!waitFor([&] { return window.lastRun() != nullptr || window.runJob() == 0; }, 120000) ||
          !window.lastRun())
        return fail(QStringLiteral("timed out waiting for the CPU run"));
      QCoreApplication::processEvents();
      if (!window.lastRun()->result)
        return fail(window.lastRun()->error);
      std::printf("cake-workbench: %s\n", qPrintable(cake::views::runStatusText(*window.lastRun())));
    }
  } else if (parser.isSet(runCpu) || viewName == QLatin1String("run")) {
    return fail(QStringLiteral("--run needs a kernel file"));
  }
  if (parser.isSet(campaign) && parser.isSet(importCampaign) && !progressView) {
    // After the import so that a campaign it just stored is found.
    if (!waitFor([&] { return window.lineage()->pendingJobs() == 0; }, 120000))
      return fail(QStringLiteral("timed out waiting for the campaign import"));
    window.showCampaign(campaigns.value(0));
  }
  if (lineageWanted && !progressView) {
    if (!waitFor([&] { return !lineageError.isEmpty() || window.lineageReady(); }, 120000))
      return fail(QStringLiteral("timed out waiting for the lineage (import, layout)"));
    if (!lineageError.isEmpty())
      return fail(lineageError);
    std::printf("cake-workbench: lineage: %s\n", qPrintable(window.lineageSummary()));
  }
  if (viewName == QLatin1String("proposals")) {
    // The queue, the open proposal's detail and its lowering preview.
    cake::views::ProposalController* p = window.proposals();
    if (!waitFor([&] { return p->pendingJobs() == 0 && p->detail() && p->preview(); }, 90000))
      return fail(QStringLiteral("timed out waiting for the Proposals dock (queue, detail, preview)"));
  }
  if (viewName == QLatin1String("progress")) {
    // The imports (when asked for) and the read of the workspace's campaigns after them.
    if (!waitFor([&] { return !lineageError.isEmpty() || window.progressReady(); }, 120000))
      return fail(QStringLiteral("timed out waiting for the Progress view (campaign import and read)"));
    if (!lineageError.isEmpty())
      return fail(lineageError);
    const cake::views::ProgressStorePtr& read = window.progressView()->store();
    if (!read->error.isEmpty())
      return fail(read->error);
    QStringList known;
    for (const cake::views::ProgressCampaign& c : read->campaigns)
      known << c.name;
    for (const QString& name : campaigns)
      if (!known.contains(name))
        return fail(QStringLiteral("--campaign: no campaign '%1' in the workspace (%2)")
                        .arg(name, known.isEmpty() ? QStringLiteral("it has none") : known.join(", ")));
    std::printf("cake-workbench: progress: %s\n", qPrintable(window.progressView()->summaryText()));
  }
  if (viewName == QLatin1String("runs")) {
    // The workspace's runs read (the store; none without --workspace).
    cake::views::RunController* r = window.runs();
    if (!waitFor([&] { return r->reads() > 0 && !r->reading(); }, 30000))
      return fail(QStringLiteral("timed out waiting for the Runs dock (the workspace's runs)"));
    std::printf("cake-workbench: runs: %d stored%s\n", r->model()->rowCount(),
                r->storeError().isEmpty() ? "" : qPrintable(QStringLiteral(" (%1)").arg(r->storeError())));
  }
  QCoreApplication::processEvents();
  qint64 readyMs = timer.elapsed();
  QImage image = render(window, viewName);
  std::printf("cake-workbench: compiler loaded and kernel checked in %lld ms, all views ready in %lld ms, "
              "rendered in %lld ms\n",
              static_cast<long long>(checkMs), static_cast<long long>(readyMs),
              static_cast<long long>(timer.elapsed()));
  QStringList jobTimes;
  for (auto it = endedAt.cbegin(); it != endedAt.cend(); ++it)
    jobTimes << QStringLiteral("%1 done at %2 ms").arg(cake::views::jobKindName(cake::views::JobKind(it.key()))).arg(it.value());
  if (!jobTimes.isEmpty())
    std::printf("cake-workbench: jobs: %s\n", qPrintable(jobTimes.join(", ")));
  if (parser.isSet(layoutReport)) {
    QFile json(parser.value(layoutReport));
    if (!json.open(QIODevice::WriteOnly) ||
        json.write(QJsonDocument(window.layoutReport()).toJson()) < 0)
      return fail(QStringLiteral("cannot write '%1'").arg(json.fileName()));
  }
  QString out = parser.value(screenshot);
  if (image.isNull() || !image.save(out, "PNG"))
    return fail(QStringLiteral("cannot write '%1'").arg(out));
  std::printf("cake-workbench: wrote %s (%dx%d, view %s)\n", qPrintable(out), image.width(), image.height(), qPrintable(viewName));
  return 0;
}
