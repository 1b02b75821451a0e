// Findings panel: filters, tree of findings with notes, detail pane with Explain, copy in the
// CLI's formats; linked to the shared selection.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/FindingsPanel.h"

#include "cake/views/Actionable.h"
#include "cake/views/FindingsExport.h"
#include "cake/views/FindingsModel.h"
#include "cake/views/SelectionModel.h"
#include "cake/widgets/ElidedLabel.h"
#include "cake/widgets/FlowLayout.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSplitter>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeView>
#include <QUrl>
#include <QUrlQuery>
#include <QVBoxLayout>

#include <algorithm>
#include <numeric>

namespace cake::widgets {

using views::FindingsFormat;
using views::FindingsModel;

namespace {
const char* kSeverityNames[3] = {"Blocking", "Report", "Hint"};
/// Below this width a tall panel puts the explanation under the list.
constexpr int kStackedBelowWidth = 480;

/// Column widths within `budget`: every column its `wanted` width when they fit; otherwise the
/// narrowest keep theirs and the others share the rest equally (never below `floor`).
QList<int> cappedWidths(const QList<int>& wanted, int budget, int floor) {
  QList<int> order(wanted.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return wanted[a] < wanted[b]; });
  QList<int> out = wanted;
  int left = budget;
  for (int i = 0; i < order.size(); ++i) {
    const int share = left / int(order.size() - i);
    out[order[i]] = std::max(floor, std::min(wanted[order[i]], share));
    left -= out[order[i]];
  }
  return out;
}
} // namespace

