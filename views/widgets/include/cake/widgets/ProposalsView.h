// The Proposals dock: the review queue (state, whose turn) above the open proposal's detail —
// definition, lowering template beside the PTX preview, evidence, examples, gate deltas with a
// changed case's findings before / after, votes — and the reviewer's acts with a comment.
// A thin widget over ProposalController: every read, evaluation and act is its job.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/ProposalController.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTableView;
class QTableWidget;
class QTextBrowser;

namespace cake::widgets {

class ProposalsView : public QWidget {
  Q_OBJECT
public:
  explicit ProposalsView(views::ProposalController* controller, QWidget* parent = nullptr);

  QTableView* queue() const { return m_queue; }
  QPushButton* approveButton() const { return m_approve; }
  /// Why Approve is disabled (empty while it is enabled).
  QString approvalBlockedText() const;
  /// Selects a tab of the detail: "definition", "lowering", "examples", "gate", "review".
  void showTab(const QString& name);

Q_SIGNALS:
  /// An evidence link or a changed gate case: open this kernel in the editor.
  void openKernelRequested(QString path);

private:
  void showDetail(const views::ProposalDetailPtr& detail);
  void showPreview(const views::ProposalPreviewPtr& preview);
  void showComparison(const views::CaseComparisonPtr& comparison);
  void updateActs();
  void act(const QString& decision);
  void setMessage(const QString& text, bool error);

  views::ProposalController* m_controller;
  QTableView* m_queue;
  QLabel* m_title;
  QLabel* m_summary;
  QLabel* m_blocked;
  QTabWidget* m_tabs;
  QTextBrowser* m_definition;
  QLabel* m_previewLabel;
  QPlainTextEdit* m_template;
  QPlainTextEdit* m_ptx;
  QTableWidget* m_examples;
  QLabel* m_gateSummary;
  QTableWidget* m_deltas;
  QLabel* m_caseLabel;
  QPlainTextEdit* m_before;
  QPlainTextEdit* m_after;
  QTableWidget* m_votes;
  QPushButton* m_evaluate;
  QLineEdit* m_reviewer;
  QLineEdit* m_comment;
  QCheckBox* m_acceptChanges;
  QPushButton* m_approve;
  QPushButton* m_requestChanges;
  QPushButton* m_reject;
  QLabel* m_message;
};

} // namespace cake::widgets
