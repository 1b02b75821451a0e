// The workbench's Examples menu as data: the corpus's kernels grouped by what they are (expert
// kernels with their target, negatives by finding family, numerical cases, proposals' examples)
// and sorted, so the menu is built from a tested structure instead of a flat manifest order.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>

namespace cake::views {

/// One kernel of the menu.
struct ExampleEntry {
  QString id;    ///< the manifest id ("negative/wait-cycle"), or a file's relative path
  QString label; ///< what the menu shows ("wait-cycle", "hopper_gemm_ws_bf16 (sm_90a)")
  QString path;  ///< absolute file path
};

/// A submenu: entries sorted by label, subgroups in a fixed, meaningful order.
struct ExampleGroup {
  QString title;
  QList<ExampleEntry> entries;
  QList<ExampleGroup> groups;
  /// Every entry of this group and its subgroups.
  int size() const;
};

/// Groups the examples of a corpus directory. With a manifest.json: a case whose top folder
/// holds one case is an expert kernel (labelled with its `target=`), a folder of several cases
/// is its own group ("negative" split by the family of the first expected code); without one,
/// the directory's *.cake files. Proposal folders' examples/{positive,negative}/*.cake (under
/// proposals/) form the last group. Empty groups are left out.
QList<ExampleGroup> groupExamples(const QString& corpusDir);

/// The target a kernel file declares (`kernel NAME target=sm_90a`), "" when none is found in
/// its first 200 lines.
QString kernelTarget(const QString& path);

} // namespace cake::views
