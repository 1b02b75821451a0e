// The Proposals dock widget: queue, detail tabs and the reviewer's acts over ProposalController.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/ProposalsView.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace cake::widgets {

namespace {

QPlainTextEdit* codeBox(QWidget* parent, const QString& name) {
  auto* e = new QPlainTextEdit(parent);
  e->setObjectName(name);
  e->setReadOnly(true);
  e->setLineWrapMode(QPlainTextEdit::NoWrap);
  e->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  return e;
}

QTableWidget* tableBox(QWidget* parent, const QString& name, const QStringList& header) {
  auto* t = new QTableWidget(0, int(header.size()), parent);
  t->setObjectName(name);
  t->setHorizontalHeaderLabels(header);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setSelectionMode(QAbstractItemView::SingleSelection);
  t->verticalHeader()->hide();
  t->horizontalHeader()->setStretchLastSection(true);
  t->setWordWrap(false);
  return t;
}

void setRow(QTableWidget* t, int row, const QStringList& cells) {
  for (int c = 0; c < cells.size(); ++c) {
    auto* item = new QTableWidgetItem(cells[c]);
    item->setToolTip(cells[c]);
    t->setItem(row, c, item);
  }
}

} // namespace

ProposalsView::ProposalsView(views::ProposalController* controller, QWidget* parent)
    : QWidget(parent), m_controller(controller) {
  setObjectName(QStringLiteral("proposalsView"));
  auto* split = new QSplitter(Qt::Vertical, this);

  m_queue = new QTableView(split);
  m_queue->setObjectName(QStringLiteral("proposalQueue"));
  m_queue->setModel(controller->model());
  m_queue->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_queue->setSelectionMode(QAbstractItemView::SingleSelection);
  m_queue->verticalHeader()->hide();
  m_queue->horizontalHeader()->setSectionResizeMode(views::ProposalQueueModel::TitleColumn,
                                                    QHeaderView::Stretch);
  m_queue->horizontalHeader()->setStretchLastSection(false);
  // The header and four proposals stay visible however small the dock gets.
  m_queue->setMinimumHeight(m_queue->horizontalHeader()->sizeHint().height() +
                            4 * m_queue->verticalHeader()->defaultSectionSize() + 4);
  connect(m_queue->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& index) {
            QString dir = index.data(views::ProposalQueueModel::DirRole).toString();
            if (!dir.isEmpty() && dir != m_controller->current())
              m_controller->open(dir);
          });

  auto* detail = new QWidget(split);
  auto* dl = new QVBoxLayout(detail);
  dl->setContentsMargins(4, 4, 4, 4);
  m_title = new QLabel(tr("Select a proposal"), detail);
  m_title->setObjectName(QStringLiteral("proposalTitle"));
  QFont bold = m_title->font();
  bold.setBold(true);
  m_title->setFont(bold);
  m_title->setWordWrap(true);
  m_summary = new QLabel(detail);
  m_summary->setObjectName(QStringLiteral("proposalSummary"));
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  dl->addWidget(m_title);
  dl->addWidget(m_summary);

  m_tabs = new QTabWidget(detail);
  m_definition = new QTextBrowser(m_tabs);
  m_definition->setObjectName(QStringLiteral("proposalDefinition"));
  m_definition->setOpenLinks(false);
  connect(m_definition, &QTextBrowser::anchorClicked, this,
          [this](const QUrl& url) { Q_EMIT openKernelRequested(url.toLocalFile()); });
  m_tabs->addTab(m_definition, tr("Definition"));

  auto* lowering = new QWidget(m_tabs);
  auto* ll = new QVBoxLayout(lowering);
  ll->setContentsMargins(0, 0, 0, 0);
  m_previewLabel = new QLabel(lowering);
  m_previewLabel->setWordWrap(true);
  auto* codes = new QSplitter(Qt::Horizontal, lowering);
  m_template = codeBox(codes, QStringLiteral("proposalTemplate"));
  m_ptx = codeBox(codes, QStringLiteral("proposalPtx"));
  codes->setStretchFactor(0, 2);
  codes->setStretchFactor(1, 3);
  ll->addWidget(m_previewLabel);
  ll->addWidget(codes, 1);
  m_tabs->addTab(lowering, tr("Lowering"));

  m_examples = tableBox(m_tabs, QStringLiteral("proposalExamples"),
                        {tr("Example"), tr("Expected"), tr("Observed"), tr("Without it"), tr("PTX"),
                         tr("OK"), tr("Codes / problem")});
  m_tabs->addTab(m_examples, tr("Examples"));

  auto* gate = new QWidget(m_tabs);
  auto* gl = new QVBoxLayout(gate);
  gl->setContentsMargins(0, 0, 0, 0);
  m_gateSummary = new QLabel(gate);
  m_gateSummary->setWordWrap(true);
  auto* gsplit = new QSplitter(Qt::Vertical, gate);
  m_deltas =
      tableBox(gsplit, QStringLiteral("proposalDeltas"), {tr("Delta"), tr("Case"), tr("Kernel")});
  connect(m_deltas, &QTableWidget::cellActivated, this, [this](int row, int) {
    QString caseId = m_deltas->item(row, 1)->text();
    QString path = m_deltas->item(row, 2)->data(Qt::UserRole).toString();
    if (path.isEmpty())
      return;
    Q_EMIT openKernelRequested(path);
    m_caseLabel->setText(tr("%1: checking without and with the proposal…").arg(caseId));
    m_controller->compareCase(caseId, path);
  });
  connect(m_deltas, &QTableWidget::cellClicked, m_deltas, &QTableWidget::cellActivated);
  auto* compare = new QWidget(gsplit);
  auto* cl = new QVBoxLayout(compare);
  cl->setContentsMargins(0, 0, 0, 0);
  m_caseLabel = new QLabel(tr("Click a changed case to see its findings before / after."), compare);
  m_caseLabel->setWordWrap(true);
  auto* sides = new QSplitter(Qt::Horizontal, compare);
  m_before = codeBox(sides, QStringLiteral("caseBefore"));
  m_after = codeBox(sides, QStringLiteral("caseAfter"));
  m_before->setPlaceholderText(tr("findings before (workspace head)"));
  m_after->setPlaceholderText(tr("findings after (with the proposal)"));
  cl->addWidget(m_caseLabel);
  cl->addWidget(sides, 1);
  gl->addWidget(m_gateSummary);
  gl->addWidget(gsplit, 1);
  m_tabs->addTab(gate, tr("Gate delta"));

  m_votes = tableBox(m_tabs, QStringLiteral("proposalVotes"),
                     {tr("Reviewer"), tr("Decision"), tr("Time"), tr("Comment")});
  m_tabs->addTab(m_votes, tr("Votes"));
  dl->addWidget(m_tabs, 1);

  m_blocked = new QLabel(detail);
  m_blocked->setObjectName(QStringLiteral("approvalBlocked"));
  m_blocked->setWordWrap(true);
  dl->addWidget(m_blocked);
  m_acceptChanges = new QCheckBox(detail);
  m_acceptChanges->setObjectName(QStringLiteral("acceptChanges"));
  m_acceptChanges->hide();
  connect(m_acceptChanges, &QCheckBox::toggled, this, &ProposalsView::updateActs);
  dl->addWidget(m_acceptChanges);

  auto* acts = new QHBoxLayout;
  m_evaluate = new QPushButton(tr("Evaluate"), detail);
  m_evaluate->setObjectName(QStringLiteral("evaluateButton"));
  m_evaluate->setToolTip(tr("Run the examples and the corpus gate with and without the proposal "
                            "(a background job) and record the evaluation in the workspace"));
  connect(m_evaluate, &QPushButton::clicked, this, [this] {
    if (!m_controller->current().isEmpty()) {
      m_controller->evaluate(m_controller->current());
      setMessage(tr("evaluating… (see the Jobs panel)"), false);
    }
  });
  m_reviewer = new QLineEdit(m_controller->actor(), detail);
  m_reviewer->setObjectName(QStringLiteral("reviewerName"));
  m_reviewer->setPlaceholderText(tr("reviewer"));
  m_reviewer->setMaximumWidth(140);
  m_comment = new QLineEdit(detail);
  m_comment->setObjectName(QStringLiteral("reviewComment"));
  m_comment->setPlaceholderText(tr("comment (required to request changes or reject)"));
  m_approve = new QPushButton(tr("Approve"), detail);
  m_approve->setObjectName(QStringLiteral("approveButton"));
  m_requestChanges = new QPushButton(tr("Request changes"), detail);
  m_reject = new QPushButton(tr("Reject"), detail);
  connect(m_approve, &QPushButton::clicked, this, [this] { act(QStringLiteral("approve")); });
  connect(m_requestChanges, &QPushButton::clicked, this,
          [this] { act(QStringLiteral("request-changes")); });
  connect(m_reject, &QPushButton::clicked, this, [this] { act(QStringLiteral("reject")); });
  acts->addWidget(m_evaluate);
  acts->addWidget(m_reviewer);
  acts->addWidget(m_comment, 1);
  acts->addWidget(m_approve);
  acts->addWidget(m_requestChanges);
  acts->addWidget(m_reject);
  dl->addLayout(acts);
  m_message = new QLabel(detail);
  m_message->setObjectName(QStringLiteral("reviewMessage"));
  m_message->setWordWrap(true);
  dl->addWidget(m_message);

  split->addWidget(m_queue);
  split->addWidget(detail);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 4);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);

  connect(m_controller, &views::ProposalController::queueChanged, this, [this] {
    int row = m_controller->model()->rowOf(m_controller->current());
    if (row < 0 && m_controller->current().isEmpty() && m_controller->model()->rowCount() > 0)
      row = 0;
    if (row >= 0)
      m_queue->selectRow(row);
    m_queue->resizeColumnsToContents();
    m_queue->horizontalHeader()->setSectionResizeMode(views::ProposalQueueModel::TitleColumn,
                                                      QHeaderView::Stretch);
  });
  connect(m_controller, &views::ProposalController::detailChanged, this,
          &ProposalsView::showDetail);
  connect(m_controller, &views::ProposalController::previewChanged, this,
          &ProposalsView::showPreview);
  connect(m_controller, &views::ProposalController::caseCompared, this,
          &ProposalsView::showComparison);
  connect(m_controller, &views::ProposalController::evaluationFinished, this,
          [this](const QString& dir, const QString& verdict, const QString& error) {
            setMessage(error.isEmpty()
                           ? tr("%1: evaluated, verdict %2").arg(QFileInfo(dir).fileName(), verdict)
                           : tr("%1: evaluation failed: %2").arg(QFileInfo(dir).fileName(), error),
                       !error.isEmpty());
          });
  connect(m_controller, &views::ProposalController::reviewFinished, this,
          [this](const QString& dir, const QString& decision, const QString& code,
                 const QString& message) {
            setMessage(code.isEmpty() ? tr("%1: %2").arg(QFileInfo(dir).fileName(), message)
                                      : tr("%1 refused: %2 (%3)").arg(decision, message, code),
                       !code.isEmpty());
            if (code.isEmpty())
              m_comment->clear();
          });
  updateActs();
}

