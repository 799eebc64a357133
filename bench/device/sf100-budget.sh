#!/usr/bin/env bash
# TPC-H SF100 on one H200 under a 16 GB device budget (issue 25): all 22 with rigel bench, --device-memory 16GB,
# the column store off (the disk holds the database and little more). Run after sf100-gen.sh, in the same warm
# machine. Rows reach $OUT/bench.log as each query ends (the table in $OUT/bench-sf100-16gb.md at the end).
cd "$(dirname "$0")"
for f in *.xz; do xz -d -f -T0 "$f"; done
chmod +x rigel
data=$PWD/../.device-data
db=$data/tpch-sf100.duckdb
export RIGEL_COLUMN_STORE=off
ls -la "$db" || exit 1
free -g | head -2
./rigel doctor 2>&1 | grep -i -E "pinned|upload|GB/s" | head -4
/usr/bin/time -f "bench: wall %e s, max RSS %M KB" timeout $((590 - SECONDS)) ./rigel bench tpch --db "$db" --device cuda --device-memory 16GB --queries ${QUERIES:-all} --runs ${RUNS:-1} --out "$OUT/bench-sf100-16gb.md" > /dev/null 2> "$OUT/bench.log"
echo "bench rc=$? at $SECONDS s"; grep -E "wall|rigel: read .* into host" "$OUT/bench.log" | tail -4
grep -E "^\| Q" "$OUT/bench.log" | cut -d'|' -f2-8,14,15,16,19
