#!/usr/bin/env bash
# TPC-H SF100 on a fresh machine: generate, then find where Q9 differs (bench sql of its parts against DuckDB), then Q9 and Q13 by the bench.
cd "$(dirname "$0")"
for f in *.xz; do xz -d -f -T0 "$f"; done
chmod +x rigel tpchgen-cli
data=$PWD/../.device-data; mkdir -p "$data"
export RIGEL_TPCHGEN=$PWD/tpchgen-cli RIGEL_COLUMN_STORE=off
db=$data/tpch-sf100.duckdb
[ -f "$db" ] || ./rigel tpch-gen --sf 100 --db "$db" > "$OUT/gen.log" 2>&1
echo "gen done $SECONDS"
timeout $((560 - SECONDS)) ./rigel bench sql --db "$db" --device cuda --dir q9 --runs 1 --out "$OUT/q9parts.md" > /dev/null 2> "$OUT/q9parts.log"
timeout 60 ./rigel explain --analyze --db "$db" --device cuda "$(cat q9/a_q9.sql)" > "$OUT/q9explain.log" 2>&1
echo "q9 parts rc=$? at $SECONDS"
grep -E "^\| [a-k]_" "$OUT/q9parts.log" | cut -d'|' -f2,3,4,5,7,18 | cut -c1-600
[ $SECONDS -lt 480 ] && timeout $((585 - SECONDS)) ./rigel bench tpch --db "$db" --device cuda --queries 13 --runs 1 --out "$OUT/q13.md" > /dev/null 2> "$OUT/q13.log"
echo "q13 rc=$? at $SECONDS"; grep -E "^\| Q13" "$OUT/q13.log" | cut -c1-400; grep -i "fall\|2 GB" "$OUT/q13.log" | head -3
