#!/usr/bin/env bash
# Runs rigel's GPU checks on a machine with a GPU and no Go: the CUDA device
# tests, TPC-H end to end against DuckDB at SF1, and the benchmark at SF1 and
# SF10. Logs go to $OUT (or ./out); a short table is printed last.
# Usage: run.sh [all|gen|tests|program|bench|first-run|tpcds|serve|serve-hostile|sanitize|sanitize-tpch|trace|leak|corpus|conformance]...   (from the bundle folder)
#   gen: only the SF1 and SF10 databases (kept while the machine is warm)
#   serve: the Flight SQL server on loopback answering TPC-H SF1 through the
#          GPU, 1 client and 16 at once (rigel bench serve); SF10 Q1/Q6 too
#          with RIGEL_SERVE_SF10=1
#   serve-hostile: 64 clients for 60 s over TPC-H SF1 through the GPU, a hostile
#          request after every 3 queries (rigel bench serve --hostile)
#   sanitize: compute-sanitizer memcheck over the CUDA device battery and the probe batteries (short)
#   sanitize-tpch: compute-sanitizer memcheck, then racecheck, over the 22
#          TPC-H queries at SF1 on the GPU (TestTPCHCuda)
#   trace: per-node and per-kernel times (RIGEL_TRACE=1) of the queries in
#          RIGEL_BENCH_QUERIES at SF10, 2 runs each, into $OUT/trace-sf10.log
#   leak: 1,000 TPC-H queries at SF1 in a row; device memory must not grow
#   corpus (bundle from make gpu-bundle-corpus): the producer corpus (306 queries) through the
#          engine on the GPU against DuckDB; report in $OUT/corpus-cuda.md
#   conformance: the Substrait spec's function test cases on the GPU
#          (rigel conformance --device cuda); report in $OUT/RESULTS-cuda.md
#   tpcds (bundle from make gpu-bundle-tpcds): TPC-DS SF1 (RIGEL_TPCDS_SF) and
#          DuckDB's 99 query texts generated with the bundled wheels, then
#          rigel bench sql --first-run and hot (not with RIGEL_TPCDS_HOT=0)
#          over them; tables in $OUT
#   program: the precompiled path alone (RIGEL_PROGRAM=always): the device
#          battery and the differential test on the interpreter, TPC-H SF1
#          through the GPU against DuckDB, and the SF10 hot bench (not
#          with RIGEL_PROGRAM_HOT=0)
#   first-run: rigel bench tpch --first-run at SF10 (RIGEL_BENCH_QUERIES): a
#          new process and kernel cache; the compiled sources are kept in
#          $OUT/kernels.tar.gz and timed again by TestCompileCost
set -uo pipefail
cd "$(dirname "$0")"
# Several modes run in the order they are written here: run.sh tests leak
modes=" ${*:-all} "
has() { [[ $modes == *" $1 "* ]]; }
out=${OUT:-$PWD/out}
mkdir -p "$out"
# Outside the bundle folder, which each device call replaces, so that a
# warm machine keeps the generated databases between calls.
data=${RIGEL_DATA_DIR:-$PWD/../.device-data}
mkdir -p "$data"
for f in *.xz; do [ -e "$f" ] && xz -d -f -T0 "$f"; done
chmod +x rigel *.test tpchgen-cli 2>/dev/null
export RIGEL_TPCHGEN=$PWD/tpchgen-cli RIGEL_DATA_DIR=$data
summary=()
step() { # name, command...
  local name=$1; shift
  local t0=$(date +%s)
  "$@" > "$out/$name.log" 2>&1
  local rc=$?
  summary+=("$(printf '%-28s rc=%-3s %4ss' "$name" "$rc" "$(( $(date +%s) - t0 ))")")
  return $rc
}
./rigel doctor | tee "$out/doctor.log"
if has gen; then
  [ -f "$data/tpch-sf1.duckdb" ] || step gen-sf1 ./rigel tpch-gen --sf 1 --db "$data/tpch-sf1.duckdb"
  [ -f "$data/tpch-sf10.duckdb" ] || step gen-sf10 ./rigel tpch-gen --sf 10 --db "$data/tpch-sf10.duckdb"
fi
if has all || has tests; then
  step cuda-tests ./cuda.test -test.v -test.count=1
  grep -E '^(--- FAIL|FAIL|ok|PASS)' "$out/cuda-tests.log" | tail -20
  [ -f "$data/tpch-sf1.duckdb" ] || step gen-sf1 ./rigel tpch-gen --sf 1 --db "$data/tpch-sf1.duckdb"
  RIGEL_TPCH_SF=1 step tpch-sf1-cuda ./conformance.test -test.v -test.run 'TestTPCHCuda' -test.count=1
  grep -E '^\s*--- (FAIL|PASS)|^(FAIL|ok|PASS)' "$out/tpch-sf1-cuda.log" | tail -30
