// Owns source buffers and maps byte offsets to 1-based line/column positions.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cake {

/// Identifies a buffer registered with a SourceManager; 0 is "no file".
using FileId = std::uint32_t;

/// A half-open byte range [begin, end) inside one buffer.
struct SourceRange {
  FileId file = 0;
  std::uint32_t begin = 0;
  std::uint32_t end = 0;

  bool valid() const { return file != 0; }
  /// The smallest range that covers both (same file assumed; an invalid side is ignored).
  static SourceRange cover(SourceRange a, SourceRange b);
  friend bool operator==(const SourceRange&, const SourceRange&) = default;
};

/// A resolved position. Columns count Unicode code points, starting at 1.
struct LineColumn {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

/// Holds every buffer a compilation reads (kernels, primitive and target files) so that any
/// diagnostic can be rendered long after the parser is gone.
/// A manager may extend a read-only `base` (e.g. the one holding the registry files): its own
/// buffers are numbered after the base's, so per-job managers can share loaded data files
/// without copying them and without locking.
class SourceManager {
public:
  explicit SourceManager(const SourceManager* base = nullptr);
  ~SourceManager();
  SourceManager(const SourceManager&) = delete;
  SourceManager& operator=(const SourceManager&) = delete;

  /// Registers a buffer; the returned id stays valid for the manager's lifetime.
  FileId addBuffer(std::string name, std::string content);

  bool contains(FileId file) const { return file != 0 && file <= bufferCount(); }
  const std::string& name(FileId file) const;
  std::string_view text(FileId file) const;
  std::size_t bufferCount() const { return m_baseCount + m_buffers.size(); }

  /// Maps a byte offset (clamped to the buffer) to a line and code-point column.
  LineColumn lineColumn(FileId file, std::uint32_t offset) const;
  /// The text of a 1-based line without its line terminator.
  std::string_view lineText(FileId file, std::uint32_t line) const;
  std::uint32_t lineCount(FileId file) const;
  /// The byte offset where a 1-based line starts.
  std::uint32_t lineStart(FileId file, std::uint32_t line) const;

private:
  struct Buffer {
    std::string name;
    std::string content;
    std::vector<std::uint32_t> lineStarts;
    bool ascii = true; ///< columns are byte offsets (O(1) lookup even on huge lines)
  };
  const Buffer& buffer(FileId file) const;
  const SourceManager* m_base = nullptr;
  std::size_t m_baseCount = 0;
  std::vector<std::unique_ptr<Buffer>> m_buffers;
};

} // namespace cake
