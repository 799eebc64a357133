#!/usr/bin/env bash
# Where a streamed query's time goes: TPC-H SF10 under a device budget (BUDGET, default 2GB), QUERIES
# (default 1) benched with a Go CPU profile, then one run traced (RIGEL_TRACE=1: every node and kernel,
# serialised), then every query benched once under the budget (ALL=1).
cd "$(dirname "$0")"
for f in *.xz; do xz -d -f -T0 "$f"; done
chmod +x rigel tpchgen-cli
data=$PWD/../.device-data; mkdir -p "$data"
export RIGEL_TPCHGEN=$PWD/tpchgen-cli
db=$data/tpch-sf10.duckdb
budget=${BUDGET:-2GB}
[ -f "$db" ] || ./rigel tpch-gen --sf 10 --db "$db" > "$OUT/gen.log" 2>&1
echo "gen done $SECONDS"
RIGEL_CPUPROFILE=$OUT/cpu.pprof timeout 120 ./rigel bench tpch --db "$db" --device cuda --device-memory "$budget" --queries ${QUERIES:-1} --runs 5 --out "$OUT/profiled.md" > "$OUT/profiled.log" 2>&1
echo "profiled rc=$? at $SECONDS s"
grep -E "^\| Q" "$OUT/profiled.md"
RIGEL_TRACE=1 timeout 60 ./rigel query --db "$db" --device cuda --device-memory "$budget" -f ../conformance/tpch/queries/q01.sql > "$OUT/trace.log" 2>&1
echo "trace rc=$? at $SECONDS s"
if [ "${ALL:-0}" = 1 ]; then
  timeout 300 ./rigel bench tpch --db "$db" --device cuda --device-memory "$budget" --queries all --runs 1 --out "$OUT/budget-all.md" > "$OUT/budget-all.log" 2>&1
  echo "all rc=$? at $SECONDS s"
  grep -E "^\| Q" "$OUT/budget-all.md" | awk -F'|' '{print $2,$3,$4,$7,$8,$19}'
fi
