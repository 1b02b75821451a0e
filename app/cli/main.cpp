// `cake`: the command-line and agent-facing interface of the Cake IR compiler.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CliCommands.h"
#include "CliSupport.h"

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return cake::cli::finishStdout(cake::cli::run(argv[0], args));
  } catch (const std::exception& e) {
    // Last line of defence: an internal error is still a clear message and exit code 2.
    std::fprintf(stderr, "cake: internal error: %s\n", e.what());
    return 2;
  }
}