FindingsPanel::FindingsPanel(views::SelectionModel* selection, QWidget* parent)
    : QWidget(parent), m_selection(selection), m_model(new views::FindingsModel(this)),
      m_filter(new views::FindingsFilterModel(this)), m_family(new QComboBox(this)),
      m_text(new QLineEdit(this)), m_count(new ElidedLabel(this)), m_view(new QTreeView(this)),
      m_detail(new QTextBrowser(this)), m_split(new QSplitter(Qt::Horizontal, this)) {
  setObjectName(QStringLiteral("findingsPanel"));
  m_filter->setSourceModel(m_model);

  // The filters wrap onto a second row in a narrow dock instead of widening it.
  auto* bar = new FlowLayout;
  bar->setContentsMargins(4, 2, 4, 2);
  for (int s = 0; s < 3; ++s) {
    m_severity[s] = new QCheckBox(tr(kSeverityNames[s]), this);
    m_severity[s]->setObjectName(QStringLiteral("show%1").arg(QLatin1String(kSeverityNames[s])));
    m_severity[s]->setChecked(true);
    connect(m_severity[s], &QCheckBox::toggled, this,
            [this, s](bool on) { m_filter->setSeverityShown(Severity(s), on); });
    bar->addWidget(m_severity[s]);
  }
  m_family->setObjectName(QStringLiteral("familyFilter"));
  m_family->addItem(tr("All families"), QString());
  // Narrow docks: the combo shows the start of a long family name (the popup shows it whole).
  m_family->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_family->setMinimumContentsLength(9);
  connect(m_family, &QComboBox::activated, this, [this](int i) {
    m_wantedFamily = m_family->itemData(i).toString();
    m_filter->setFamily(m_wantedFamily);
  });
  bar->addWidget(m_family);
  m_text->setObjectName(QStringLiteral("findingsSearch"));
  m_text->setPlaceholderText(tr("Filter: code, message, note…"));
  m_text->setClearButtonEnabled(true);
  m_text->setMinimumWidth(80);
  connect(m_text, &QLineEdit::textChanged, m_filter, &views::FindingsFilterModel::setText);
  bar->addWidget(m_text); // expanding: it takes its row's spare width
  m_count->setObjectName(QStringLiteral("findingsCount"));
  bar->addWidget(m_count);

  auto* explain = new QToolButton(this);
  explain->setObjectName(QStringLiteral("explainButton"));
  explain->setText(tr("Explain"));
  explain->setToolTip(tr("The rule behind the current finding (cake explain CODE), F1"));
  connect(explain, &QToolButton::clicked, this, [this] { explainCurrent(); });
  bar->addWidget(explain);

  auto* copyButton = new QToolButton(this);
  copyButton->setObjectName(QStringLiteral("copyButton"));
  copyButton->setText(tr("Copy"));
  copyButton->setPopupMode(QToolButton::InstantPopup);
  auto* copyMenu = new QMenu(copyButton);
  const std::pair<const char*, FindingsFormat> formats[] = {{"text", FindingsFormat::Text},
                                                            {"JSON", FindingsFormat::Json},
                                                            {"SARIF", FindingsFormat::Sarif}};
  for (bool all : {false, true}) {
    for (const auto& [name, format] : formats) {
      FindingsFormat f = format;
      copyMenu->addAction(all ? tr("All findings as %1").arg(QLatin1String(name))
                              : tr("Selected as %1").arg(QLatin1String(name)),
                          this, [this, f, all] { copy(f, all); });
    }
    if (!all)
      copyMenu->addSeparator();
  }
  copyButton->setMenu(copyMenu);
  bar->addWidget(copyButton);

  m_view->setObjectName(QStringLiteral("findingsView"));
  m_view->setModel(m_filter);
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_view->setUniformRowHeights(true);
  m_view->setExpandsOnDoubleClick(false);
  m_view->setAllColumnsShowFocus(true);
  m_view->setWordWrap(false);
  m_view->header()->setStretchLastSection(true);
  m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
  auto* copyAction = new QAction(tr("Copy as text"), m_view);
  copyAction->setShortcut(QKeySequence::Copy);
  copyAction->setShortcutContext(Qt::WidgetShortcut);
  connect(copyAction, &QAction::triggered, this, [this] { copy(FindingsFormat::Text, false); });
  m_view->addAction(copyAction);
  auto* copyJson = new QAction(tr("Copy as JSON"), m_view);
  connect(copyJson, &QAction::triggered, this, [this] { copy(FindingsFormat::Json, false); });
  m_view->addAction(copyJson);
  auto* copySarif = new QAction(tr("Copy as SARIF"), m_view);
  connect(copySarif, &QAction::triggered, this, [this] { copy(FindingsFormat::Sarif, false); });
  m_view->addAction(copySarif);
  auto* explainAction = new QAction(tr("Explain"), m_view);
  explainAction->setShortcut(QKeySequence::HelpContents);
  explainAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(explainAction, &QAction::triggered, this, [this] { explainCurrent(); });
  m_view->addAction(explainAction);
  // The item view copies the current cell's text on Ctrl+C itself; the panel copies findings.
  m_view->installEventFilter(this);
  connect(m_view, &QTreeView::activated, this, &FindingsPanel::onActivated);
  connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) { onCurrentChanged(current); });

  m_detail->setObjectName(QStringLiteral("findingDetail"));
  m_detail->setOpenLinks(false);
  m_detail->setPlaceholderText(tr("Select a finding to see its notes, fix and rule."));
  connect(m_detail, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
    if (url.scheme() == QLatin1String("apply")) {
      Q_EMIT applyFixRequested(url.path().toInt());
      return;
    }
    // Note locations are links "loc:?path=...&line=..&column=.."
    QUrlQuery q(url);
    Q_EMIT locationActivated(q.queryItemValue(QStringLiteral("path")),
                             q.queryItemValue(QStringLiteral("line")).toInt(),
                             q.queryItemValue(QStringLiteral("column")).toInt());
  });

  m_split->addWidget(m_view);
  m_split->addWidget(m_detail);
  m_split->setStretchFactor(0, 3);
  m_split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(bar);
  layout->addWidget(m_split, 1);

  connect(m_filter, &views::FindingsFilterModel::filterChanged, this, [this] {
    updateCount();
    Q_EMIT filterChanged();
  });
  connect(m_filter, &QAbstractItemModel::modelReset, this, &FindingsPanel::updateCount);
  if (m_selection)
    connect(m_selection, &views::SelectionModel::selectionChanged, this,
            &FindingsPanel::onSelectionChanged);
  updateCount();
}

