// `cake primitives`: the registry as text, JSON or Markdown.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"

#include <memory>
#include <string>
#include <vector>

namespace cake::cli {

int cmdPrimitives(const std::string& argv0, const std::vector<std::string>& args);

/// Parses the `primitives` options and loads the compiler (defined in CliCommands.cpp).
std::unique_ptr<driver::Compiler> loadCompilerFor(const std::string& argv0,
                                                  const std::vector<std::string>& args,
                                                  std::vector<std::string>& names,
                                                  std::string& format, std::string& target,
                                                  int& exitCode);

} // namespace cake::cli
