#!/usr/bin/env bash
# TPC-H SF100 on one H200, column store off (the disk holds the database and little more): Q1 in a new process (the load that was SIGKILLed), then all 22 with rigel bench.
cd "$(dirname "$0")"
data=$PWD/../.device-data
db=$data/tpch-sf100.duckdb
export RIGEL_COLUMN_STORE=off
ls -la "$db" || exit 1
free -g | head -2
q1="SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice), sum(l_extendedprice*(1-l_discount)), sum(l_extendedprice*(1-l_discount)*(1+l_tax)), avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*) FROM lineitem WHERE l_shipdate <= DATE '1998-09-02' GROUP BY 1,2 ORDER BY 1,2"
/usr/bin/time -f "Q1 process: wall %e s, max RSS %M KB" timeout 120 ./rigel query --db "$db" --device cuda "$q1" > "$OUT/q1.out" 2> "$OUT/q1.log"
echo "rc=$? $(grep -E 'loaded lineitem' "$OUT/q1.log") | $(tail -1 "$OUT/q1.log")"
/usr/bin/time -f "bench: wall %e s, max RSS %M KB" timeout $((585 - SECONDS)) ./rigel bench tpch --db "$db" --device cuda --queries all --runs 1 --out "$OUT/bench-sf100.md" > /dev/null 2> "$OUT/bench-sf100.log"
echo "bench rc=$? at $SECONDS s"; tail -2 "$OUT/bench-sf100.log"
grep -E "^\| Q" "$OUT/bench-sf100.log" | cut -d'|' -f2-8,18 
