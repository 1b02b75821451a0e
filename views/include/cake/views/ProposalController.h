// The Proposals dock's controller: the review queue, the open proposal's detail and lowering
// preview, evaluations and review acts, all as background jobs of the CompileSession (listed in
// the jobs panel); results come back on the GUI thread as immutable snapshots. An approval
// reloads the session's compiler with the workspace's new head overlay.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"
#include "cake/views/ProposalData.h"
#include "cake/views/ProposalQueueModel.h"

#include <QObject>
#include <QSet>
#include <QStringList>

namespace cake::views {

/// What the reviewer decides ("approve", "request-changes", "reject", "comment").
struct ReviewAct {
  QString decision;
  QString reviewer;
  QString comment;
  QStringList acceptChanges; ///< approve: gate cases whose change is accepted explicitly
};

class ProposalController : public QObject {
  Q_OBJECT
public:
  explicit ProposalController(CompileSession* session, QObject* parent = nullptr);

  /// The workspace the proposals are evaluated in and approved into (empty: none; evaluations
  /// are then not recorded and nothing can be approved).
  void setWorkspace(const QString& dir);
  const QString& workspace() const { return m_workspace; }
  /// The corpus manifest of the gate (empty: evaluations run the examples only).
  void setManifest(const QString& manifest) { m_manifest = manifest; }
  const QString& manifest() const { return m_manifest; }
  /// Folders whose subfolders are proposals (corpus/proposals).
  void setRoots(const QStringList& roots) { m_roots = roots; }
  /// Adds one proposal folder to the queue (File > Open Proposal Folder) and rescans.
  void addFolder(const QString& dir);
  /// Who evaluations are recorded as (default: the environment's user).
  void setActor(const QString& actor) { m_actor = actor; }
  const QString& actor() const { return m_actor; }

  ProposalQueueModel* model() const { return m_model; }
  /// Rescans the queue (job); queueChanged() follows.
  quint64 refresh();
  /// Opens a proposal: its detail and the lowering preview (jobs).
  void open(const QString& dir);
  const QString& current() const { return m_current; }
  const ProposalDetailPtr& detail() const { return m_detail; }
  const ProposalPreviewPtr& preview() const { return m_preview; }
  /// Evaluates a proposal (examples and, with a manifest, the gate) and records it in the
  /// workspace; evaluationFinished() follows. Returns the job id.
  quint64 evaluate(const QString& dir);
  /// Records a review act on the proposal; reviewFinished() follows. Returns the job id.
  quint64 review(const QString& dir, const ReviewAct& act);
  /// Checks a gate case without and with the open proposal; caseCompared() follows.
  quint64 compareCase(const QString& caseId, const QString& path);
  /// Jobs of this controller queued or running.
  int pendingJobs() const { return int(m_pending.size()); }

Q_SIGNALS:
  void queueChanged();
  void detailChanged(cake::views::ProposalDetailPtr detail);
  void previewChanged(cake::views::ProposalPreviewPtr preview);
  void caseCompared(cake::views::CaseComparisonPtr comparison);
  /// `verdict` is empty and `error` set when the evaluation could not run or be recorded.
  void evaluationFinished(QString dir, QString verdict, QString error);
  /// `code` is a refusal's stable code or a store error's text; empty on success.
  void reviewFinished(QString dir, QString decision, QString code, QString message);

private:
  quint64 track(quint64 id);
  void finished(quint64 id);

  CompileSession* m_session;
  ProposalQueueModel* m_model;
  QString m_workspace, m_manifest, m_actor, m_current;
  QStringList m_roots, m_extra;
  ProposalDetailPtr m_detail;
  ProposalPreviewPtr m_preview;
  QSet<quint64> m_pending;
  quint64 m_latestScan = 0, m_latestDetail = 0, m_latestPreview = 0;
};

} // namespace cake::views

Q_DECLARE_METATYPE(cake::views::ProposalDetailPtr)
Q_DECLARE_METATYPE(cake::views::ProposalPreviewPtr)
Q_DECLARE_METATYPE(cake::views::CaseComparisonPtr)
