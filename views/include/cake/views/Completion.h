// Completion of Cake IR text from the primitive registry (loaded at run time): primitive names
// where a statement starts, and after a primitive name the attributes it accepts.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

namespace cake::reg {
class Registry;
}

namespace cake::views {

/// What the text before the cursor asks for.
struct CompletionContext {
  enum Kind { None, Statement, Attribute };
  Kind kind = None;
  QString prefix;      ///< the partial word before the cursor
  int prefixStart = 0; ///< its 0-based position in the line
  QString primitive;   ///< Attribute: the operation's primitive
};

/// Classifies a line cut at the 0-based cursor position `column`.
CompletionContext completionContext(const QString& line, int column);

/// Candidates for a context, sorted, filtered by the prefix (case-sensitive prefix match):
/// Statement → every primitive name plus the statement and declaration keywords; Attribute →
/// the primitive's attribute names as `name=`, minus those already written on the line.
QStringList completions(const reg::Registry& registry, const CompletionContext& context,
                        const QString& line = {});

/// The dotted name (`tma.load`) around the 0-based `column` of a line, or an empty string.
QString dottedWordAt(const QString& line, int column);

/// A primitive's registry entry as rich text for a tooltip: name, category, summary, operands
/// (kind, access, optional), attributes (type, default or required) and its definition file.
/// Empty when the registry does not know the name.
QString primitiveDescription(const reg::Registry& registry, const QString& name);

} // namespace cake::views
