#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, the `fuzz` preset: clang, ASan + UBSan) and runs each one
# for a bounded time on a scratch copy of its seed corpus.
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]     each target for SECONDS (default $FUZZ_SECONDS,
#                                                  else 60); CI runs this (scripts/test.sh)
#   bash scripts/fuzz.sh --campaign N [TARGET...]  each target until N executions, one process
#                                                  (no -jobs/-workers), for fuzz/README.md's table
#
# TARGET: spec_fuzzer, problems_fuzzer, measurement_fuzzer, cli_fuzzer (default: all four).
# The committed corpus (fuzz/corpus/<target>/) is only read: each run copies it to
# build-fuzz/corpus/<target>/ and libFuzzer adds what it finds there. A crash, a sanitizer
# report, an uncaught exception, a timeout or running out of memory leaves the input in
# build-fuzz/artifacts/ and makes this script exit 1 after the remaining targets have run.
# Every target's full libFuzzer output is in build-fuzz/logs/<target>.log.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

seconds="${FUZZ_SECONDS:-60}"
campaign_runs=""
if [ "${1:-}" = "--campaign" ]; then
  [ $# -ge 2 ] || usage
  campaign_runs="$2"
  shift 2
  [[ "$campaign_runs" =~ ^[1-9][0-9]*$ ]] || usage
elif [ $# -ge 1 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
  seconds="$1"
  shift
elif [ $# -ge 1 ] && [[ "$1" = -* ]]; then
  usage
fi
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || usage

all_targets=(spec_fuzzer problems_fuzzer measurement_fuzzer cli_fuzzer)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for target in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $target "* ]] || { echo "fuzz: unknown target '$target'" >&2; usage; }
done

# Per target: the seed folder and dictionary under fuzz/, and the longest input.
corpus_of() { echo "fuzz/corpus/${1%_fuzzer}"; }
max_len_of() {
  case "$1" in
    spec_fuzzer) echo 16384 ;;         # the spec files are ~5 KB
    problems_fuzzer) echo 8192 ;;
    measurement_fuzzer) echo 65536 ;;  # the seeds are 2-12 KB
    cli_fuzzer) echo 2048 ;;
  esac
}

# FUZZ_PRESET=fuzz-campaign: the same targets under UBSan alone (no ASan), about twice as fast,
# for the long campaign (fuzz/README.md).
preset="${FUZZ_PRESET:-fuzz}"
case "$preset" in fuzz | fuzz-campaign) ;; *) echo "fuzz: FUZZ_PRESET must be fuzz or fuzz-campaign, got '$preset'" >&2; exit 2 ;; esac
build="build-$preset"
echo "== fuzz: configure and build the fuzz preset ($build)"
start=$SECONDS
mkdir -p "$build"
cmake --preset "$preset" >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build --preset "$preset" --target "${targets[@]}"
echo "fuzz: build took $((SECONDS - start)) s"

mkdir -p "$build/artifacts" "$build/logs" "$build/dict"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"

failed=()
summary=()
for target in "${targets[@]}"; do
  seeds="$(corpus_of "$target")"
  scratch="$build/corpus/$target"
  rm -rf "$scratch"
  mkdir -p "$scratch"
  cp "$seeds"/* "$scratch"/
  # JSON targets: the shared JSON syntax plus the schema's names; the CLI's own dictionary.
  dict="$build/dict/$target.dict"
  if [ "$target" = cli_fuzzer ]; then
    cp fuzz/dict/cli.dict "$dict"
  else
    cat fuzz/dict/json.dict "fuzz/dict/${target%_fuzzer}.dict" >"$dict"
  fi
  args=(-dict="$dict" -max_len="$(max_len_of "$target")" -close_fd_mask=3 -timeout=25
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-")
  if [ -n "$campaign_runs" ]; then
    args+=(-runs="$campaign_runs")
    echo "== fuzz: $target until $campaign_runs executions ($(ls "$seeds" | wc -l) seeds)"
  else
    args+=(-max_total_time="$seconds")
    echo "== fuzz: $target for $seconds s ($(ls "$seeds" | wc -l) seeds)"
  fi
  log="$build/logs/$target.log"
  before=$(ls "$build/artifacts" | grep -c "^$target-" || true)
  status=0
  started=$SECONDS
  "$build/fuzz/$target" "${args[@]}" "$scratch" >"$log" 2>&1 &
  pid=$!
  # Progress every 10 s: libFuzzer's latest status line (executions, coverage, corpus, rate).
  while kill -0 "$pid" 2>/dev/null; do
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      sleep 1
      kill -0 "$pid" 2>/dev/null || break
    done
    line=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
    [ -z "$line" ] || echo "  $target $((SECONDS - started)) s: $line"
  done
  wait "$pid" || status=$?
  took=$((SECONDS - started))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  corpus=$(ls "$scratch" | wc -l)
  after=$(ls "$build/artifacts" | grep -c "^$target-" || true)
  result=ok
  if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
    result="FAILED (exit $status; see $log and $build/artifacts/$target-*)"
    failed+=("$target")
    echo "  $target: the end of its log:"
    tail -n 60 "$log" | sed 's/^/    /'
  fi
  summary+=("$(printf '%-20s %12s %8s %7s %8s %9s  %s' "$target" "${runs:-?}" "${rate:-?}" \
    "$took" "$corpus" "${rss:-?}" "$result")")
done

echo
echo "== fuzz: summary"
printf '%-20s %12s %8s %7s %8s %9s  %s\n' target executions exec/s seconds corpus peak_MB result
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} target(s) found a problem: ${failed[*]}; reproduce with" \
    "$build/fuzz/TARGET $build/artifacts/TARGET-..." >&2
  exit 1
fi
