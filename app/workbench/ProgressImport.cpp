// Importing a campaign folder into the workspace on the task worker, for the Progress dock's
// `--import-campaign DIR` (the same library call as `cake campaign import`).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "MainWindow.h"

#include "cake/Campaign/Campaign.h"

namespace cake::app {

views::TaskWork importCampaignWork(std::shared_ptr<const driver::Compiler> compiler,
                                   const QString& workspace, const QStringList& dirs) {
  return [compiler, ws = workspace.toStdString(), dirs](const std::atomic<bool>& cancel) {
    auto w = ws::Workspace::open(ws, ws::OpenMode::CreateIfMissing);
    if (!w)
      return views::TaskOutcome{true, QString::fromStdString(w.error().text()), nullptr};
    campaign::ImportOptions options;
    options.actor = "cake-workbench";
    QStringList logs;
    bool failed = false;
    for (const QString& dir : dirs) {
      if (cancel.load())
        break;
      campaign::ImportResult r =
          campaign::importCampaign(*compiler, *w, dir.toStdString(), options);
      QString log =
          QStringLiteral("%1: %2 imported, %3 skipped, %4 errors")
              .arg(QString::fromStdString(r.campaign.empty() ? dir.toStdString() : r.campaign))
              .arg(r.imported)
              .arg(r.skipped)
              .arg(r.errors.size());
      if (!r.errors.empty())
        log += QStringLiteral(" (first: %1:%2: %3 [%4])")
                   .arg(QString::fromStdString(r.errors.front().file))
                   .arg(r.errors.front().line)
                   .arg(QString::fromStdString(r.errors.front().message),
                        QString::fromStdString(r.errors.front().code));
      logs << log;
      failed |= r.fatal;
    }
    return views::TaskOutcome{failed, logs.join(QStringLiteral("; ")), nullptr};
  };
}

} // namespace cake::app
