#!/usr/bin/env bash
# Installs the Debian packages roofcast builds and tests with. Run as root on Debian 12+.
set -euo pipefail
packages=(cmake ninja-build g++ clang libclang-rt-14-dev make git pkg-config
          libeigen3-dev libboost-program-options-dev nlohmann-json3-dev
          libgtest-dev libbenchmark-dev gnuplot-nox
          python3 python3-venv python3-dev)
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: run as root (apt-get install needs it), e.g. sudo bash $0" >&2
  exit 1
fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all Debian packages present"
fi
if [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: CUDA toolkit found at /usr/local/cuda: kernels and validation will build"
else
  echo "install-deps: no CUDA toolkit at /usr/local/cuda: building the model, CLI and CPU tests only"
fi
