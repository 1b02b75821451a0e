// The Compare view: deltas summary, IR diff with linked scrolling, graph diff, changed items,
// findings diff and PTX diff of a compare snapshot.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/CompareView.h"

#include "cake/views/SelectionModel.h"
#include "cake/views/ViewData.h"
#include "cake/views/ViewPalette.h"
#include "cake/widgets/GraphView.h"

#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTextBlock>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace cake::widgets {

namespace {

// Line backgrounds of the IR diff (light tints; tst_compareshot finds them by colour).
const QColor kRemovedBg(0xfd, 0xd8, 0xd6), kAddedBg(0xd4, 0xf4, 0xdc), kFillerBg(0xee, 0xee, 0xee);

/// The Compare marks of the shared palette (light or dark after `w`'s palette).
const views::ViewPalette& marksOf(const QWidget* w) {
  return views::ViewPalette::forPalette(w->palette());
}

QColor changeColor(diff::ChangeKind kind, const views::ViewPalette& pal) {
  return kind == diff::ChangeKind::Added     ? pal.added
         : kind == diff::ChangeKind::Removed ? pal.removed
                                             : pal.changed;
}

QString esc(const std::string& s) {
  return QString::fromStdString(s).toHtmlEscaped();
}

QString quantity(const diff::Quantity& q, int digits, const QString& unit) {
  auto one = [&](const std::optional<double>& v) {
    return v ? QString::number(*v, 'f', digits) + unit : QStringLiteral("–");
  };
  QString s = one(q.before) + QStringLiteral(" → ") + one(q.after);
  if (q.before && q.after && q.differs()) {
    double d = *q.after - *q.before;
    QString sign = d >= 0 ? QStringLiteral("+") : QString();
    s += QStringLiteral(" (<b>%1%2%3</b>").arg(sign, QString::number(d, 'f', digits), unit);
    if (*q.before != 0)
      s += QStringLiteral(", %1%2%").arg(sign, QString::number(100.0 * d / *q.before, 'f', 1));
    s += QLatin1Char(')');
  }
  return s;
}

void fill(QPlainTextEdit* edit, const QVector<views::DiffRow>& rows, bool left) {
  QStringList lines;
  lines.reserve(rows.size());
  int width = 1;
  for (const views::DiffRow& r : rows)
    width = std::max(width, int(QString::number(left ? r.left : r.right).size()));
  for (const views::DiffRow& r : rows) {
    int n = left ? r.left : r.right;
    QString num = n ? QString::number(n).rightJustified(width) : QString(width, QLatin1Char(' '));
    lines << num + QStringLiteral(" │ ") + (left ? r.leftText : r.rightText);
  }
  edit->setPlainText(lines.join(QLatin1Char('\n')));
  QList<QTextEdit::ExtraSelection> marks;
  QTextBlock block = edit->document()->firstBlock();
  for (const views::DiffRow& r : rows) {
    if (!block.isValid())
      break;
    QColor bg;
    bool present = left ? r.left != 0 : r.right != 0;
    if (!present && r.kind != views::DiffRow::Kind::Common)
      bg = kFillerBg;
    else if (r.kind == views::DiffRow::Kind::Removed ||
             (left && r.kind == views::DiffRow::Kind::Changed))
      bg = kRemovedBg;
    else if (r.kind == views::DiffRow::Kind::Added ||
             (!left && r.kind == views::DiffRow::Kind::Changed))
      bg = kAddedBg;
    if (bg.isValid()) {
      QTextEdit::ExtraSelection sel;
      sel.cursor = QTextCursor(block);
      sel.format.setBackground(bg);
      sel.format.setProperty(QTextFormat::FullWidthSelection, true);
      marks << sel;
    }
    block = block.next();
  }
  edit->setExtraSelections(marks);
}

QTreeWidgetItem* itemRow(QTreeWidget* tree, const diff::ItemChange& c) {
  auto* it = new QTreeWidgetItem(tree);
  QString mark = c.kind == diff::ChangeKind::Added     ? QStringLiteral("+ added")
                 : c.kind == diff::ChangeKind::Removed ? QStringLiteral("− removed")
                                                       : QStringLiteral("~ changed");
  it->setText(0, mark);
  it->setText(1, QString::fromStdString(c.key));
  it->setText(2, QStringLiteral("%1 → %2").arg(
                     c.lineBefore ? QString::number(c.lineBefore) : QStringLiteral("–"),
                     c.lineAfter ? QString::number(c.lineAfter) : QStringLiteral("–")));
  it->setText(3, QString::fromStdString(c.summary));
  it->setForeground(0, changeColor(c.kind, marksOf(tree)));
  for (const diff::FieldChange& f : c.fields) {
    auto* child = new QTreeWidgetItem(it);
    child->setText(1, QString::fromStdString(f.field));
    child->setText(
        3, QStringLiteral("%1 → %2").arg(
               f.before.empty() ? QStringLiteral("(none)") : QString::fromStdString(f.before),
               f.after.empty() ? QStringLiteral("(none)") : QString::fromStdString(f.after)));
  }
  it->setExpanded(true);
  return it;
}

} // namespace