void ProposalsView::showTab(const QString& name) {
  static const QStringList names{"definition", "lowering", "examples", "gate", "votes"};
  int i = int(names.indexOf(name));
  if (i >= 0)
    m_tabs->setCurrentIndex(i);
}

void ProposalsView::setMessage(const QString& text, bool error) {
  m_message->setText(text);
  m_message->setStyleSheet(error ? QStringLiteral("color: #b00020;") : QString());
}

QString ProposalsView::approvalBlockedText() const {
  return m_approve->isEnabled() ? QString() : m_approve->toolTip();
}

void ProposalsView::showDetail(const views::ProposalDetailPtr& d) {
  if (!d)
    return;
  const views::ProposalEntry& e = d->entry;
  m_title->setText(e.title);
  m_summary->setText(tr("%1 by %2 · state %3 · turn: %4 · %5")
                         .arg(e.kind, e.author, e.state, views::proposalTurnName(e.turn),
                              e.hash.isEmpty() ? tr("does not load") : e.hash.left(12)));
  m_summary->setToolTip(e.dir);
  QString html;
  if (!d->loadFindings.isEmpty())
    html += "<h3>" + tr("The folder does not load") + "</h3><pre>" +
            d->loadFindings.toHtmlEscaped() + "</pre>";
  if (!d->motivation.isEmpty())
    html += "<p><b>" + tr("Motivation") + ":</b> " + d->motivation.toHtmlEscaped() + "</p>";
  html += d->definitionHtml;
  if (!d->evidence.isEmpty()) {
    html += "<h4>" + tr("Evidence") + "</h4><ul>";
    for (const views::ProposalEvidence& ev : d->evidence)
      html += ev.target.isEmpty()
                  ? "<li>" + ev.text.toHtmlEscaped() + "</li>"
                  : QStringLiteral("<li><a href=\"%1\">%2</a></li>")
                        .arg(QUrl::fromLocalFile(ev.target).toString().toHtmlEscaped(),
                             ev.text.toHtmlEscaped());
    html += "</ul>";
  }
  m_definition->setHtml(html);
  m_template->setPlainText(d->loweringTemplate.isEmpty()
                               ? tr("(a %1 proposal has no lowering template; the example is "
                                    "lowered with the proposal's data)")
                                     .arg(e.kind)
                               : d->loweringTemplate);

  m_examples->setRowCount(int(d->examples.size()));
  for (int i = 0; i < d->examples.size(); ++i) {
    const views::ProposalExampleRow& x = d->examples[i];
    setRow(
        m_examples, i,
        {x.path, x.expected, x.observed, x.observedWithout,
         x.expected == QLatin1String("accepted") ? (x.lowered ? tr("yes") : tr("no")) : QString(),
         x.ok ? tr("ok") : tr("FAIL"), x.problem.isEmpty() ? x.codes : x.problem});
  }
  m_examples->resizeColumnsToContents();

  m_deltas->setRowCount(int(d->deltas.size()));
  for (int i = 0; i < d->deltas.size(); ++i) {
    const views::ProposalDeltaRow& r = d->deltas[i];
    QString group = r.group;
    group.replace(QLatin1String("newly_"), QLatin1String("newly "))
        .replace(QLatin1String("changed_predictions"), tr("prediction"))
        .replace(QLatin1String("changed_"), QString());
    setRow(m_deltas, i, {group, r.caseId, QFileInfo(r.path).fileName()});
    m_deltas->item(i, 2)->setData(Qt::UserRole, r.path);
  }
  m_deltas->resizeColumnsToContents();
  if (!d->evaluated)
    m_gateSummary->setText(tr("Not evaluated in this workspace: press Evaluate."));
  else if (!d->gateRan)
    m_gateSummary->setText(tr("Verdict %1 at revision %2; the gate did not run (examples only).")
                               .arg(d->verdict)
                               .arg(d->evaluationRevision));
  else
    m_gateSummary->setText(tr("Verdict %1 at revision %2 (head %3): %4 changed case(s); cases "
                              "missing their manifest expectation: %5 before, %6 after.")
                               .arg(d->verdict)
                               .arg(d->evaluationRevision)
                               .arg(d->head)
                               .arg(d->deltas.size())
                               .arg(d->mismatchedBefore)
                               .arg(d->mismatchedAfter));
  // Whether `cake run --device cpu` (and the corpus's CPU runs) can execute the proposal.
  if (d->evaluated && !d->cpuSemantics.isEmpty())
    m_gateSummary->setText(m_gateSummary->text() + "\n" + tr("CPU semantics: %1")
                                                            .arg(d->cpuSemantics.join("; ")));

  m_votes->setRowCount(int(d->votes.size()));
  for (int i = 0; i < d->votes.size(); ++i) {
    const views::ProposalVoteRow& v = d->votes[i];
    setRow(m_votes, i, {v.reviewer, v.decision, v.time, v.comment});
  }
  m_votes->resizeColumnsToContents();
  m_acceptChanges->setChecked(false);
  updateActs();
  if (m_controller->preview() && m_controller->preview()->dir == d->entry.dir)
    showPreview(m_controller->preview());
}

