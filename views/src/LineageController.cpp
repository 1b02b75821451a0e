// The Lineage dock's controller: campaign imports and store reads as Import jobs (each opens its
// own workspace connection), and the debounced watch of the shown campaign's folder.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/LineageController.h"

#include "cake/Campaign/Campaign.h"

#include <QDir>
#include <QFileInfo>
#include <thread>

namespace cake::views {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

/// What one Import job hands back to the GUI thread.
struct ImportJobResult {
  ImportSummaryPtr summary; ///< null when nothing was imported (a read only)
  LineagePtr lineage;       ///< null when the campaign could not be read
  QString error;
};

ImportSummaryPtr summarize(const QString& folder, const campaign::ImportResult& r) {
  auto s = std::make_shared<ImportSummary>();
  s->folder = folder;
  s->campaign = qs(r.campaign);
  s->imported = int(r.imported);
  s->skipped = int(r.skipped);
  s->pending = int(r.pending);
  s->fatal = r.fatal;
  for (const campaign::LogError& e : r.errors) {
    QString where = qs(e.file);
    if (e.line > 0)
      where += QStringLiteral(":%1:%2").arg(e.line).arg(e.column);
    s->errors << QStringLiteral("%1: %2 [%3]").arg(where, qs(e.message), qs(e.code));
  }
  return s;
}

/// The body of an Import job (worker thread): import, then read the campaign back.
ImportJobResult runImport(const std::shared_ptr<const driver::Compiler>& compiler,
                          const QString& workspace, const QString& folder, QString campaignName) {
  ImportJobResult out;
  auto w = ws::Workspace::open(workspace.toStdString(), ws::OpenMode::CreateIfMissing);
  if (!w) {
    out.error = qs(w.error().text());
    return out;
  }
  if (!folder.isEmpty()) {
    if (!compiler) {
      out.error = QStringLiteral("the compiler is not loaded");
      return out;
    }
    campaign::ImportOptions options;
    // One core stays free for the GUI thread and the layout worker.
    options.jobs = std::max(1u, std::thread::hardware_concurrency() - 1);
    options.actor = "cake-workbench";
    campaign::ImportResult r =
        campaign::importCampaign(*compiler, *w, folder.toStdString(), options);
    out.summary = summarize(folder, r);
    if (r.campaign.empty()) {
      out.error = out.summary->errors.value(0, QStringLiteral("the campaign could not be read"));
      return out;
    }
    campaignName = qs(r.campaign);
  }
  auto record = w->campaign(campaignName.toStdString());
  if (!record || !*record) {
    out.error =
        record ? QStringLiteral("no campaign '%1' in the workspace %2").arg(campaignName, workspace)
               : qs(record.error().text());
    return out;
  }
  auto candidates = w->candidates(campaignName.toStdString());
  if (!candidates) {
    out.error = qs(candidates.error().text());
    return out;
  }
  out.lineage = std::make_shared<const Lineage>(buildLineage(**record, *candidates));
  return out;
}

} // namespace

QString ImportSummary::text() const {
  return QObject::tr("imported %1 · skipped %2 · pending %3 · %4 error(s)")
      .arg(imported)
      .arg(skipped)
      .arg(pending)
      .arg(errors.size());
}

LineageController::LineageController(CompileSession* session, QObject* parent)
    : QObject(parent), m_session(session) {
  qRegisterMetaType<ImportSummaryPtr>();
  qRegisterMetaType<LineagePtr>();
  m_debounce.setSingleShot(true);
  m_debounce.setInterval(300);
  connect(&m_debounce, &QTimer::timeout, this, &LineageController::onChanged);
  connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, [this] { m_debounce.start(); });
  connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, [this] { m_debounce.start(); });
  // A cancelled job delivers nothing: still count it as done.
  connect(m_session, &CompileSession::jobStateChanged, this,
          [this](quint64 job, JobState state, const QString&) {
            if (state == JobState::Cancelled && m_jobs.contains(job)) {
              m_importing -= m_jobs.take(job) ? 1 : 0;
              --m_running;
              startQueued();
            }
          });
}

bool LineageController::importFolder(const QString& dir) {
  if (m_workspace.isEmpty()) {
    Q_EMIT failed(tr("no workspace to import into (--workspace)"));
    return false;
  }
  m_queue << QDir::cleanPath(QFileInfo(dir).absoluteFilePath());
  startQueued();
  return true;
}

