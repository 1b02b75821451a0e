// Lowered-code view: IR and lowered text side by side, line-mapped highlights, ptxas report.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/LoweredCodeView.h"

#include "cake/views/CakeHighlighter.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFontDatabase>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTextBlock>
#include <QVBoxLayout>

namespace cake::widgets {

namespace {

QPlainTextEdit* codePane(QWidget* parent, const QString& name) {
  auto* e = new QPlainTextEdit(parent);
  e->setObjectName(name);
  e->setReadOnly(true);
  e->setLineWrapMode(QPlainTextEdit::NoWrap);
  e->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  e->setTabStopDistance(QFontMetricsF(e->font()).horizontalAdvance(QLatin1Char(' ')) * 4);
  e->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  return e;
}

QColor highlightColour(const QWidget* w) {
  QColor c = w->palette().color(QPalette::Highlight);
  c.setAlpha(w->palette().color(QPalette::Base).lightness() < 128 ? 110 : 70);
  return c;
}

void scrollTo(QPlainTextEdit* e, int line) {
  QTextBlock b = e->document()->findBlockByNumber(line - 1);
  if (!b.isValid())
    return;
  QTextCursor c(b);
  e->setTextCursor(c);
  e->centerCursor();
}

} // namespace

LoweredCodeView::LoweredCodeView(views::SelectionModel* selection, QWidget* parent)
    : QWidget(parent), m_selection(selection), m_selector(new QComboBox(this)),
      m_showCuda(new QPushButton(tr("Show CUDA C++ instead"), this)), m_status(new QLabel(this)),
      m_source(codePane(this, QStringLiteral("loweredSourcePane"))),
      m_code(codePane(this, QStringLiteral("loweredCodePane"))), m_resources(new QLabel(this)),
      m_hideLoc(new QCheckBox(tr("hide .loc"), this)),
      m_hideAsm(new QCheckBox(tr("hide inline-asm markers"), this)) {
  setObjectName(QStringLiteral("loweredCodeView"));
  m_selector->setObjectName(QStringLiteral("loweredEmitSelector"));
  for (views::LoweredEmit e : {views::LoweredEmit::Ptx, views::LoweredEmit::LlvmIr,
                               views::LoweredEmit::Cuda, views::LoweredEmit::Sass})
    m_selector->addItem(views::loweredEmitName(e), int(e));
  m_showCuda->setObjectName(QStringLiteral("showCudaButton"));
  m_showCuda->hide();
  m_status->setObjectName(QStringLiteral("loweredStatus"));
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_resources->setObjectName(QStringLiteral("ptxasResources"));
  m_resources->setWordWrap(true);
  m_resources->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* highlighter = new views::CakeHighlighter(m_source->document());
  highlighter->setObjectName(QStringLiteral("loweredSourceHighlighter"));

  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Lowered to:"), this));
  bar->addWidget(m_selector);
  bar->addWidget(m_showCuda);
  bar->addWidget(m_status, 1);
  // The PTX filters on their own row: one row of everything made the dock (and the right dock
  // area it shares) 476 px wide, squeezing the editor on half a 1920x1080 screen (B5/B6).
  auto* filters = new QHBoxLayout;
  filters->addWidget(m_hideLoc);
  filters->addWidget(m_hideAsm);
  filters->addStretch(1);
  m_hideLoc->setObjectName(QStringLiteral("hideLocFilter"));
  m_hideLoc->setToolTip(tr("PTX: hide the .loc line-info directives (the IR links stay)"));
  m_hideAsm->setObjectName(QStringLiteral("hideAsmMarkersFilter"));
  m_hideAsm->setToolTip(tr("PTX: hide the '// begin inline asm' / '// end inline asm' comments"));
  auto filterChanged = [this] {
    views::LoweredFilter f;
    f.hideLoc = m_hideLoc->isChecked();
    f.hideAsmMarkers = m_hideAsm->isChecked();
    setFilter(f);
  };
  connect(m_hideLoc, &QCheckBox::toggled, this, filterChanged);
  connect(m_hideAsm, &QCheckBox::toggled, this, filterChanged);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(m_source);
  split->addWidget(m_code);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addLayout(filters);
  layout->addWidget(split, 1);
  layout->addWidget(m_resources);

  connect(m_selector, &QComboBox::currentIndexChanged, this, [this](int index) {
    auto e = views::LoweredEmit(m_selector->itemData(index).toInt());
    if (e == m_emit)
      return;
    m_emit = e;
    m_hideLoc->setVisible(m_emit == views::LoweredEmit::Ptx);
    m_hideAsm->setVisible(m_emit == views::LoweredEmit::Ptx);
    if (m_check)
      Q_EMIT emitRequested(m_emit);
    showMessage(m_check ? tr("lowering to %1…").arg(views::loweredEmitName(m_emit))
                        : tr("no kernel checked yet"));
  });
  connect(m_showCuda, &QPushButton::clicked, this,
          [this] { setEmitKind(views::LoweredEmit::Cuda); });
  connect(m_code, &QPlainTextEdit::cursorPositionChanged, this, [this] {
    if (!m_internal)
      activateLoweredLine(m_shown.originalLine(m_code->textCursor().blockNumber() + 1));
  });
  connect(m_source, &QPlainTextEdit::cursorPositionChanged, this, [this] {
    if (m_internal)
      return;
    int line = m_source->textCursor().blockNumber() + 1;
    highlight(line, false, true);
    m_selection->selectLine(line, views::SelectionOrigin::Code);
  });
  connect(m_selection, &views::SelectionModel::selectionChanged, this,
          &LoweredCodeView::onSelectionChanged);
  showMessage(tr("no kernel checked yet"));
  renderResources();
}

void LoweredCodeView::setEmitKind(views::LoweredEmit kind) {
  m_selector->setCurrentIndex(m_selector->findData(int(kind)));
}

void LoweredCodeView::setCheck(const views::CheckSnapshotPtr& snapshot) {
  m_check = snapshot;
  m_internal = true;
  m_source->setPlainText(snapshot ? snapshot->text : QString());
  m_internal = false;
  if (!snapshot) {
    showMessage(tr("no kernel checked yet"));
  } else if (!snapshot->result.accepted) {
    int blocking = 0;
    for (const Diagnostic& d : snapshot->result.diagnostics)
      blocking += d.severity == Severity::Blocking;
    showMessage(tr("Not lowered: the kernel is refused (%1 blocking finding(s)); lowering needs an "
                   "accepted "
                   "kernel.")
                    .arg(blocking));
  } else {
    showMessage(tr("lowering to %1…").arg(views::loweredEmitName(m_emit)));
  }
  m_showCuda->hide();
  renderResources();
  highlight(m_selection->sourceOf(m_selection->current()).line, true, true);
}

void LoweredCodeView::showMessage(const QString& text) {
  m_shown = {};
  m_status->setText(text);
  m_internal = true;
  m_code->setLineWrapMode(QPlainTextEdit::WidgetWidth); // a message, not code
  m_code->setPlainText(text);
  m_internal = false;
  m_lowered.reset();
}

void LoweredCodeView::setLowered(const views::LowerSnapshotPtr& lowered) {
  if (!lowered || !m_check || lowered->checkJob != m_check->jobId || lowered->kind != m_emit)
    return; // another check's or another selector choice's code
  m_lowered = lowered;
  m_internal = true;
  m_code->setLineWrapMode(lowered->ok ? QPlainTextEdit::NoWrap : QPlainTextEdit::WidgetWidth);
  if (lowered->ok) {
    showCode();
    m_status->setText(tr("%1 of %2 for %3: %4 lines, %5 mapped to the IR (lowered in %6 ms)")
                          .arg(views::loweredEmitName(lowered->kind),
                               QString::fromStdString(lowered->check->result.model.name),
                               lowered->target)
                          .arg(lowered->text.count('\n'))
                          .arg(lowered->lines.mappedLines())
                          .arg(lowered->elapsedMs));
  } else {
    m_shown = {};
    m_code->setPlainText(lowered->unavailable);
    m_status->setText(
        lowered->cudaOffered ? tr("%1: no LLVM path for %2 — the CUDA export works")
                                   .arg(views::loweredEmitName(lowered->kind), lowered->target)
        : lowered->toolMissing
            ? tr("SASS: no disassembler — install the pip package nvidia-cuda-nvdisasm or set "
                 "CAKE_NVDISASM (details below)")
            : lowered->unavailable.section('\n', 0, 0));
  }
  m_internal = false;
  m_showCuda->setVisible(lowered->cudaOffered);
  renderResources();
  highlight(m_selection->sourceOf(m_selection->current()).line, false, true);
}

void LoweredCodeView::showCode() {
  bool ptx = m_lowered && m_lowered->ok && m_lowered->kind == views::LoweredEmit::Ptx;
  m_shown = views::filterLowered(m_lowered && m_lowered->ok ? m_lowered->text : QString(),
                                 ptx ? m_filter : views::LoweredFilter{});
  bool internal = m_internal;
  m_internal = true;
  m_code->setPlainText(m_shown.text);
  m_internal = internal;
}

void LoweredCodeView::setFilter(const views::LoweredFilter& filter) {
  m_filter = filter;
  {
    const QSignalBlocker a(m_hideLoc), b(m_hideAsm);
    m_hideLoc->setChecked(filter.hideLoc);
    m_hideAsm->setChecked(filter.hideAsmMarkers);
  }
  if (!m_lowered || !m_lowered->ok)
    return;
  showCode();
  highlight(m_line, false, true);
}

int LoweredCodeView::shownLine(int loweredLine) const {
  return m_shown.shownLine(loweredLine);
}

void LoweredCodeView::setPtxas(const views::PtxasSnapshotPtr& report) {
  if (!report || !m_check || report->checkJob != m_check->jobId)
    return;
  m_ptxas = report;
  renderResources();
}

bool LoweredCodeView::ready() const {
  if (!m_check)
    return false;
  if (!m_check->result.accepted)
    return true;
  if (!m_lowered || m_lowered->checkJob != m_check->jobId || m_lowered->kind != m_emit)
    return false;
  if (m_emit != views::LoweredEmit::Ptx || !m_lowered->ok)
    return true;
  return m_ptxas && m_ptxas->lowerJob == m_lowered->jobId;
}

void LoweredCodeView::renderResources() {
  bool current = m_ptxas && m_check && m_ptxas->checkJob == m_check->jobId;
  if (!m_check || !m_check->result.accepted) {
    m_resources->setText(tr("ptxas: no lowered code"));
    return;
  }
  if (m_emit == views::LoweredEmit::Sass) {
    renderSassResources();
    return;
  }
  if (!current) {
    bool running = m_lowered && m_lowered->ok && m_lowered->kind == views::LoweredEmit::Ptx;
    m_resources->setText(running ? tr("ptxas: running…")
                         : m_emit == views::LoweredEmit::Ptx && m_lowered && !m_lowered->ok
                             ? (m_lowered->cudaOffered
                                    ? tr("ptxas: no PTX to assemble — select SASS for nvcc's "
                                         "resource report of the CUDA export")
                                    : tr("ptxas: no PTX to assemble"))
                             : tr("ptxas: select PTX to assemble the LLVM path's output and see "
                                  "its resource usage"));
    return;
  }
  const views::PtxasSnapshot& p = *m_ptxas;
  if (!p.ok) {
    m_resources->setText(tr("ptxas: %1").arg(p.message));
    return;
  }
  QStringList parts;
  for (const lower::PtxasEntry& e : p.entries)
    parts << tr("<b>%1</b>: %2 registers, %3 B spill stores / %4 B spill loads, %5 B static smem + "
                "%6 B dynamic (derived), "
                "%7 barriers, %8 B stack")
                 .arg(QString::fromStdString(e.name).toHtmlEscaped())
                 .arg(e.registers)
                 .arg(e.spillStores)
                 .arg(e.spillLoads)
                 .arg(e.smemBytes)
                 .arg(p.derivedSmemBytes)
                 .arg(e.barriers)
                 .arg(e.stackFrame);
  for (const lower::RoleNeed& r : p.roles)
    parts << (r.need < 0 ? tr("role %1: budget %2 registers, need not measured")
                               .arg(QString::fromStdString(r.role))
                               .arg(r.budget)
                         : tr("role %1: budget %2 registers, needs %3%4")
                               .arg(QString::fromStdString(r.role))
                               .arg(r.budget)
                               .arg(r.need)
                               .arg(r.need > r.budget ? tr(" <b>(over budget)</b>") : QString()));
  parts << (p.findings.isEmpty() ? tr("no contradiction with the IR")
                                 : tr("<b>findings:</b> %1")
                                       .arg(p.findings.join(QStringLiteral("; ")).toHtmlEscaped()));
  m_resources->setTextFormat(Qt::RichText);
  m_resources->setText(tr("ptxas (%1 s): ").arg(p.seconds, 0, 'f', 1) +
                       parts.join(QStringLiteral(" · ")));
}

void LoweredCodeView::renderSassResources() {
  // The SASS job made its own cubin: its compile's report, not the PTX tab's ptxas run.
  const views::LowerSnapshot* l = m_lowered.get();
  m_resources->setTextFormat(Qt::RichText);
  if (!l) {
    m_resources->setText(tr("SASS: compiling and disassembling…"));
    return;
  }
  if (l->compileTool.isEmpty()) {
    m_resources->setText(tr("SASS: no cubin was compiled"));
    return;
  }
  QStringList parts;
  for (const lower::PtxasEntry& e : l->compileEntries)
    parts << tr("<b>%1</b>: %2 registers, %3 B spill stores / %4 B spill loads, %5 B static "
                "smem, %6 barriers, %7 B stack")
                 .arg(QString::fromStdString(e.name).toHtmlEscaped())
                 .arg(e.registers)
                 .arg(e.spillStores)
                 .arg(e.spillLoads)
                 .arg(e.smemBytes)
                 .arg(e.barriers)
                 .arg(e.stackFrame);
  if (!l->compiled)
    parts << tr("the compile failed");
  else
    parts << (l->compileFindings.isEmpty()
                  ? tr("no contradiction with the IR")
                  : tr("<b>findings:</b> %1")
                        .arg(l->compileFindings.join(QStringLiteral("; ")).toHtmlEscaped()));
  if (l->toolMissing)
    parts << tr("<b>no nvdisasm</b> (see the pane)");
  m_resources->setText(tr("%1: ").arg(l->compileTool.toHtmlEscaped()) +
                       parts.join(QStringLiteral(" · ")));
}

QVector<int> LoweredCodeView::highlightedLoweredLines() const {
  if (!m_lowered || !m_lowered->ok || m_line <= 0)
    return {};
  return m_lowered->lines.loweredLines(m_line);
}

void LoweredCodeView::activateLoweredLine(int line) {
  if (!m_lowered || !m_lowered->ok)
    return;
  int source = m_lowered->lines.sourceLine(line);
  if (source <= 0)
    return;
  highlight(source, true, false);
  m_selection->selectLine(source, views::SelectionOrigin::Code);
}

void LoweredCodeView::onSelectionChanged(const views::Selection& selection,
                                         views::SelectionOrigin origin) {
  if (origin == views::SelectionOrigin::Code)
    return;
  highlight(m_selection->sourceOf(selection).line, true, true);
}

void LoweredCodeView::highlight(int sourceLine, bool scrollSource, bool scrollCode) {
  m_line = sourceLine;
  QColor c = highlightColour(this);
  auto lineSelection = [&](QPlainTextEdit* e, int line) {
    QTextEdit::ExtraSelection s;
    s.format.setBackground(c);
    s.format.setProperty(QTextFormat::FullWidthSelection, true);
    s.cursor = QTextCursor(e->document()->findBlockByNumber(line - 1));
    return s;
  };
  QList<QTextEdit::ExtraSelection> src, code;
  if (sourceLine > 0)
    src << lineSelection(m_source, sourceLine);
  QVector<int> lowered = highlightedLoweredLines();
  QVector<int> shown;
  for (int l : lowered)
    if (int s = m_shown.shownLine(l); s > 0)
      shown << s;
  for (int l : shown)
    code << lineSelection(m_code, l);
  m_source->setExtraSelections(src);
  m_code->setExtraSelections(code);
  m_internal = true;
  if (scrollSource && sourceLine > 0)
    scrollTo(m_source, sourceLine);
  if (scrollCode && !shown.isEmpty())
    scrollTo(m_code, shown.first());
  m_internal = false;
}

QString LoweredCodeView::statusText() const {
  return m_status->text();
}
QString LoweredCodeView::resourcesText() const {
  return m_resources->text();
}

void LoweredCodeView::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) {
    if (auto* h = m_source->document()->findChild<views::CakeHighlighter*>())
      h->setDark(palette().color(QPalette::Base).lightness() < 128);
    highlight(m_line, false, false);
  }
  QWidget::changeEvent(event);
}

} // namespace cake::widgets
