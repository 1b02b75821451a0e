// The Proposals dock's controller: queue scans, detail and preview, evaluations and review acts
// as CompileSession tasks (inputs by value; each opens its own workspace connection).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/ProposalController.h"

#include "cake/Driver/Manifest.h"
#include "cake/Proposal/Record.h"
#include "cake/Proposal/Review.h"

#include <QDir>
#include <QFileInfo>

namespace cake::views {

namespace {

template <class T> std::shared_ptr<const T> valueOf(const TaskOutcome& o) {
  return std::static_pointer_cast<const T>(o.value);
}

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

/// Folders are compared as the queue lists them: absolute and clean.
QString absoluteDir(const QString& dir) {
  return QDir::cleanPath(QFileInfo(dir).absoluteFilePath());
}

struct EvaluationResult {
  QString verdict, error;
};

/// Runs evaluateProposal on the workspace head and records it (`cake proposal evaluate
/// --workspace`).
EvaluationResult runEvaluation(const QString& dir, const QString& workspace,
                               const QString& manifestPath, const driver::DataPaths& paths,
                               const QString& actor) {
  EvaluationResult out;
  SourceManager sources;
  DiagnosticEngine diags;
  auto p = proposal::loadProposal(dir.toStdString(), sources, diags);
  if (!p) {
    out.error = QStringLiteral("the proposal does not load (%1 finding(s))")
                    .arg(diags.diagnostics().size());
    return out;
  }
  std::optional<ws::Workspace> w;
  std::int64_t head = 0;
  DataOverlay overlay;
  if (!workspace.isEmpty()) {
    auto opened = ws::Workspace::open(workspace.toStdString(), ws::OpenMode::CreateIfMissing);
    auto h = opened ? opened->head() : ws::Expected<std::int64_t>(opened.error());
    auto o = h ? opened->dataOverlay(*h) : ws::Expected<DataOverlay>(h.error());
    if (!o) {
      out.error = qs(o.error().text());
      return out;
    }
    w.emplace(std::move(*opened));
    head = *h;
    overlay = std::move(*o);
  }
  std::optional<driver::Manifest> manifest;
  SourceManager manifestSources;
  DiagnosticEngine manifestDiags;
  if (!manifestPath.isEmpty()) {
    manifest = driver::loadManifest(manifestPath.toStdString(), manifestSources, manifestDiags);
    if (!manifest) {
      out.error = QStringLiteral("the corpus manifest '%1' does not load").arg(manifestPath);
      return out;
    }
  }
  proposal::Evaluation ev =
      proposal::evaluateProposal(*p, paths, overlay, manifest ? &*manifest : nullptr);
  if (w) {
    auto recorded =
        proposal::recordEvaluation(*w, *p, head, proposal::toJson(ev), actor.toStdString());
    if (!recorded) {
      out.error = qs(recorded.error().text());
      return out;
    }
  }
  out.verdict = qs(ev.verdict);
  return out;
}

struct ReviewActResult {
  QString code, message;
  std::optional<std::int64_t> installed;
};

ReviewActResult runReview(const QString& dir, const QString& workspace, const ReviewAct& act) {
  ReviewActResult out;
  std::optional<ws::Decision> decision = ws::decisionFromString(act.decision.toStdString());
  if (!decision) {
    out.code = QStringLiteral("prop-invalid-decision");
    out.message = QStringLiteral("unknown decision '%1'").arg(act.decision);
    return out;
  }
  if (workspace.isEmpty()) {
    out.code = QStringLiteral("no-workspace");
    out.message = QStringLiteral("no workspace is open");
    return out;
  }
  SourceManager sources;
  DiagnosticEngine diags;
  auto p = proposal::loadProposal(dir.toStdString(), sources, diags);
  if (!p) {
    out.code = QStringLiteral("prop-stale-content");
    out.message = QStringLiteral("the proposal folder does not load any more");
    return out;
  }
  auto w = ws::Workspace::open(workspace.toStdString(), ws::OpenMode::CreateIfMissing);
  if (!w) {
    out.code = qs(std::string(ws::toString(w.error().code)));
    out.message = qs(w.error().message);
    return out;
  }
  proposal::ReviewRequest request;
  request.decision = *decision;
  request.reviewer = act.reviewer.toStdString();
  request.comment = act.comment.toStdString();
  for (const QString& c : act.acceptChanges)
    request.acceptChanges.push_back(c.toStdString());
  proposal::ReviewResult r = proposal::review(*w, *p, request);
  if (r.refusal) {
    out.code = qs(r.refusal->code);
    out.message = qs(r.refusal->message);
  } else if (r.error) {
    out.code = qs(std::string(ws::toString(r.error->code)));
    out.message = qs(r.error->message);
  } else if (r.outcome) {
    out.installed = r.outcome->installedRevision;
    out.message = out.installed
                      ? QStringLiteral("approved: revision %1 installed").arg(*out.installed)
                      : QStringLiteral("recorded (%1)").arg(act.decision);
  }
  return out;
}

} // namespace

ProposalController::ProposalController(CompileSession* session, QObject* parent)
    : QObject(parent), m_session(session), m_model(new ProposalQueueModel(this)) {
  qRegisterMetaType<ProposalDetailPtr>();
  qRegisterMetaType<ProposalPreviewPtr>();
  qRegisterMetaType<CaseComparisonPtr>();
  m_actor =
      qEnvironmentVariable("USER", qEnvironmentVariable("USERNAME", QStringLiteral("reviewer")));
  // A job ends in a state, with or without a delivered result (cancelled jobs deliver none).
  connect(m_session, &CompileSession::jobStateChanged, this,
          [this](quint64 id, JobState state, const QString&) {
            if (state != JobState::Queued && state != JobState::Running)
              m_pending.remove(id);
          });
}

void ProposalController::setWorkspace(const QString& dir) {
  m_workspace = dir;
}

void ProposalController::addFolder(const QString& dir) {
  QString clean = absoluteDir(dir);
  if (!m_extra.contains(clean))
    m_extra << clean;
  refresh();
}

quint64 ProposalController::track(quint64 id) {
  m_pending.insert(id);
  return id;
}

quint64 ProposalController::refresh() {
  QStringList roots = m_roots, extra = m_extra;
  QString workspace = m_workspace;
  quint64 id = m_session->runTask(
      JobKind::Preview, tr("scan proposals"),
      [roots, extra, workspace](const std::atomic<bool>&) {
        auto q = std::make_shared<ProposalQueue>(scanProposals(roots, extra, workspace));
        QString log = tr("%1 proposal(s)").arg(q->entries.size());
        return TaskOutcome{!q->error.isEmpty(), q->error.isEmpty() ? log : q->error, q};
      },
      this,
      [this](quint64 job, const TaskOutcome& o) {
        if (job != m_latestScan)
          return;
        m_model->setQueue(*valueOf<ProposalQueue>(o));
        Q_EMIT queueChanged();
      });
  m_latestScan = id;
  return track(id);
}

void ProposalController::open(const QString& folder) {
  QString dir = absoluteDir(folder);
  m_current = dir;
  QString workspace = m_workspace, manifest = m_manifest, name = QFileInfo(dir).fileName();
  driver::DataPaths paths = m_session->dataPaths();
  m_latestDetail = track(m_session->runTask(
      JobKind::Preview, tr("read proposal %1").arg(name),
      [dir, workspace, manifest](const std::atomic<bool>&) {
        auto d = std::make_shared<ProposalDetail>(buildProposalDetail(dir, workspace, manifest));
        return TaskOutcome{false, d->entry.state + ", " + proposalTurnName(d->entry.turn), d};
      },
      this,
      [this](quint64 job, const TaskOutcome& o) {
        if (job != m_latestDetail)
          return;
        m_detail = valueOf<ProposalDetail>(o);
        Q_EMIT detailChanged(m_detail);
      }));
  m_latestPreview = track(m_session->runTask(
      JobKind::Preview, tr("lower %1's example with it").arg(name),
      [dir, workspace, paths](const std::atomic<bool>&) {
        auto p = std::make_shared<ProposalPreview>(buildProposalPreview(dir, workspace, paths));
        QString log =
            p->ok ? tr("%1 PTX lines").arg(p->ptx.count('\n')) : p->message.section('\n', 0, 0);
        return TaskOutcome{!p->ok, log, p};
      },
      this,
      [this](quint64 job, const TaskOutcome& o) {
        if (job != m_latestPreview)
          return;
        m_preview = valueOf<ProposalPreview>(o);
        Q_EMIT previewChanged(m_preview);
      }));
}

quint64 ProposalController::evaluate(const QString& dir) {
  QString workspace = m_workspace, manifest = m_manifest, actor = m_actor;
  driver::DataPaths paths = m_session->dataPaths();
  QString clean = absoluteDir(dir);
  return track(m_session->runTask(
      JobKind::Evaluate,
      tr("evaluate %1%2")
          .arg(QFileInfo(dir).fileName(),
               manifest.isEmpty() ? tr(" (examples only)") : tr(" (examples, gate)")),
      [clean, workspace, manifest, paths, actor](const std::atomic<bool>&) {
        auto r = std::make_shared<EvaluationResult>(
            runEvaluation(clean, workspace, manifest, paths, actor));
        bool failed = !r->error.isEmpty();
        return TaskOutcome{failed, failed ? r->error : tr("verdict %1").arg(r->verdict), r};
      },
      this,
      [this, clean](quint64, const TaskOutcome& o) {
        auto r = valueOf<EvaluationResult>(o);
        Q_EMIT evaluationFinished(clean, r->verdict, r->error);
        refresh();
        if (m_current == clean)
          open(clean);
      }));
}

quint64 ProposalController::review(const QString& dir, const ReviewAct& act) {
  QString workspace = m_workspace;
  QString clean = absoluteDir(dir);
  return track(m_session->runTask(
      JobKind::Review, tr("%1 %2").arg(act.decision, QFileInfo(dir).fileName()),
      [clean, workspace, act](const std::atomic<bool>&) {
        auto r = std::make_shared<ReviewActResult>(runReview(clean, workspace, act));
        bool failed = !r->code.isEmpty();
        return TaskOutcome{failed, failed ? r->code + ": " + r->message : r->message, r};
      },
      this,
      [this, clean, act](quint64, const TaskOutcome& o) {
        auto r = valueOf<ReviewActResult>(o);
        // The editor compiles with the new head at once: the approved definitions now count.
        if (r->installed)
          m_session->reload();
        Q_EMIT reviewFinished(clean, act.decision, r->code, r->message);
        refresh();
        if (m_current == clean)
          open(clean);
      }));
}

quint64 ProposalController::compareCase(const QString& caseId, const QString& path) {
  QString dir = m_current, workspace = m_workspace;
  driver::DataPaths paths = m_session->dataPaths();
  return track(m_session->runTask(
      JobKind::Preview, tr("compare %1 without / with the proposal").arg(caseId),
      [dir, caseId, path, workspace, paths](const std::atomic<bool>&) {
        auto c = std::make_shared<CaseComparison>(
            views::compareCase(dir, caseId, path, workspace, paths));
        QString log = c->error.isEmpty()
                          ? tr("%1 → %2 finding(s)").arg(c->before.size()).arg(c->after.size())
                          : c->error;
        return TaskOutcome{!c->error.isEmpty(), log, c};
      },
      this,
      [this](quint64, const TaskOutcome& o) { Q_EMIT caseCompared(valueOf<CaseComparison>(o)); }));
}

} // namespace cake::views
