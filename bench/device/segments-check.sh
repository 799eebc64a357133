#!/usr/bin/env bash
# One fresh machine: the device battery's segment cases, then TPC-H SF30 (lineitem's 180 M rows load in segments of
# 2^26 rows by default): Q1 in new processes, whole and in segments, and all 22 by the bench.
cd "$(dirname "$0")"
for f in *.xz; do xz -d -f -T0 "$f"; done
chmod +x rigel tpchgen-cli cuda.test
./cuda.test -test.run 'TestBattery/segments' -test.count=1 > "$OUT/battery.log" 2>&1; echo "battery segments rc=$? $(tail -1 "$OUT/battery.log")"
data=$PWD/../.device-data; mkdir -p "$data"
export RIGEL_TPCHGEN=$PWD/tpchgen-cli
q1="SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice), sum(l_extendedprice*(1-l_discount)), sum(l_extendedprice*(1-l_discount)*(1+l_tax)), avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*) FROM lineitem WHERE l_shipdate <= DATE '1998-09-02' GROUP BY 1,2 ORDER BY 1,2"
db=$data/tpch-sf30.duckdb
[ -f "$db" ] || ./rigel tpch-gen --sf 30 --db "$db" > "$OUT/gen30.log" 2>&1
echo "gen sf30 done $SECONDS"
for seg in 0 67108864; do
  RIGEL_COLUMN_STORE=off RIGEL_LOAD_SEGMENT_ROWS=$seg /usr/bin/time -f "Q1 SF30 segments=$seg: wall %e s, max RSS %M KB" ./rigel query --db "$db" --device cuda "$q1" > "$OUT/q1-$seg.out" 2> "$OUT/q1-$seg.log"
  echo "$(grep -E 'loaded lineitem' "$OUT/q1-$seg.log" | cut -c1-200) | $(tail -1 "$OUT/q1-$seg.log")"
done
cmp "$OUT/q1-0.out" "$OUT/q1-67108864.out" && echo "Q1 answers identical"
RIGEL_COLUMN_STORE=off timeout $((270 - SECONDS)) ./rigel bench tpch --db "$db" --device cuda --queries all --runs 1 --out "$OUT/bench-sf30.md" > /dev/null 2> "$OUT/bench-sf30.log"
echo "bench sf30 rc=$? at $SECONDS s"; grep -E "^- host memory" "$OUT/bench-sf30.log" | tail -1
grep -cE "^\| Q.*\| equal \|$" "$OUT/bench-sf30.md"; grep -E "^\| Q" "$OUT/bench-sf30.md" | grep -v "| equal |$" | cut -c1-300
cd "$OUT" && tar czf logs.tgz *.log *.out && rm -f *.log *.out