void LineageController::startQueued() {
  if (m_importing > 0 || m_queue.isEmpty() || m_waiting)
    return;
  if (!m_session->compiler()) {
    // The import assesses every candidate: it needs the compiler.
    m_waiting = true;
    auto* once = new QObject(this);
    connect(m_session, &CompileSession::compilerReady, once, [this, once] {
      once->deleteLater();
      m_waiting = false;
      startQueued();
    });
    return;
  }
  startJob(m_queue.takeFirst(), {}, false);
}

bool LineageController::showCampaign(const QString& name) {
  if (m_workspace.isEmpty()) {
    Q_EMIT failed(tr("no workspace to read campaign '%1' from (--workspace)").arg(name));
    return false;
  }
  startJob({}, name, false);
  return true;
}

void LineageController::setWatching(bool on) {
  m_watchOn = on;
  if (!on) {
    if (!m_watcher.files().isEmpty())
      m_watcher.removePaths(m_watcher.files());
    if (!m_watcher.directories().isEmpty())
      m_watcher.removePaths(m_watcher.directories());
  } else if (!m_watchFolder.isEmpty()) {
    watch(m_watchFolder);
  }
}

void LineageController::watch(const QString& folder) {
  if (folder != m_watchFolder) {
    if (!m_watcher.files().isEmpty())
      m_watcher.removePaths(m_watcher.files());
    if (!m_watcher.directories().isEmpty())
      m_watcher.removePaths(m_watcher.directories());
    m_watchFolder = folder;
  }
  if (!m_watchOn || folder.isEmpty() || !QFileInfo(folder).isDir())
    return;
  // The folder catches a log created or replaced (a rename drops a file watch); the log itself
  // catches appends. Re-added after every change for that reason.
  if (!m_watcher.directories().contains(folder))
    m_watcher.addPath(folder);
  QString log = QDir(folder).filePath(QString::fromLatin1(campaign::kLogFile));
  if (QFileInfo::exists(log) && !m_watcher.files().contains(log))
    m_watcher.addPath(log);
}

void LineageController::onChanged() {
  if (m_watchFolder.isEmpty() || !m_lineage)
    return;
  if (m_running > 0 || !m_queue.isEmpty()) {
    m_rerun = true; // imported once the running and queued jobs are done
    return;
  }
  watch(m_watchFolder);
  startJob(m_watchFolder, {}, true);
}

void LineageController::startJob(const QString& folder, const QString& campaignName,
                                 bool fromWatch) {
  ++m_running;
  m_importing += folder.isEmpty() ? 0 : 1;
  std::shared_ptr<const driver::Compiler> compiler = m_session->compiler();
  QString workspace = m_workspace;
  QString what = folder.isEmpty() ? tr("read campaign %1").arg(campaignName)
                 : fromWatch      ? tr("import appended candidates of %1").arg(folder)
                                  : tr("import campaign %1").arg(folder);
  quint64 id = m_session->runTask(
      JobKind::Import, what,
      [compiler, workspace, folder, campaignName](const std::atomic<bool>&) {
        auto r =
            std::make_shared<ImportJobResult>(runImport(compiler, workspace, folder, campaignName));
        TaskOutcome o;
        o.failed = !r->error.isEmpty();
        o.log = !r->error.isEmpty() ? r->error
                : r->summary        ? r->summary->text()
                             : QStringLiteral("%1 candidate(s)").arg(r->lineage->nodes.size());
        o.value = r;
        return o;
      },
      this,
      [this, fromWatch](quint64 job, const TaskOutcome& o) {
        m_importing -= m_jobs.take(job) ? 1 : 0;
        --m_running;
        auto r = std::static_pointer_cast<const ImportJobResult>(o.value);
        if (!r) {
          Q_EMIT failed(o.log);
        } else {
          if (r->summary) {
            m_lastImport = r->summary;
            Q_EMIT imported(r->summary);
          }
          if (!r->error.isEmpty()) {
            Q_EMIT failed(r->error);
          } else if (r->lineage) {
            // A watch import of a campaign no longer shown does not replace the shown one.
            bool same = !m_lineage || m_lineage->campaign == r->lineage->campaign;
            if (!fromWatch || same) {
              bool grew =
                  !m_lineage || !same || m_lineage->nodes.size() != r->lineage->nodes.size();
              m_lineage = r->lineage;
              QString folder = QDir::cleanPath(QFileInfo(m_lineage->folder).absoluteFilePath());
              watch(QFileInfo(folder).isDir() ? folder : QString());
              if (grew || !fromWatch)
                Q_EMIT lineageChanged(m_lineage);
            }
          }
        }
        if (!m_queue.isEmpty()) {
          startQueued();
        } else if (m_rerun && m_running == 0) {
          m_rerun = false;
          onChanged();
        }
      });
  m_jobs.insert(id, !folder.isEmpty());
}

} // namespace cake::views
