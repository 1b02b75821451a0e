// The main window's editing and help wiring (B16, B19, B23, item 10): the find and go-to-line
// bars under the editor, Edit > Undo/Redo/Find/Go to Line, Apply of fixes and hints with their
// Δ, the grouped Examples menu, and the Help menu (shortcut reference generated from the
// actions, the documentation).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "MainWindow.h"

#include "cake/Cost/CostModel.h"
#include "cake/Driver/Compiler.h"
#include "cake/views/Actionable.h"
#include "cake/views/ExampleGroups.h"
#include "cake/views/FindingsModel.h"
#include "cake/views/PerformanceData.h"
#include "cake/widgets/CodeEditor.h"
#include "cake/widgets/FindBar.h"
#include "cake/widgets/FindingsPanel.h"
#include "cake/widgets/GoToLineBar.h"
#include "cake/widgets/PerformanceView.h"
#include "cake/widgets/ShortcutReference.h"

#include <QAction>
#include <QApplication>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace cake::app {

void MainWindow::setupEditorBars() {
  // The editor stays the central widget's main child; the bars sit under it and take no
  // room while hidden.
  auto* central = new QWidget(this);
  central->setObjectName(QStringLiteral("editorPane"));
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  m_editor->setParent(central);
  m_findBar = new widgets::FindBar(m_editor, central);
  m_goToLineBar = new widgets::GoToLineBar(m_editor, central);
  layout->addWidget(m_editor, 1);
  layout->addWidget(m_goToLineBar);
  layout->addWidget(m_findBar);
  setCentralWidget(central);
}

void MainWindow::addEditActions(QMenu* edit) {
  QAction* undo = edit->addAction(tr("&Undo"), m_editor, &QPlainTextEdit::undo);
  undo->setObjectName(QStringLiteral("undoAction"));
  undo->setShortcut(QKeySequence::Undo);
  undo->setEnabled(false);
  connect(m_editor, &QPlainTextEdit::undoAvailable, undo, &QAction::setEnabled);
  QAction* redo = edit->addAction(tr("&Redo"), m_editor, &QPlainTextEdit::redo);
  redo->setObjectName(QStringLiteral("redoAction"));
  redo->setShortcut(QKeySequence::Redo);
  redo->setEnabled(false);
  connect(m_editor, &QPlainTextEdit::redoAvailable, redo, &QAction::setEnabled);
  edit->addSeparator();
  QAction* find = edit->addAction(tr("&Find…"), m_findBar, &widgets::FindBar::open);
  find->setShortcut(QKeySequence::Find);
  QAction* next = edit->addAction(tr("Find &Next"), this, [this] {
    if (m_findBar->text().isEmpty())
      m_findBar->open();
    else if (!m_findBar->findNext())
      statusBar()->showMessage(tr("'%1' not found").arg(m_findBar->text()), 3000);
  });
  next->setShortcut(QKeySequence::FindNext);
  QAction* previous = edit->addAction(tr("Find &Previous"), this, [this] {
    if (m_findBar->text().isEmpty())
      m_findBar->open();
    else if (!m_findBar->findPrevious())
      statusBar()->showMessage(tr("'%1' not found").arg(m_findBar->text()), 3000);
  });
  previous->setShortcut(QKeySequence::FindPrevious);
  QAction* line = edit->addAction(tr("&Go to Line…"), m_goToLineBar, &widgets::GoToLineBar::open);
  line->setObjectName(QStringLiteral("goToLineAction"));
  line->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
}

void MainWindow::populateExamples(const QString& dir) {
  m_exampleFiles.clear();
  m_examples->clear();
  const QList<views::ExampleGroup> groups = views::groupExamples(dir);
  // Groups become submenus; the expert kernels (a handful) stay at the top level.
  auto addGroup = [this](QMenu* menu, const views::ExampleGroup& g, auto&& self) -> void {
    for (const views::ExampleGroup& sub : g.groups)
      self(menu->addMenu(tr("%1 (%2)").arg(sub.title).arg(sub.size())), sub, self);
    for (const views::ExampleEntry& e : g.entries) {
      m_exampleFiles.append({e.id, e.path});
      QString p = e.path;
      QAction* a = menu->addAction(e.label, this, [this, p] { openFromUi(p); });
      a->setToolTip(e.id);
    }
  };
  for (const views::ExampleGroup& g : groups) {
    if (&g == &groups.first() && g.groups.isEmpty()) {
      m_examples->addSection(g.title);
      addGroup(m_examples, g, addGroup);
      m_examples->addSeparator();
      continue;
    }
    addGroup(m_examples->addMenu(tr("%1 (%2)").arg(g.title).arg(g.size())), g, addGroup);
  }
  if (m_exampleFiles.isEmpty())
    m_examples->addAction(tr("(no examples in %1)").arg(dir))->setEnabled(false);
}

QString MainWindow::documentationDir() {
  // Installed: PREFIX/share/cake/docs next to the bundled corpus; in the source tree: docs/
  // next to corpus/. Both are the default corpus folder's sibling.
  QDir corpus(QString::fromStdString(
      driver::defaultCorpusDir(QCoreApplication::applicationFilePath().toStdString())));
  QString docs = QDir::cleanPath(corpus.filePath(QStringLiteral("../docs")));
  return QFileInfo::exists(QDir(docs).filePath(QStringLiteral("workbench.md"))) ? docs : QString();
}