fi
if has first-run; then
  bq=${RIGEL_BENCH_QUERIES:-all}
  [ -f "$data/tpch-sf10.duckdb" ] || step gen-sf10 ./rigel tpch-gen --sf 10 --db "$data/tpch-sf10.duckdb"
  rm -rf "$data/kernels"
  RIGEL_KERNEL_DUMP="$data/kernels" step first-run-sf10 ./rigel bench tpch --first-run --db "$data/tpch-sf10.duckdb" --device cuda --queries "$bq" --runs 5 --out "$out/first-run-sf10.md"
  tar -czf "$out/kernels.tar.gz" -C "$data" kernels
  # What NVRTC spends on those sources (bench/results/*-nvrtc-compile-cost.md)
  RIGEL_COMPILE_COST_DIR="$data/kernels" step compile-cost ./cuda.test -test.v -test.run TestCompileCost
  grep -E "prelude alone|sources:|threads:" "$out/compile-cost.log"
  tail -n 1 "$out/first-run-sf10.md"
fi
if has tpcds; then
  sf=${RIGEL_TPCDS_SF:-1}
  if [ ! -f "$data/tpcds-sf$sf.duckdb" ]; then
    python3 -m venv "$data/tpcds-venv" &&
      "$data/tpcds-venv/bin/pip" install -q --no-index --find-links wheels duckdb duckdb-ext-tpcds &&
      step gen-tpcds "$data/tpcds-venv/bin/python" tpcds-gen.py "$sf" "$data/tpcds-sf$sf.duckdb" "$data/tpcds-queries"
  fi
  step tpcds-first-run ./rigel bench sql --first-run --db "$data/tpcds-sf$sf.duckdb" --dir "$data/tpcds-queries" --device cuda --runs 3 --out "$out/tpcds-sf$sf-first-run.md"
  tail -n 1 "$out/tpcds-sf$sf-first-run.md"
  [ "${RIGEL_TPCDS_HOT:-1}" = 1 ] && step tpcds-hot ./rigel bench sql --db "$data/tpcds-sf$sf.duckdb" --dir "$data/tpcds-queries" --device cuda --runs 5 --out "$out/tpcds-sf$sf-hot.md"
fi
if has all || has bench; then
  # RIGEL_BENCH_QUERIES picks the queries (default all 22); SF1 only with
  # RIGEL_BENCH_SF1=1.
  bq=${RIGEL_BENCH_QUERIES:-all}
  if [ "${RIGEL_BENCH_SF1:-0}" = 1 ]; then
    [ -f "$data/tpch-sf1.duckdb" ] || step gen-sf1 ./rigel tpch-gen --sf 1 --db "$data/tpch-sf1.duckdb"
    step bench-sf1 ./rigel bench tpch --db "$data/tpch-sf1.duckdb" --device cuda --queries "$bq" --runs 5 --out "$out/bench-sf1.md"
  fi
  [ -f "$data/tpch-sf10.duckdb" ] || step gen-sf10 ./rigel tpch-gen --sf 10 --db "$data/tpch-sf10.duckdb"
  step bench-sf10 ./rigel bench tpch --db "$data/tpch-sf10.duckdb" --device cuda --queries "$bq" --runs 5 --out "$out/bench-sf10.md"
  cat "$out/bench-sf1.md" "$out/bench-sf10.md" 2>/dev/null
fi
if has serve; then
  [ -f "$data/tpch-sf1.duckdb" ] || step gen-sf1 ./rigel tpch-gen --sf 1 --db "$data/tpch-sf1.duckdb"
  step serve-q1q6-sf1 ./rigel bench serve --db "$data/tpch-sf1.duckdb" --device cuda --queries 1,6 --clients 1,16 --per-client 200 --out "$out/serve-q1q6-sf1.md"
  step serve-all-sf1 ./rigel bench serve --db "$data/tpch-sf1.duckdb" --device cuda --queries all --clients 1,16 --per-client 44 --out "$out/serve-all-sf1.md"
  if [ "${RIGEL_SERVE_SF10:-0}" = 1 ]; then
    [ -f "$data/tpch-sf10.duckdb" ] || step gen-sf10 ./rigel tpch-gen --sf 10 --db "$data/tpch-sf10.duckdb"
    step serve-q1q6-sf10 ./rigel bench serve --db "$data/tpch-sf10.duckdb" --device cuda --queries 1,6 --clients 1,16 --per-client 200 --out "$out/serve-q1q6-sf10.md"
  fi
  cat "$out"/serve-*.md 2>/dev/null
