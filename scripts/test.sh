#!/usr/bin/env bash
# Set-up command 2: install, build, and run the whole test suite: the release build with every
# test (GPU tests skip with a printed reason where no GPU is present), then the model's tests
# again under AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
echo "== release build and tests"
cmake --preset default
cmake --build --preset default
ctest --preset default --label-exclude gpu
echo "== GPU tests (ctest label gpu): each prints why it skips where no GPU is present"
ctest --preset default --label-regex gpu --verbose --no-tests=ignore
echo "== model tests under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake --preset sanitize
cmake --build --preset sanitize
ctest --preset sanitize