void MainWindow::buildHelpMenu() {
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->setObjectName(QStringLiteral("helpMenu"));
  QAction* keys = help->addAction(tr("&Keyboard Shortcuts"), this, [this] { showShortcuts(); });
  keys->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
  QAction* docs = help->addAction(tr("Workbench &Documentation"), this, [this] {
    QString dir = documentationDir();
    if (dir.isEmpty()) {
      QMessageBox::information(this, tr("Documentation"),
                               tr("The documentation is not installed (share/cake/docs)."));
      return;
    }
    QDesktopServices::openUrl(QUrl::fromLocalFile(QDir(dir).filePath("workbench.md")));
  });
  docs->setEnabled(!documentationDir().isEmpty());
  docs->setToolTip(documentationDir());
  help->addSeparator();
  help->addAction(tr("&About Cake Workbench"), this, [this] {
    QMessageBox::about(this, tr("About Cake Workbench"),
                       tr("<p><b>Cake Workbench</b> %1</p><p>Cake IR: typed GPU-kernel schedules, "
                          "checked, costed and lowered.</p><p>GPL-3.0-or-later</p>")
                           .arg(QString::fromStdString(driver::Compiler::version())));
  });
}

QWidget* MainWindow::showShortcuts() {
  if (!m_shortcutDialog) {
    // Non-modal: it can stay open next to the window while the keys are tried.
    auto* dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("shortcutReference"));
    dialog->setWindowTitle(tr("Keyboard Shortcuts"));
    auto* layout = new QVBoxLayout(dialog);
    auto* text = new QTextBrowser(dialog);
    text->setObjectName(QStringLiteral("shortcutText"));
    layout->addWidget(text);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::hide);
    layout->addWidget(buttons);
    dialog->resize(460, 560);
    m_shortcutDialog = dialog;
  }
  // Regenerated each time from the live actions (a shortcut changed since is shown as it is).
  m_shortcutDialog->findChild<QTextBrowser*>(QStringLiteral("shortcutText"))
      ->setHtml(widgets::shortcutReferenceHtml(widgets::collectShortcuts(menuBar(), this)));
  m_shortcutDialog->show();
  m_shortcutDialog->raise();
  return m_shortcutDialog;
}

void MainWindow::setupApply() {
  // Apply (B19): the edit goes through the editor's undo stack; the debounced check that
  // follows the text change re-checks (and re-costs) it, and the status bar gives the Δ.
  auto apply = [this](const QString& what, const views::CheckSnapshotPtr& basedOn,
                      const QList<views::TextReplacement>& edits) {
    const views::CostSnapshotPtr& cost = m_performance->cost();
    if (!basedOn || !m_editor->applyReplacements(basedOn->text, edits)) {
      statusBar()->showMessage(
          tr("%1: the text changed since it was checked; nothing applied").arg(what), 6000);
      return;
    }
    m_applyBefore =
        views::figuresOf(*basedOn, cost && cost->checkJob == basedOn->jobId ? cost.get() : nullptr);
    m_applyWhat = what;
    m_applyPending = true;
    statusBar()->showMessage(tr("%1 applied (Edit > Undo reverts it); re-checking…").arg(what));
  };
  connect(
      m_findingsPanel, &widgets::FindingsPanel::applyFixRequested, this,
      [this, apply](int finding) {
        const views::CheckSnapshotPtr& snap = m_findingsPanel->model()->snapshot();
        if (!snap || finding < 0 || std::size_t(finding) >= snap->result.diagnostics.size())
          return;
        apply(tr("fix of %1")
                  .arg(QString::fromStdString(snap->result.diagnostics[std::size_t(finding)].code)),
              snap, views::fixReplacements(*snap, finding));
      });
  connect(m_performance, &widgets::PerformanceView::applyHint, this,
          [this, apply](const views::CostSnapshotPtr& cost, int index) {
            if (!cost || !cost->estimate || index < 0 ||
                std::size_t(index) >= cost->estimate->hints.size())
              return;
            const cost::Hint& h = cost->estimate->hints[std::size_t(index)];
            apply(tr("hint %1 → %2")
                      .arg(QString::fromStdString(h.decision), QString::fromStdString(h.to)),
                  cost->check, views::hintReplacements(h));
          });
  auto report = [this](const views::CheckSnapshotPtr& check, const views::CostSnapshot* cost) {
    statusBar()->showMessage(
        tr("%1: %2").arg(m_applyWhat,
                         views::applyDelta(m_applyBefore, views::figuresOf(*check, cost))),
        20000);
    m_applyPending = false;
  };
  connect(this, &MainWindow::checkShown, this, [this, report] {
    const views::CheckSnapshotPtr& snap = m_selection->snapshot();
    // A refused result gets no cost job: its Δ is complete now.
    if (m_applyPending && snap && snap->text == m_editor->toPlainText() && !snap->result.accepted)
      report(snap, nullptr);
  });
  connect(m_session, &views::CompileSession::costFinished, this,
          [this, report](const views::CostSnapshotPtr& cost) {
            if (m_applyPending && cost && cost->check &&
                cost->check->text == m_editor->toPlainText())
              report(cost->check, cost.get());
          });
}

} // namespace cake::app