fi
if has serve-hostile; then
  [ -f "$data/tpch-sf1.duckdb" ] || step gen-sf1 ./rigel tpch-gen --sf 1 --db "$data/tpch-sf1.duckdb"
  step serve-hostile-sf1 ./rigel bench serve --db "$data/tpch-sf1.duckdb" --device cuda --queries all --clients 64 --duration 60s --hostile --out "$out/serve-hostile-sf1.md" --memprofile "$out/serve-hostile-heap.pprof"
  cat "$out/serve-hostile-sf1.md" 2>/dev/null
fi
if has program; then
  RIGEL_PROGRAM=always step program-battery ./cuda.test -test.v -test.count=1 -test.run 'TestBattery|TestDifferential'
  grep -E '^(--- FAIL|FAIL|ok|PASS)' "$out/program-battery.log" | tail -5
  [ -f "$data/tpch-sf1.duckdb" ] || step gen-sf1 ./rigel tpch-gen --sf 1 --db "$data/tpch-sf1.duckdb"
  RIGEL_PROGRAM=always RIGEL_TPCH_SF=1 step program-tpch-sf1 ./conformance.test -test.v -test.run 'TestTPCHCuda' -test.count=1
  grep -E -- '--- FAIL|^(ok|FAIL)' "$out/program-tpch-sf1.log" | tail -5
  if [ "${RIGEL_PROGRAM_HOT:-1}" = 1 ]; then
  [ -f "$data/tpch-sf10.duckdb" ] || step gen-sf10 ./rigel tpch-gen --sf 10 --db "$data/tpch-sf10.duckdb"
  RIGEL_PROGRAM=always step program-hot-sf10 ./rigel bench tpch --db "$data/tpch-sf10.duckdb" --device cuda --queries all --runs 5 --out "$out/program-hot-sf10.md"
  fi
fi
if has sanitize; then
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  if [ -z "$cs" ]; then
    echo "compute-sanitizer not found"
  else
    step memcheck "$cs" --tool memcheck --leak-check full --error-exitcode 3 ./cuda.test -test.run 'TestBattery|TestThreadHopping|TestProbeGPU|TestProbeCountsGPU' -test.short -test.count=1
    grep -E "ERROR SUMMARY|LEAK SUMMARY|^(--- FAIL|FAIL|ok|PASS)" "$out/memcheck.log" | tail -8
  fi
fi
if has trace; then
  [ -f "$data/tpch-sf10.duckdb" ] || step gen-sf10 ./rigel tpch-gen --sf 10 --db "$data/tpch-sf10.duckdb"
  RIGEL_TRACE=1 step trace-sf10 ./rigel bench tpch --db "$data/tpch-sf10.duckdb" --device cuda --queries "${RIGEL_BENCH_QUERIES:-all}" --runs 2 --out "$out/trace-sf10.md"
  cat "$out/trace-sf10.md"
fi
if has sanitize-tpch || has leak; then
  [ -f "$data/tpch-sf1.duckdb" ] || step gen-sf1 ./rigel tpch-gen --sf 1 --db "$data/tpch-sf1.duckdb"
fi
if has sanitize-tpch; then
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  for tool in ${RIGEL_SANITIZE_TOOLS:-memcheck racecheck}; do
    extra=""; [ "$tool" = memcheck ] && extra="--leak-check full"
    RIGEL_TPCH_SF=1 step "tpch-sf1-$tool" "$cs" --tool "$tool" $extra --error-exitcode 3 ./conformance.test -test.v -test.run 'TestTPCHCuda' -test.count=1
    grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|^(--- FAIL|FAIL|ok|PASS)" "$out/tpch-sf1-$tool.log" | tail -8
  done
fi
if has leak; then
  RIGEL_TPCH_SF=1 step leak-1000 ./conformance.test -test.v -test.run 'TestCudaNoLeak' -test.count=1
  grep -E "bytes live|leaked|^(--- FAIL|--- SKIP|FAIL|ok|PASS)" "$out/leak-1000.log" | tail -8
fi
if has corpus; then
  # The test reads the corpus from the working tree beside the bundle.
  pushd ../duckdb-bridge > /dev/null
  RIGEL_CORPUS_DEVICE=cuda RIGEL_CORPUS_REPORT="$out/corpus-cuda.md" \
    step corpus-cuda ../bundle/duckdb-bridge.test -test.v -test.run 'TestCorpus$' -test.count=1
  popd > /dev/null
  grep -E "corpus on|^(--- FAIL|FAIL|ok|PASS)" "$out/corpus-cuda.log" | tail -8
fi
if has conformance; then
  step conformance-cuda ./rigel conformance --device cuda --out "$out/RESULTS-cuda.md"
  tail -n 1 "$out/conformance-cuda.log"
fi
echo; echo "== steps"; printf '%s\n' "${summary[@]}"
