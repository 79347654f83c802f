#!/usr/bin/env bash
# Installs every Debian package simtlab needs. Idempotent: installs only what is missing.
# Works as root or through sudo. The CUDA 13 toolkit (nvcc) must already be on the machine.
#
#   scripts/install-deps.sh          everything: build, tests, sweeps (Slurm), Python
#                                    package (pandas, matplotlib) and the report's browser test
#   scripts/install-deps.sh --build  only what configuring and building simtlab needs
#                                    (`make demo`): the compiler, CMake/Ninja and the libraries
set -euo pipefail
# Configure + build: compiler, CMake, the libraries simtlab links, GoogleTest (CMake looks for
# it when configuring), Python 3 (code generators), binutils.
BUILD_PKGS=(
  build-essential cmake ninja-build pkg-config git
  libyaml-cpp-dev nlohmann-json3-dev libfmt-dev libcli11-dev
  libzstd-dev liblz4-dev
  libgtest-dev libgmock-dev googletest
  python3 binutils
)
# Tests and the rest: benchmarks, sanitizer and format tools, the Slurm backend's one-node
# cluster, the Python package's pandas/matplotlib/yaml, and Chromium for the report test.
TEST_PKGS=(
  libbenchmark-dev
  clang clang-format libclang-rt-14-dev
  slurm-wlm munge
  python3-pandas python3-matplotlib python3-yaml python3-pip chromium
)
case "${1:-}" in
  --build) PKGS=("${BUILD_PKGS[@]}") ;;
  "") PKGS=("${BUILD_PKGS[@]}" "${TEST_PKGS[@]}") ;;
  *) echo "usage: $0 [--build]" >&2; exit 2 ;;
esac
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "simtlab deps: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq || true
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "simtlab deps: nvcc (CUDA 13 toolkit) not found on PATH or in /usr/local/cuda/bin." >&2
  echo "  simtlab needs the CUDA 13 toolkit to compile its test programs; install it first." >&2
  exit 1
fi
echo "simtlab deps: all present"
