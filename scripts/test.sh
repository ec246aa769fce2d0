#!/usr/bin/env bash
# Set-up command 2: install, build, and run the whole test suite: the release build with every
# test (GPU tests skip with a printed reason where no GPU is present; packaging_consumer installs
# the build and builds a consumer against it), the Python package built by `pip install ./` in a
# venv under build/ with its pytest suite (needs PyPI), then the model's tests again under
# AddressSanitizer and UndefinedBehaviorSanitizer, and each libFuzzer target (fuzz/) for 60 s.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
echo "== release build and tests"
cmake --preset default
cmake --build --preset default
ctest --preset default --label-exclude gpu
echo "== GPU tests (ctest label gpu): each prints why it skips where no GPU is present"
ctest --preset default --label-regex gpu --verbose --no-tests=ignore
echo "== Python package: pip install ./ into build/python-venv, then pytest python/tests"
# Debian's python3 (install-deps installs python3-venv and python3-dev for it).
python=/usr/bin/python3
[ -x "$python" ] || python=python3
venv=build/python-venv
if [ ! -x "$venv/bin/python" ]; then
  echo "python: creating $venv with $("$python" --version)"
  "$python" -m venv "$venv"
fi
echo "python: installing pytest and kernel_tuner from PyPI"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check pytest kernel_tuner
echo "python: pip install ./ (scikit-build-core and pybind11 from PyPI build the extension)"
CMAKE_BUILD_PARALLEL_LEVEL=2 "$venv/bin/python" -m pip install --quiet --disable-pip-version-check ./
echo "python: pytest python/tests (the schema tests compare with build/cli/roofcast)"
ROOFCAST_CLI="$PWD/build/cli/roofcast" "$venv/bin/python" -m pytest python/tests
echo "== model tests under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake --preset sanitize
cmake --build --preset sanitize
ctest --preset sanitize
echo "== fuzzing: each libFuzzer target for 60 s"
bash scripts/fuzz.sh 60