DiffPane::DiffPane(QWidget* parent)
    : QWidget(parent), m_left(new QPlainTextEdit(this)), m_right(new QPlainTextEdit(this)) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(4);
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  for (QPlainTextEdit* e : {m_left, m_right}) {
    e->setReadOnly(true);
    e->setLineWrapMode(QPlainTextEdit::NoWrap);
    e->setFont(mono);
    layout->addWidget(e);
  }
  m_left->setObjectName(QStringLiteral("diffLeft"));
  m_right->setObjectName(QStringLiteral("diffRight"));
  // Linked scrolling: rows correspond one to one, so equal scroll values show equal rows.
  for (auto [from, to] : {std::pair{m_left, m_right}, std::pair{m_right, m_left}}) {
    QPlainTextEdit* target = to;
    connect(from->verticalScrollBar(), &QScrollBar::valueChanged, target,
            [target](int v) { target->verticalScrollBar()->setValue(v); });
    connect(from->horizontalScrollBar(), &QScrollBar::valueChanged, target,
            [target](int v) { target->horizontalScrollBar()->setValue(v); });
  }
}

void DiffPane::setRows(const QVector<views::DiffRow>& rows, const QString& emptyText) {
  m_rows = int(rows.size());
  if (rows.isEmpty()) {
    m_left->setPlainText(emptyText);
    m_right->setPlainText(emptyText);
    m_left->setExtraSelections({});
    m_right->setExtraSelections({});
    return;
  }
  fill(m_left, rows, true);
  fill(m_right, rows, false);
  // Open at the first difference.
  for (int i = 0; i < rows.size(); ++i)
    if (rows[i].kind != views::DiffRow::Kind::Common) {
      QTextCursor c(m_left->document()->findBlockByNumber(std::max(0, i - 3)));
      m_left->setTextCursor(c);
      m_left->verticalScrollBar()->setValue(std::max(0, i - 3));
      break;
    }
}

CompareView::CompareView(QWidget* parent)
    : QWidget(parent), m_selBefore(new views::SelectionModel(this)),
      m_selAfter(new views::SelectionModel(this)), m_summary(new QLabel(this)),
      m_ir(new DiffPane(this)), m_ptx(new DiffPane(this)), m_tabs(new QTabWidget(this)),
      m_graphBefore(new GraphView(m_selBefore, this)),
      m_graphAfter(new GraphView(m_selAfter, this)), m_changes(new QTreeWidget(this)),
      m_findings(new QTreeWidget(this)) {
  setObjectName(QStringLiteral("compareView"));
  m_summary->setObjectName(QStringLiteral("compareSummary"));
  m_summary->setTextFormat(Qt::RichText);
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summary->setText(tr("Nothing compared yet: Compare… (File menu) or "
                        "cake-workbench --view compare --compare A.cake B.cake"));
  m_ir->setObjectName(QStringLiteral("compareIr"));
  m_ptx->setObjectName(QStringLiteral("comparePtx"));
  m_graphBefore->setObjectName(QStringLiteral("compareGraphBefore"));
  m_graphAfter->setObjectName(QStringLiteral("compareGraphAfter"));
  m_changes->setObjectName(QStringLiteral("compareChanges"));
  m_findings->setObjectName(QStringLiteral("compareFindings"));
  m_changes->setHeaderLabels({tr("change"), tr("item"), tr("lines"), tr("statement / old → new")});
  m_findings->setHeaderLabels({tr("change"), tr("code"), tr("at"), tr("message")});
  m_changes->setRootIsDecorated(true);
  m_findings->setRootIsDecorated(false);
  for (QTreeWidget* t : {m_changes, m_findings})
    t->header()->setSectionResizeMode(QHeaderView::ResizeToContents);

  // The marks are what the reader looks for.
  for (GraphView* g : {m_graphBefore, m_graphAfter})
    connect(g, &GraphView::layoutShown, g, [g] {
      g->fitToView();
      // A tall graph opens at its top: scroll to its first change instead.
      g->centerOnFirstMark();
    });
  // Two graph views side by side must fit a small window: their tool bars are clipped rather
  // than widening the dock.
  m_graphBefore->setMinimumWidth(160);
  m_graphAfter->setMinimumWidth(160);
  auto* graphs = new QSplitter(Qt::Horizontal, this);
  graphs->addWidget(m_graphBefore);
  graphs->addWidget(m_graphAfter);
  m_tabs->addTab(graphs, tr("Graph diff"));
  m_tabs->addTab(m_changes, tr("Operations"));
  m_tabs->addTab(m_findings, tr("Findings"));
  m_tabs->addTab(m_ptx, tr("PTX diff"));

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(m_ir);
  split->addWidget(m_tabs);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_summary);
  layout->addWidget(split, 1);
}

