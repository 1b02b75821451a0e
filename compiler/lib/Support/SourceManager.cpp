// Source buffer ownership and offset → line/column mapping.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Support/SourceManager.h"

#include <algorithm>
#include <stdexcept>

namespace cake {

SourceRange SourceRange::cover(SourceRange a, SourceRange b) {
  if (!a.valid())
    return b;
  if (!b.valid() || a.file != b.file)
    return a;
  return {a.file, std::min(a.begin, b.begin), std::max(a.end, b.end)};
}

SourceManager::SourceManager(const SourceManager* base)
    : m_base(base), m_baseCount(base ? base->bufferCount() : 0) {}
SourceManager::~SourceManager() = default;

FileId SourceManager::addBuffer(std::string name, std::string content) {
  auto buf = std::make_unique<Buffer>();
  buf->name = std::move(name);
  buf->content = std::move(content);
  buf->lineStarts.push_back(0);
  const std::string& text = buf->content;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (static_cast<unsigned char>(text[i]) >= 0x80)
      buf->ascii = false;
    if (text[i] == '\n')
      buf->lineStarts.push_back(static_cast<std::uint32_t>(i + 1));
    else if (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))
      buf->lineStarts.push_back(static_cast<std::uint32_t>(i + 1));
  }
  m_buffers.push_back(std::move(buf));
  return static_cast<FileId>(m_baseCount + m_buffers.size());
}

const SourceManager::Buffer& SourceManager::buffer(FileId file) const {
  if (file != 0 && file <= m_baseCount)
    return m_base->buffer(file);
  if (file == 0 || file > m_baseCount + m_buffers.size())
    throw std::out_of_range("invalid FileId");
  return *m_buffers[file - 1 - m_baseCount];
}

const std::string& SourceManager::name(FileId file) const { return buffer(file).name; }

std::string_view SourceManager::text(FileId file) const { return buffer(file).content; }

LineColumn SourceManager::lineColumn(FileId file, std::uint32_t offset) const {
  const Buffer& buf = buffer(file);
  offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(buf.content.size()));
  auto it = std::upper_bound(buf.lineStarts.begin(), buf.lineStarts.end(), offset);
  std::uint32_t lineIndex = static_cast<std::uint32_t>(it - buf.lineStarts.begin()) - 1;
  std::uint32_t start = buf.lineStarts[lineIndex];
  if (buf.ascii)
    return {lineIndex + 1, offset - start + 1};
  std::uint32_t column = 1;
  for (std::uint32_t i = start; i < offset; ++i) {
    // Continuation bytes of a UTF-8 sequence do not start a new column.
    if ((static_cast<unsigned char>(buf.content[i]) & 0xC0) != 0x80)
      ++column;
  }
  return {lineIndex + 1, column};
}

std::uint32_t SourceManager::lineCount(FileId file) const {
  return static_cast<std::uint32_t>(buffer(file).lineStarts.size());
}

std::uint32_t SourceManager::lineStart(FileId file, std::uint32_t line) const {
  const Buffer& buf = buffer(file);
  if (line == 0 || line > buf.lineStarts.size())
    return static_cast<std::uint32_t>(buf.content.size());
  return buf.lineStarts[line - 1];
}

std::string_view SourceManager::lineText(FileId file, std::uint32_t line) const {
  const Buffer& buf = buffer(file);
  if (line == 0 || line > buf.lineStarts.size())
    return {};
  std::size_t begin = buf.lineStarts[line - 1];
  std::size_t end = line < buf.lineStarts.size() ? buf.lineStarts[line] : buf.content.size();
  std::string_view view(buf.content.data() + begin, end - begin);
  while (!view.empty() && (view.back() == '\n' || view.back() == '\r'))
    view.remove_suffix(1);
  return view;
}

} // namespace cake
