// The Open Recent list: absolute paths only (B4).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/RecentFiles.h"

#include <QDir>
#include <QFileInfo>

namespace cake::views {

QStringList recentFiles(const QSettings& settings, const QString& key) {
  QStringList out;
  for (const QString& p : settings.value(key).toStringList())
    if (QDir::isAbsolutePath(p) && !out.contains(p))
      out.append(p);
  return out;
}

void addRecentFile(QSettings& settings, const QString& path, const QString& key, int limit) {
  QFileInfo info(path);
  QString absolute = info.exists() ? info.canonicalFilePath() : info.absoluteFilePath();
  QStringList recent = recentFiles(settings, key);
  recent.removeAll(absolute);
  recent.prepend(absolute);
  while (recent.size() > limit)
    recent.removeLast();
  settings.setValue(key, recent);
}

} // namespace cake::views
