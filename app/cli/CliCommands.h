// Command dispatch of the `cake` CLI (kept out of main.cpp so commands stay testable units).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace cake::cli {

/// Runs one command line; returns the process exit code (0 ok, 1 blocking findings or failed
/// check, 2 usage or I/O error).
int run(const std::string& argv0, const std::vector<std::string>& args);

} // namespace cake::cli
