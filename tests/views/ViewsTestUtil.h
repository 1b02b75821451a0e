// Shared helpers of the view tests: the compiler loaded from the source tree, snapshots of
// corpus files and of text, built exactly as the compile façade builds them.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"

#include <QDirIterator>
#include <QFile>
#include <QString>
#include <QStringList>
#include <memory>
#include <string>

namespace cake::test {

inline driver::DataPaths dataPaths() {
  return {std::string(CAKE_SOURCE_DIR) + "/compiler/primitives",
          std::string(CAKE_SOURCE_DIR) + "/compiler/targets",
          std::string(CAKE_SOURCE_DIR) + "/compiler/rules"};
}

inline std::shared_ptr<const driver::Compiler> compiler() {
  static std::shared_ptr<const driver::Compiler> c(driver::Compiler::load(dataPaths()));
  return c;
}

/// A snapshot of `text` with its view data, as a check job makes it.
inline views::CheckSnapshotPtr snapshotOf(const QString& path, const QString& text, quint64 id = 1) {
  auto s = std::make_shared<views::CheckSnapshot>();
  s->jobId = id;
  s->path = path;
  s->text = text;
  s->result = compiler()->check(path.toStdString(), text.toStdString());
  s->views = views::buildViewData(s->result);
  return s;
}

inline QString readFile(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly))
    return {};
  return QString::fromUtf8(f.readAll());
}

inline QString corpusPath(const QString& relative) {
  return QStringLiteral(CAKE_CORPUS_DIR) + QLatin1Char('/') + relative;
}

inline views::CheckSnapshotPtr corpusSnapshot(const QString& relative) {
  QString p = corpusPath(relative);
  return snapshotOf(p, readFile(p));
}

/// Every .cake file of the corpus (positive and negative), sorted.
inline QStringList corpusFiles() {
  QStringList out;
  QDirIterator it(QStringLiteral(CAKE_CORPUS_DIR), {QStringLiteral("*.cake")}, QDir::Files,
                  QDirIterator::Subdirectories);
  while (it.hasNext())
    out << it.next();
  out.sort();
  return out;
}

} // namespace cake::test
