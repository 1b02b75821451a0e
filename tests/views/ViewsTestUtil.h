// Shared helpers of the view tests: the compiler loaded from the source tree, snapshots of
// corpus files and of text, built exactly as the compile façade builds them.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
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

/// Copies a directory tree (e.g. the bundled primitives) to `to`.
inline bool copyTree(const QString& from, const QString& to) {
  if (!QDir().mkpath(to))
    return false;
  const QFileInfoList entries =
      QDir(from).entryInfoList(QDir::Dirs | QDir::Files | QDir::NoDotAndDotDot);
  for (const QFileInfo& e : entries) {
    QString target = QDir(to).filePath(e.fileName());
    if (e.isDir() ? !copyTree(e.filePath(), target) : !QFile::copy(e.filePath(), target))
      return false;
  }
  return true;
}

/// A compiler whose registry is a copy of the bundled primitives in `dir` plus one primitive
/// written there at run time: `ew.scaled_fill` (ew.fill with a required `scale` attribute).
inline std::shared_ptr<const driver::Compiler> compilerWithAddedPrimitive(const QString& dir) {
  QString prims = dir + QStringLiteral("/primitives");
  if (!copyTree(QStringLiteral(CAKE_SOURCE_DIR) + "/compiler/primitives", prims))
    return nullptr;
  QFile base(QStringLiteral(CAKE_SOURCE_DIR) + "/compiler/primitives/elementwise/ew.fill.json");
  if (!base.open(QIODevice::ReadOnly))
    return nullptr;
  QJsonObject def = QJsonDocument::fromJson(base.readAll()).object();
  def[QStringLiteral("name")] = QStringLiteral("ew.scaled_fill");
  QJsonArray attrs = def[QStringLiteral("attributes")].toArray();
  attrs.append(QJsonObject{{"name", "scale"}, {"type", "float"}, {"required", true},
                           {"doc", "factor applied to the value"}});
  def[QStringLiteral("attributes")] = attrs;
  QFile added(prims + QStringLiteral("/elementwise/ew.scaled_fill.json"));
  if (!added.open(QIODevice::WriteOnly))
    return nullptr;
  added.write(QJsonDocument(def).toJson());
  added.close();
  driver::DataPaths paths = dataPaths();
  paths.primitives = prims.toStdString();
  std::shared_ptr<const driver::Compiler> c(driver::Compiler::load(paths));
  return c->ok() ? c : nullptr;
}

/// Every .cake file of the corpus (positive and negative, not the proposals' examples), sorted.
inline QStringList corpusFiles() {
  QStringList out;
  QDirIterator it(QStringLiteral(CAKE_CORPUS_DIR), {QStringLiteral("*.cake")}, QDir::Files,
                  QDirIterator::Subdirectories);
  while (it.hasNext()) {
    QString p = it.next();
    if (!p.contains(QStringLiteral("/proposals/")))
      out << p;
  }
  out.sort();
  return out;
}

} // namespace cake::test
