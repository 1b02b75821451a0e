# shellcheck shell=bash
# Shared setup of scripts/run, scripts/test and scripts/fuzz: Debian packages, CMake configure
# (Ninja, ccache when present) and the Ninja build. Sourced, never executed. Idempotent: with
# every package present and the build directory configured it costs one dpkg-query and one
# no-op ninja run.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Environment knobs:
#   CAKE_BUILD_DIR       build directory (default: <repo>/build)
#   CAKE_BUILD_TYPE      CMake build type (default: RelWithDebInfo)
#   CAKE_CMAKE_ARGS      extra arguments for the configure step (forces a configure)
#   CAKE_JOBS            ninja parallelism (default: all cores)
#   CAKE_SKIP_PACKAGES=1 skip the package check (e.g. on a non-Debian machine)

if [[ -n "${CAKE_SETUP_SOURCED:-}" ]]; then
  return 0
fi
CAKE_SETUP_SOURCED=1

CAKE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CAKE_BUILD_DIR="${CAKE_BUILD_DIR:-${CAKE_ROOT}/build}"
CAKE_BUILD_TYPE="${CAKE_BUILD_TYPE:-RelWithDebInfo}"
CAKE_JOBS="${CAKE_JOBS:-$(nproc 2>/dev/null || echo 2)}"

# Every Debian 12 (bookworm main) package the build, the tests, the benchmarks and the fuzzers
# need. See shared/docs/toolchain.md.
CAKE_PACKAGES=(
  # Qt 6, QCustomPlot (Qt 6 build), Graphviz
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev
  libqcustomplot-dev libqcustomplot2.1-qt6 libgraphviz-dev
  # LLVM 19 (NVPTX lowering; FileCheck and lit for the lit tests); zstd for LLVM's CMake config
  llvm-19-dev llvm-19-tools libzstd-dev
  # the workspace store (SQLite C library)
  libsqlite3-dev
  # headless GUI runs
  xvfb xauth
  # desktop integration checks (desktop-file-validate, update-mime-database, appstreamcli)
  desktop-file-utils shared-mime-info appstream
  # reference operators (BLAS GEMM oracle) and the text layer of `cake diff`
  libopenblas-dev libdtl-dev
  # real executors in the tests: a one-node Slurm cluster and an sshd on localhost
  slurm-wlm munge openssh-server openssh-client
  # build tools
  cmake ninja-build ccache g++ pkg-config lld python3
  # unit tests and benchmarks (python3-jsonschema validates the SARIF output)
  libgtest-dev libbenchmark-dev python3-jsonschema
  # sanitizers and libFuzzer (scripts/fuzz)
  clang libclang-rt-14-dev
)

cake_log() { printf '\033[1m[cake]\033[0m %s\n' "$*" >&2; }
cake_die() { printf '\033[1;31m[cake] error:\033[0m %s\n' "$*" >&2; exit 1; }

# Prints the packages of CAKE_PACKAGES that are not installed, one per line.
cake_missing_packages() {
  local pkg status
  for pkg in "${CAKE_PACKAGES[@]}"; do
    status="$(dpkg-query -W -f='${Status}' "${pkg}" 2>/dev/null || true)"
    if [[ "${status}" != "install ok installed" ]]; then
      printf '%s\n' "${pkg}"
    fi
  done
}

