#!/usr/bin/env bash
# Session 15 device run 1 (from the bundle folder): ProbeCounts and shared
# aggregate partials checked, Q1 kernel variants timed and profiled, per-kernel
# traces of the join-heavy TPC-H queries at SF10.
set -u
cd "$(dirname "$0")"
o=${OUT:-$PWD/out}; mkdir -p "$o/logs"
t0=$(date +%s); stamp() { echo "$1 $(( $(date +%s) - t0 ))s" >> "$o/steps.txt"; }
./run.sh gen > "$o/logs/gen.log" 2>&1; stamp gen
export RIGEL_TPCHGEN=$PWD/tpchgen-cli RIGEL_DATA_DIR=$PWD/../.device-data
./cuda.test -test.v -test.count=1 > "$o/logs/cuda-tests.log" 2>&1; stamp "cuda-tests rc=$?"
RIGEL_BENCH=60000000 ./cuda.test -test.v -test.count=1 -test.run TestBenchTPCH > "$o/logs/bench-q1.log" 2>&1; stamp "bench-q1 rc=$?"
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for v in "shared 6" "registers 12"; do
  set -- $v
  RIGEL_BENCH=60000000 timeout 120 "$ncu" --kernel-name rg_agg --launch-skip "$2" --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
    ./cuda.test -test.run TestBenchTPCH -test.count=1 > "$o/logs/ncu-$1.log" 2>&1; stamp "ncu-$1 rc=$?"
done
RIGEL_TPCH_SF=1 ./conformance.test -test.v -test.count=1 -test.run TestTPCHCuda > "$o/logs/tpch-sf1.log" 2>&1; stamp "tpch-sf1 rc=$?"
db=$RIGEL_DATA_DIR/tpch-sf10.duckdb
RIGEL_TRACE=1 ./rigel bench tpch --db "$db" --device cuda --queries 3,5,7,8,9,10,17,18,21 --runs 2 --out "$o/trace.md" > "$o/logs/trace.log" 2>&1; stamp "trace rc=$?"
./rigel bench tpch --db "$db" --device cuda --queries 1,4,20,21,22 --runs 5 --out "$o/bench.md" > "$o/logs/bench.log" 2>&1; stamp "bench rc=$?"
cd "$o"
{
echo "== cuda tests"; grep -E '^(--- FAIL|FAIL|ok|PASS)' logs/cuda-tests.log | tail -8
echo "== tpch sf1"; grep -E '^\s*--- FAIL|^(FAIL|ok|PASS)' logs/tpch-sf1.log | tail -8
echo "== Q1 kernel"; grep -E 'Q1|Q6|FAIL|Error' logs/bench-q1.log | tail -12
for v in shared registers; do echo "== ncu $v"; grep -E 'Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|DRAM Throughput|Block Limit|Shared Memory Config|Static Shared' logs/ncu-$v.log | head -16; done
echo "== bench"; grep -E '^\| Q' bench.md | cut -d'|' -f2,4,7,8,9,10,14 
echo "== steps"; cat steps.txt
} 2>&1 | tee summary.txt
tar czf logs.tgz logs && rm -rf logs
