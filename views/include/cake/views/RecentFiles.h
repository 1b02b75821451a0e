// The Open Recent list of the workbench, kept in QSettings: absolute paths only, newest first,
// bounded, so an entry opens from any working directory (B4).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QSettings>
#include <QString>
#include <QStringList>

namespace cake::views {

/// The recent files under `key`, newest first. Entries an older version saved relative to an
/// unknown working directory are left out (they cannot be opened reliably).
QStringList recentFiles(const QSettings& settings,
                        const QString& key = QStringLiteral("recentFiles"));

/// Puts `path` first, made absolute against the current directory (and canonical when it
/// exists, so two spellings of one file are one entry); keeps at most `limit` entries.
void addRecentFile(QSettings& settings, const QString& path,
                   const QString& key = QStringLiteral("recentFiles"), int limit = 10);

} // namespace cake::views