void CompareView::setSnapshot(const views::CompareSnapshotPtr& snapshot) {
  m_snapshot = snapshot;
  if (!snapshot || !snapshot->diff)
    return;
  const diff::KernelDiff& d = *snapshot->diff;
  QString left = QFileInfo(QString::fromStdString(d.pathBefore)).fileName();
  QString right = QFileInfo(QString::fromStdString(d.pathAfter)).fileName();
  int appeared = 0;
  for (const diff::FindingChange& f : d.findings)
    appeared += f.appeared;
  QStringList lines;
  lines << tr("<b>%1</b> (%2, %3) → <b>%4</b> (%5, %6) — %7")
               .arg(left.toHtmlEscaped(), esc(d.targetBefore),
                    d.acceptedBefore ? tr("accepted") : tr("refused"), right.toHtmlEscaped(),
                    esc(d.targetAfter), d.acceptedAfter ? tr("accepted") : tr("refused"),
                    d.different() ? tr("<b>different</b>") : tr("no semantic difference"));
  QString bottleneck = d.bottleneckBefore == d.bottleneckAfter
                           ? esc(d.bottleneckAfter)
                           : esc(d.bottleneckBefore) + QStringLiteral(" → <b>") +
                                 esc(d.bottleneckAfter) + QStringLiteral("</b>");
  lines << tr("predicted: %1 · bottleneck: %2 · smem: %3")
               .arg(quantity(d.predictedUs, 2, QStringLiteral(" µs")),
                    bottleneck.isEmpty() ? QStringLiteral("–") : bottleneck,
                    quantity(d.smemBytes, 0, QStringLiteral(" B")));
  QStringList res;
  for (const auto& [role, q] : d.registers)
    if (q.differs())
      res << tr("regs %1: %2")
                 .arg(QString::fromStdString(role).toHtmlEscaped(), quantity(q, 0, {}));
  for (const auto& [pipe, q] : d.stages)
    if (q.differs())
      res << tr("stages %1: %2")
                 .arg(QString::fromStdString(pipe).toHtmlEscaped(), quantity(q, 0, {}));
  QString ptx = d.ptx ? tr("PTX +%1 −%2 lines").arg(d.ptx->added).arg(d.ptx->removed)
                      : tr("PTX not compared (%1)").arg(esc(d.ptxNote));
  res << tr("%1 declaration(s), %2 operation(s) changed · findings +%3 −%4 · IR +%5 −%6 lines · %7")
             .arg(d.decls.size())
             .arg(d.ops.size())
             .arg(appeared)
             .arg(int(d.findings.size()) - appeared)
             .arg(d.ir.added)
             .arg(d.ir.removed)
             .arg(ptx);
  lines << res.join(QStringLiteral(" · "));
  m_summary->setText(lines.join(QStringLiteral("<br>")));

  m_ir->setRows(snapshot->irRows);
  m_ptx->setRows(snapshot->ptxRows,
                 tr("PTX not compared: %1").arg(QString::fromStdString(d.ptxNote)));

  m_changes->clear();
  for (const diff::ItemChange& c : d.decls)
    itemRow(m_changes, c);
  for (const diff::ItemChange& c : d.ops)
    itemRow(m_changes, c);
  m_findings->clear();
  for (const diff::FindingChange& f : d.findings) {
    auto* it = new QTreeWidgetItem(m_findings);
    it->setText(0, f.appeared ? tr("+ appeared") : tr("− disappeared"));
    it->setForeground(0, f.appeared ? marksOf(m_findings).removed : marksOf(m_findings).added);
    it->setText(1, QString::fromStdString(f.code));
    it->setText(2,
                QStringLiteral("%1 (line %2)").arg(QString::fromStdString(f.anchor)).arg(f.line));
    it->setText(3, QString::fromStdString(f.message));
  }
  m_tabs->setTabText(1, tr("Operations (%1)").arg(d.decls.size() + d.ops.size()));
  m_tabs->setTabText(2,
                     tr("Findings (+%1 −%2)").arg(appeared).arg(int(d.findings.size()) - appeared));

  m_graphBefore->setDiffMarks(snapshot->marksBefore);
  m_graphAfter->setDiffMarks(snapshot->marksAfter);
  m_selBefore->setSnapshot(snapshot->before);
  m_selAfter->setSnapshot(snapshot->after);
  m_graphBefore->setSnapshot(snapshot->before);
  m_graphAfter->setSnapshot(snapshot->after);
}

bool CompareView::ready() const {
  if (!m_snapshot)
    return false;
  for (GraphView* g : {m_graphBefore, m_graphAfter})
    if (g->layoutPending() || g->shownSnapshot() != m_snapshot->jobId)
      return false;
  return true;
}

QString CompareView::summaryText() const {
  return m_summary->text();
}

} // namespace cake::widgets
