// The Lineage dock's controller: imports a campaign folder into the workbench's workspace and
// reads a stored campaign back, both as CompileSession Import jobs (the GUI thread never parses
// or assesses), and watches the imported folder so that appended candidates are imported
// incrementally and appear without a restart.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"
#include "cake/views/LineageData.h"

#include <QFileSystemWatcher>
#include <QObject>
#include <QHash>
#include <QTimer>

namespace cake::views {

/// One import as the dock reports it (campaign::ImportResult, located errors as text).
struct ImportSummary {
  QString folder;
  QString campaign;
  int imported = 0, skipped = 0, pending = 0;
  bool fatal = false;
  QStringList errors;   ///< "file:line:col: message [code]"
  QString text() const; ///< "imported 3 · skipped 58 · pending 1 · 0 errors"
};
using ImportSummaryPtr = std::shared_ptr<const ImportSummary>;

class LineageController : public QObject {
  Q_OBJECT
public:
  explicit LineageController(CompileSession* session, QObject* parent = nullptr);

  /// The workspace store imports go into and campaigns are read from (empty: none).
  void setWorkspace(const QString& dir) { m_workspace = dir; }
  const QString& workspace() const { return m_workspace; }
  /// Imports the campaign folder (Import job), then shows that campaign and watches the
  /// folder. Waits for the compiler when it is not loaded yet. Imports run one at a time, in
  /// the order asked (one SQLite writer; the last one asked is shown). Returns false without
  /// a workspace.
  bool importFolder(const QString& dir);
  /// Shows a stored campaign (Import job reading the store) and watches its folder when it
  /// still exists. `failed` when no campaign has that name.
  bool showCampaign(const QString& name);
  const LineagePtr& lineage() const { return m_lineage; }
  const ImportSummaryPtr& lastImport() const { return m_lastImport; }
  /// The folder being watched (empty: none).
  QString watchedFolder() const { return m_watchFolder; }
  /// Watch the shown campaign's folder for appended candidates (default on).
  void setWatching(bool on);
  bool watching() const { return m_watchOn; }
  /// The quiet time after the last change before a re-import (default 300 ms).
  void setDebounceMs(int ms) { m_debounce.setInterval(ms); }
  /// Import or read jobs queued or running (0: idle).
  int pendingJobs() const { return m_running + int(m_queue.size()) + (m_rerun ? 1 : 0); }
  /// Folder imports queued or running: each ends with `imported` or `failed`.
  int pendingImports() const { return m_importing + int(m_queue.size()) + (m_rerun ? 1 : 0); }

Q_SIGNALS:
  /// An import finished (also one started by the watch).
  void imported(cake::views::ImportSummaryPtr summary);
  /// The shown campaign's lineage is new or has grown.
  void lineageChanged(cake::views::LineagePtr lineage);
  /// An import or read could not run (no workspace, the store refused, unknown campaign).
  void failed(QString message);

private:
  /// Runs an Import job: import `folder` first when given, then read `campaign` (the imported
  /// one when empty) from the store.
  void startJob(const QString& folder, const QString& campaign, bool fromWatch);
  void watch(const QString& folder);
  void onChanged();
  /// Starts the next queued import when none runs and the compiler is loaded.
  void startQueued();

  CompileSession* m_session;
  QString m_workspace;
  LineagePtr m_lineage;
  ImportSummaryPtr m_lastImport;
  QFileSystemWatcher m_watcher;
  QTimer m_debounce;
  QString m_watchFolder;
  bool m_watchOn = true;
  int m_running = 0;
  int m_importing = 0;    ///< running jobs that import a folder
  QStringList m_queue;    ///< folders waiting for the running import (or the compiler)
  bool m_waiting = false; ///< waiting for compilerReady
  QHash<quint64, bool> m_jobs; ///< Import jobs of this controller in flight → imports a folder
  bool m_rerun = false; ///< a change arrived while an import was running
};

} // namespace cake::views

Q_DECLARE_METATYPE(cake::views::ImportSummaryPtr)
Q_DECLARE_METATYPE(cake::views::LineagePtr)
