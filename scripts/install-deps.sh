#!/usr/bin/env bash
# Installs every Debian package simtlab needs. Idempotent: installs only what is missing.
# Works as root or through sudo. The CUDA 13 toolkit (nvcc) must already be on the machine.
set -euo pipefail
PKGS=(
  build-essential cmake ninja-build pkg-config git
  libyaml-cpp-dev nlohmann-json3-dev libfmt-dev libcli11-dev
  libzstd-dev liblz4-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  clang clang-format libclang-rt-14-dev
  python3 binutils
  slurm-wlm munge
  python3-pandas python3-matplotlib python3-yaml python3-pip chromium
)
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