void ProposalsView::showPreview(const views::ProposalPreviewPtr& p) {
  if (!p || p->dir != m_controller->current())
    return;
  m_previewLabel->setText(
      p->example.isEmpty() ? p->message
                           : tr("Template (left) and %1 lowered with the proposal to PTX (right)")
                                 .arg(QFileInfo(p->example).fileName()));
  m_ptx->setPlainText(p->ok ? p->ptx : p->message);
  // Scroll to the first instruction the template emits (its first word), so the template and
  // what it became are side by side.
  const views::ProposalDetailPtr& d = m_controller->detail();
  QString templ = d && d->entry.dir == p->dir ? d->loweringTemplate : QString();
  int at = int(templ.indexOf(QLatin1String("\nptx:\n")));
  QString mnemonic = at < 0 ? QString() : templ.mid(at + 6).trimmed().section(' ', 0, 0);
  if (p->ok && !mnemonic.isEmpty() && m_ptx->find(mnemonic))
    m_ptx->centerCursor();
}

void ProposalsView::showComparison(const views::CaseComparisonPtr& c) {
  if (!c || c->dir != m_controller->current())
    return;
  if (!c->error.isEmpty()) {
    m_caseLabel->setText(tr("%1: %2").arg(c->caseId, c->error));
    return;
  }
  auto verdict = [this](bool accepted) { return accepted ? tr("accepted") : tr("refused"); };
  m_caseLabel->setText(
      tr("%1 (%2): before (workspace head) %3, %4 finding(s) — after (with the "
         "proposal) %5, %6 finding(s)")
          .arg(c->caseId, QFileInfo(c->path).fileName(), verdict(c->acceptedBefore))
          .arg(c->before.size())
          .arg(verdict(c->acceptedAfter))
          .arg(c->after.size()));
  m_before->setPlainText(c->before.isEmpty() ? tr("(no findings)") : c->before.join('\n'));
  m_after->setPlainText(c->after.isEmpty() ? tr("(no findings)") : c->after.join('\n'));
}