# Installs missing packages when root; otherwise prints the exact command and exits 1.
cake_ensure_packages() {
  if [[ "${CAKE_SKIP_PACKAGES:-0}" == 1 ]]; then
    cake_log "CAKE_SKIP_PACKAGES=1: not checking Debian packages"
    return 0
  fi
  if ! command -v dpkg-query >/dev/null 2>&1; then
    cake_log "dpkg-query not found (not a Debian system?); skipping the package check"
    return 0
  fi
  local missing=()
  mapfile -t missing < <(cake_missing_packages)
  if ((${#missing[@]} == 0)); then
    return 0
  fi
  local install_cmd="apt-get install -y --no-install-recommends ${missing[*]}"
  if [[ "$(id -u)" -ne 0 ]]; then
    cake_log "missing Debian packages: ${missing[*]}"
    printf '\nInstall them as root, then run this script again:\n\n' >&2
    printf '  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive %s\n\n' \
      "${install_cmd}" >&2
    printf '(or run this script as root: it installs them itself)\n' >&2
    exit 1
  fi
  cake_log "installing ${#missing[@]} missing Debian package(s): ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
  # Re-check: a package name that apt could not resolve must not pass silently.
  mapfile -t missing < <(cake_missing_packages)
  if ((${#missing[@]} > 0)); then
    cake_die "still missing after apt-get install: ${missing[*]}"
  fi
}

# Value of a cache entry (KEY:TYPE=VALUE) in BUILD_DIR/CMakeCache.txt, empty when absent.
cake_cache_value() {
  local dir="$1" key="$2"
  [[ -f "${dir}/CMakeCache.txt" ]] || return 0
  sed -n "s/^${key}:[A-Z]*=//p" "${dir}/CMakeCache.txt" | head -n 1
}

# cake_configure BUILD_DIR [-DKEY=VALUE ...]
# Configures with Ninja unless BUILD_DIR already holds a Ninja build whose cache has every
# given -DKEY=VALUE (ninja re-runs CMake by itself when a CMakeLists.txt changes).
cake_configure() {
  local dir="$1"
  shift
  local args=("$@")
  if [[ -n "${CAKE_CMAKE_ARGS:-}" ]]; then
    local extra=()
    read -r -a extra <<<"${CAKE_CMAKE_ARGS}"
    args+=("${extra[@]}")
  fi
  local generator
  generator="$(cake_cache_value "${dir}" CMAKE_GENERATOR)"
  if [[ -n "${generator}" && "${generator}" != "Ninja" ]]; then
    cake_log "${dir} was configured for '${generator}', not Ninja: clearing its CMake cache"
    rm -rf "${dir}/CMakeCache.txt" "${dir}/CMakeFiles"
  fi
  local needed=0
  if [[ ! -f "${dir}/build.ninja" || ! -f "${dir}/CMakeCache.txt" || -n "${CAKE_CMAKE_ARGS:-}" ]]; then
    needed=1
  else
    local arg kv key value
    for arg in "${args[@]}"; do
      [[ "${arg}" == -D* ]] || { needed=1; break; }
      kv="${arg#-D}"
      key="${kv%%=*}"
      key="${key%%:*}" # -DKEY:TYPE=VALUE
      value="${kv#*=}"
      if [[ "$(cake_cache_value "${dir}" "${key}")" != "${value}" ]]; then
        needed=1
        break
      fi
    done
  fi
  if ((needed)); then
    cake_log "configuring ${dir} (${CAKE_BUILD_TYPE})"
    cmake -S "${CAKE_ROOT}" -B "${dir}" -G Ninja "${args[@]}" ||
      cake_die "CMake configure of ${dir} failed (see the messages above)"
  fi
}

# cake_build BUILD_DIR [TARGET ...]
cake_build() {
  local dir="$1"
  shift
  cake_log "building ${dir} with ${CAKE_JOBS} job(s)"
  ninja -C "${dir}" -j "${CAKE_JOBS}" "$@" || cake_die "build of ${dir} failed (see the errors above)"
}

# cake_setup [-DKEY=VALUE ...]: packages, configure and build of build/ (scripts/run, scripts/test).
# The given cache values are enforced; other options keep the project default or the value an
# earlier configure of build/ chose.
cake_setup() {
  cake_ensure_packages
  cake_configure "${CAKE_BUILD_DIR}" "-DCMAKE_BUILD_TYPE=${CAKE_BUILD_TYPE}" "$@"
  cake_build "${CAKE_BUILD_DIR}"
}
