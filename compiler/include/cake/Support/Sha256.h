// SHA-256 digests for content hashes (compiler revision, schedule hash).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace cake {

/// Incremental SHA-256 (FIPS 180-4).
class Sha256 {
public:
  Sha256();
  void update(std::string_view data);
  std::array<std::uint8_t, 32> finish();
  /// Lower-case hex digest of everything fed so far; the object is reset afterwards.
  std::string hexDigest();

private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 8> m_h;
  std::array<std::uint8_t, 64> m_buf{};
  std::size_t m_bufLen = 0;
  std::uint64_t m_total = 0;
};

std::string sha256Hex(std::string_view data);

} // namespace cake
