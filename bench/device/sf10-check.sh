#!/usr/bin/env bash
# TPC-H SF10 on a fresh machine: the device battery (cuda.test, when the bundle has it), then rigel (HEAD) against
# rigel-base's hot table (5% rule), HEAD's cold with the store empty then full, Q1 in new processes, EXPLAIN ANALYZE's Scan load lines.
cd "$(dirname "$0")"
for f in *.xz; do xz -d -f -T0 "$f"; done
chmod +x rigel rigel-base tpchgen-cli
if [ -f cuda.test ]; then
  chmod +x cuda.test; ./cuda.test -test.count=1 > "$OUT/battery.log" 2>&1; echo "battery rc=$? $(tail -1 "$OUT/battery.log")"
  grep -E "^\s*--- FAIL" "$OUT/battery.log" | head
fi
data=$PWD/../.device-data; mkdir -p "$data"
export RIGEL_TPCHGEN=$PWD/tpchgen-cli
db=$data/tpch-sf10.duckdb
[ -f "$db" ] || ./rigel tpch-gen --sf 10 --db "$db" > "$OUT/gen.log" 2>&1
echo "gen done $SECONDS"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
rm -rf "$db.rigel-columns"
q1="SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice), sum(l_extendedprice*(1-l_discount)), sum(l_extendedprice*(1-l_discount)*(1+l_tax)), avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*) FROM lineitem WHERE l_shipdate <= DATE '1998-09-02' GROUP BY 1,2 ORDER BY 1,2"
for i in 1 2; do
  /usr/bin/time -f "process $i: wall %e s, max RSS %M KB" ./rigel query --db "$db" --device cuda "$q1" > "$OUT/q1-$i.out" 2> "$OUT/q1-$i.log"
  echo "$(grep -E 'loaded lineitem' "$OUT/q1-$i.log") | $(tail -1 "$OUT/q1-$i.log")"
done
cmp "$OUT/q1-1.out" "$OUT/q1-2.out" && echo "Q1 answers identical"
./rigel explain --analyze --db "$db" --device cuda "SELECT c_mktsegment, count(*) FROM customer WHERE c_acctbal > 0 GROUP BY 1 ORDER BY 1" > "$OUT/explain.log" 2>&1
grep -iE "scan" "$OUT/explain.log" | head -4
rm -rf "$db.rigel-columns"
for spec in "1 rigel-base 3 80" "2 rigel 3 80" "3 rigel 1 50" "4 rigel-base 3 80"; do
  set -- $spec
  [ $SECONDS -gt 420 ] && break
  timeout $4 ./$2 bench tpch --db "$db" --device cuda --queries all --runs $3 --out "$OUT/bench-$1-$2.md" > "$OUT/bench-$1-$2.log" 2>&1
  echo "bench $1 $2 rc=$? done at $SECONDS s: $(grep -E "geometric|column store \(" "$OUT/bench-$1-$2.md" | tr '\n' ' ' | cut -c1-400)"
done
du -sh "$db.rigel-columns"
cd "$OUT" && tar czf logs.tgz *.log *.out && rm -f *.log *.out