bool FindingsPanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_view && event->type() == QEvent::KeyPress &&
      static_cast<QKeyEvent*>(event)->matches(QKeySequence::Copy)) {
    copy(FindingsFormat::Text, false);
    return true;
  }
  return QWidget::eventFilter(watched, event);
}

void FindingsPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitToWidth();
}

void FindingsPanel::fitToWidth() {
  // Beside the editor the panel is tall and narrow: the list above its explanation (side by
  // side each would be too narrow to read). At the bottom (wide and low) they stand side by side.
  const Qt::Orientation want =
      width() < kStackedBelowWidth && height() > width() ? Qt::Vertical : Qt::Horizontal;
  if (m_split->orientation() != want) {
    m_split->setOrientation(want);
    const int extent = want == Qt::Vertical ? m_split->height() : m_split->width();
    m_split->setSizes({extent * 3 / 5, extent - extent * 3 / 5});
  }
  // The columns before the message take at most two thirds of the list together: severity and
  // line keep their contents' width, code and family share what is left (the narrower keeps its
  // width when it fits, never below 48 px) and their text elides, as the message does.
  if (m_contentWidths.size() != FindingsModel::MessageColumn)
    return;
  int budget = m_view->viewport()->width() * 2 / 3 -
               m_contentWidths[FindingsModel::SeverityColumn] -
               m_contentWidths[FindingsModel::LocationColumn];
  const QList<int> shared = cappedWidths(
      {m_contentWidths[FindingsModel::CodeColumn], m_contentWidths[FindingsModel::FamilyColumn]},
      std::max(0, budget), 48);
  QList<int> widths = m_contentWidths;
  widths[FindingsModel::CodeColumn] = shared[0];
  widths[FindingsModel::FamilyColumn] = shared[1];
  for (int c = 0; c < widths.size(); ++c)
    m_view->setColumnWidth(c, widths[c]);
}

void FindingsPanel::setCompiler(std::shared_ptr<const driver::Compiler> compiler) {
  m_compiler = std::move(compiler);
}

void FindingsPanel::setSnapshot(const views::CheckSnapshotPtr& snapshot) {
  m_model->setSnapshot(snapshot);
  refresh();
}

void FindingsPanel::setRunRows(const QString& text, std::vector<views::FindingRow> rows) {
  m_model->setRunRows(text, std::move(rows));
  refresh();
}

void FindingsPanel::selectOnFinding(int finding) {
  if (!m_selection)
    return;
  // A CPU run's row is no diagnostic of the check: it selects the operation on its line.
  if (m_model->isRunFinding(finding)) {
    if (const views::FindingRow* f = m_model->finding(finding); f && f->line > 0)
      m_selection->selectLine(f->line, views::SelectionOrigin::Findings);
    return;
  }
  m_selection->selectFinding(finding, views::SelectionOrigin::Findings);
}

void FindingsPanel::refresh() {
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < m_model->findingCount(); ++i)
    ++counts[int(m_model->finding(i)->severity)];
  for (int s = 0; s < 3; ++s)
    m_severity[s]->setText(QStringLiteral("%1 %2").arg(tr(kSeverityNames[s])).arg(counts[s]));
  updateFamilies();
  // A root cause opens on its consequences: every finding the severity boxes count is visible.
  for (int r = 0; r < m_filter->rowCount(); ++r) {
    QModelIndex top = m_filter->index(r, 0);
    if (m_model->consequenceCount(top.data(FindingsModel::FindingRole).toInt()) > 0)
      m_view->expand(top);
  }
  // Sized after expanding: a consequence's severity sits one indentation level deeper.
  m_contentWidths.clear();
  for (int c = 0; c < FindingsModel::MessageColumn; ++c) {
    m_view->resizeColumnToContents(c);
    m_contentWidths << m_view->columnWidth(c);
  }
  fitToWidth();
  m_detail->clear();
  updateCount();
}