void ProposalsView::updateActs() {
  const views::ProposalDetailPtr& d = m_controller->detail();
  bool open = d && !d->entry.hash.isEmpty();
  bool decided = d && (d->entry.state == QLatin1String("approved") ||
                       d->entry.state == QLatin1String("rejected"));
  m_evaluate->setEnabled(open && !decided);
  bool registered = open && d->evaluated;
  m_requestChanges->setEnabled(registered && !decided);
  m_reject->setEnabled(registered && !decided);
  // Approval refused only for changed gate cases: the reviewer may accept them explicitly.
  bool onlyChanges = open && d->blockedCode == QLatin1String("prop-unaccepted-change");
  m_acceptChanges->setVisible(onlyChanges);
  if (onlyChanges) {
    // A check box does not wrap: a few names here, all of them in the tooltip and the table.
    QStringList shown = d->changedCases.mid(0, 3);
    if (d->changedCases.size() > 3)
      shown << tr("… (%1 in all, see Gate delta)").arg(d->changedCases.size());
    m_acceptChanges->setText(tr("Accept the changes of the gate cases: %1").arg(shown.join(", ")));
    m_acceptChanges->setToolTip(d->changedCases.join('\n'));
  }
  bool canApprove = open && (d->canApprove || (onlyChanges && m_acceptChanges->isChecked()));
  QString reason;
  if (!d)
    reason = tr("no proposal is open");
  else if (!open)
    reason = tr("the proposal does not load");
  else if (!canApprove)
    reason = d->blockedMessage.isEmpty() ? tr("approval is not possible") : d->blockedMessage;
  m_approve->setEnabled(canApprove);
  m_approve->setToolTip(reason.isEmpty() ? tr("Install the proposal's files as a new workspace "
                                              "revision")
                                         : reason);
  // The reason can name every changed case: the label keeps two lines' worth, the tooltip all.
  QString shortReason = reason.size() > 160 ? reason.left(150) + tr("… (hover for all)") : reason;
  m_blocked->setText(reason.isEmpty() || !d
                         ? QString()
                         : tr("Approve is disabled: %1%2")
                               .arg(shortReason, d->blockedCode.isEmpty()
                                                     ? QString()
                                                     : " (" + d->blockedCode + ")"));
  m_blocked->setToolTip(reason);
  m_blocked->setStyleSheet(QStringLiteral("color: #9a5b00;"));
}

void ProposalsView::act(const QString& decision) {
  if (m_controller->current().isEmpty())
    return;
  views::ReviewAct a;
  a.decision = decision;
  a.reviewer = m_reviewer->text().trimmed();
  a.comment = m_comment->text().trimmed();
  const views::ProposalDetailPtr& d = m_controller->detail();
  if (decision == QLatin1String("approve") && d && m_acceptChanges->isVisible() &&
      m_acceptChanges->isChecked())
    a.acceptChanges = d->changedCases;
  m_controller->review(m_controller->current(), a);
  setMessage(tr("%1: recording… (see the Jobs panel)").arg(decision), false);
}

} // namespace cake::widgets