void FindingsPanel::updateFamilies() {
  QStringList families = m_model->families();
  if (!m_wantedFamily.isEmpty() && !families.contains(m_wantedFamily))
    families << m_wantedFamily; // keep a chosen filter even when this check has none of it
  families.sort();
  m_family->clear();
  m_family->addItem(tr("All families"), QString());
  for (const QString& f : families)
    m_family->addItem(f, f);
  m_family->setCurrentIndex(qMax(0, m_family->findData(m_wantedFamily)));
  m_filter->setFamily(m_wantedFamily);
}

QString FindingsPanel::countText() const {
  return tr("%1 of %2 shown").arg(m_filter->shownCount()).arg(m_filter->totalCount());
}

void FindingsPanel::updateCount() {
  m_count->setText(countText());
}

bool FindingsPanel::selectFinding(int finding) {
  QModelIndex source = m_model->index(finding, 0);
  QModelIndex proxy = m_filter->mapFromSource(source);
  if (!proxy.isValid())
    return false;
  m_view->selectionModel()->setCurrentIndex(proxy, QItemSelectionModel::ClearAndSelect |
                                                       QItemSelectionModel::Rows);
  m_view->scrollTo(proxy);
  return true;
}

void FindingsPanel::onCurrentChanged(const QModelIndex& current) {
  if (!current.isValid())
    return;
  int finding = current.data(FindingsModel::FindingRole).toInt();
  showDetail(finding);
  // Show the notes of the finding one moves to (they say where the other party is).
  QModelIndex top = current.parent().isValid() ? current.parent() : current.siblingAtColumn(0);
  if (m_filter->rowCount(top) > 0)
    m_view->expand(top);
  if (!m_following)
    selectOnFinding(finding);
}

void FindingsPanel::onActivated(const QModelIndex& index) {
  if (!index.isValid())
    return;
  int finding = index.data(FindingsModel::FindingRole).toInt();
  if (index.data(FindingsModel::KindRole).toInt() == FindingsModel::NoteItem &&
      index.data(FindingsModel::LineRole).toInt() > 0) {
    Q_EMIT locationActivated(index.data(FindingsModel::PathRole).toString(),
                             index.data(FindingsModel::LineRole).toInt(),
                             index.data(FindingsModel::ColumnRole).toInt());
    return;
  }
  selectOnFinding(finding);
  Q_EMIT findingActivated(finding);
}

void FindingsPanel::activateCurrent() {
  onActivated(m_view->currentIndex());
}

void FindingsPanel::onSelectionChanged(const views::Selection& s, views::SelectionOrigin origin) {
  if (origin == views::SelectionOrigin::Findings || s.finding < 0)
    return;
  // A finding picked in another view (the timeline's marks) becomes the current row.
  m_following = true;
  selectFinding(s.finding);
  m_following = false;
}

std::vector<std::size_t> FindingsPanel::selectedFindings() const {
  std::vector<std::size_t> out;
  for (const QModelIndex& i : m_view->selectionModel()->selectedRows())
    out.push_back(std::size_t(i.data(FindingsModel::FindingRole).toInt()));
  if (out.empty() && m_view->currentIndex().isValid())
    out.push_back(std::size_t(m_view->currentIndex().data(FindingsModel::FindingRole).toInt()));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

QString FindingsPanel::exportText(FindingsFormat format, bool all) const {
  const views::CheckSnapshotPtr& snap = m_model->snapshot();
  if (!snap || !m_compiler)
    return {};
  std::vector<std::size_t> selected = selectedFindings();
  return views::exportFindings(*m_compiler, *snap, all ? nullptr : &selected, format);
}

void FindingsPanel::copy(FindingsFormat format, bool all) {
  QString text = exportText(format, all);
  if (!text.isEmpty())
    QApplication::clipboard()->setText(text);
}

void FindingsPanel::showDetail(int finding) {
  const views::FindingRow* f = m_model->finding(finding);
  if (!f) {
    m_detail->clear();
    return;
  }
  auto esc = [](const QString& s) { return s.toHtmlEscaped(); };
  auto link = [&](const QString& path, int line, int column, const QString& label) {
    QUrl url(QStringLiteral("loc:"));
    QUrlQuery q;
    q.addQueryItem(QStringLiteral("path"), path);
    q.addQueryItem(QStringLiteral("line"), QString::number(line));
    q.addQueryItem(QStringLiteral("column"), QString::number(column));
    url.setQuery(q);
    return QStringLiteral("<a href=\"%1\">%2</a>")
        .arg(url.toString(QUrl::FullyEncoded), esc(label));
  };
  QString html = QStringLiteral("<p><b>%1</b> <code>[%2]</code> %3<br/><small>%4 — %5</small></p>")
                     .arg(esc(QString::fromUtf8(toString(f->severity).data())), esc(f->code),
                          esc(f->message), esc(f->family),
                          f->line ? link(f->path, f->line, f->column,
                                         QStringLiteral("line %1:%2").arg(f->line).arg(f->column))
                                  : tr("no location"));
  if (!f->noteRows.empty()) {
    html += QStringLiteral("<p><b>Notes</b></p><ul>");
    for (const views::NoteRow& n : f->noteRows) {
      QString where =
          n.line ? link(n.path, n.line, n.column,
                        (n.path == f->path ? QString() : QFileInfo(n.path).fileName() + ":") +
                            QStringLiteral("%1:%2").arg(n.line).arg(n.column))
                 : QString();
      html += QStringLiteral("<li>%1 %2</li>").arg(where, esc(n.message));
    }
    html += QStringLiteral("</ul>");
  }
  if (!f->fix.isEmpty()) {
    // A fix that carries its edit can be applied (through the editor's undo stack).
    bool applicable =
        m_model->snapshot() && !views::fixReplacements(*m_model->snapshot(), finding).isEmpty();
    html += QStringLiteral("<p><b>Fix:</b> %1%2</p>")
                .arg(esc(f->fix),
                     applicable ? QStringLiteral(" <a href=\"apply:%1\">Apply</a>").arg(finding)
                                : QString());
  }
  // Qt's default link blue is unreadable on a dark base: pick the link colour per palette.
  bool dark = m_detail->palette().color(QPalette::Base).lightness() < 128;
  m_detail->document()->setDefaultStyleSheet(
      QStringLiteral("a { color: %1; }")
          .arg(dark ? QStringLiteral("#6cb6ff") : QStringLiteral("#0b57d0")));
  m_detail->setHtml(html);
}

QString FindingsPanel::explainCurrent() {
  QModelIndex current = m_view->currentIndex();
  if (!current.isValid() || !m_compiler)
    return {};
  int finding = current.data(FindingsModel::FindingRole).toInt();
  const views::FindingRow* f = m_model->finding(finding);
  if (!f)
    return {};
  QString text = views::explainCode(*m_compiler, f->code);
  showDetail(finding);
  // Prose in the UI font, wrapped to the pane; only the examples are code (B15).
  QString html = views::explainHtml(*m_compiler, f->code);
  if (text.isEmpty())
    text = tr("no rule documents '%1'").arg(f->code);
  m_detail->append(QStringLiteral("<hr/>") +
                   (html.isEmpty() ? QStringLiteral("<p>%1</p>").arg(text.toHtmlEscaped()) : html));
  return text;
}

QString FindingsPanel::detailText() const {
  return m_detail->toPlainText();
}

QVariantMap FindingsPanel::filterState() const {
  QVariantMap state;
  state.insert(QStringLiteral("blocking"), m_severity[0]->isChecked());
  state.insert(QStringLiteral("report"), m_severity[1]->isChecked());
  state.insert(QStringLiteral("hint"), m_severity[2]->isChecked());
  state.insert(QStringLiteral("family"), m_wantedFamily);
  state.insert(QStringLiteral("text"), m_text->text());
  return state;
}

void FindingsPanel::setFilterState(const QVariantMap& state) {
  m_severity[0]->setChecked(state.value(QStringLiteral("blocking"), true).toBool());
  m_severity[1]->setChecked(state.value(QStringLiteral("report"), true).toBool());
  m_severity[2]->setChecked(state.value(QStringLiteral("hint"), true).toBool());
  m_wantedFamily = state.value(QStringLiteral("family")).toString();
  updateFamilies();
  m_text->setText(state.value(QStringLiteral("text")).toString());
}

} // namespace cake::widgets
