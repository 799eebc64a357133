#!/usr/bin/env bash
# Packed device columns on a fresh machine: the whole device battery (cuda.test), TPC-H SF10 generated, Q1 in new
# processes packed and plain (the load line gives the packing), then the bench alternating packing on, off
# (RIGEL_DEVICE_PACKING=off, same binary) and rigel-base (the commit before packing); FIRST and SASS below.
cd "$(dirname "$0")"
for f in *.xz; do xz -d -f -T0 "$f"; done
chmod +x rigel rigel-base tpchgen-cli cuda.test
./cuda.test -test.count=1 -test.run "${BATTERY:-.}" > "$OUT/battery.log" 2>&1; echo "battery rc=$? $(tail -1 "$OUT/battery.log") at $SECONDS s"
grep -E "^\s*--- FAIL" "$OUT/battery.log" | head -20
data=$PWD/../.device-data; mkdir -p "$data"
export RIGEL_TPCHGEN=$PWD/tpchgen-cli
db=$data/tpch-sf10.duckdb
[ -f "$db" ] || ./rigel tpch-gen --sf 10 --db "$db" > "$OUT/gen.log" 2>&1
echo "gen done $SECONDS"
q1="SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice), sum(l_extendedprice*(1-l_discount)), sum(l_extendedprice*(1-l_discount)*(1+l_tax)), avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*) FROM lineitem WHERE l_shipdate <= DATE '1998-09-02' GROUP BY 1,2 ORDER BY 1,2"
for mode in on off on; do
  RIGEL_DEVICE_PACKING=$mode /usr/bin/time -f "process packing=$mode: wall %e s, max RSS %M KB" ./rigel query --db "$db" --device cuda "$q1" > "$OUT/q1-$mode.out" 2> "$OUT/q1-$mode.log"
  echo "$(grep -E 'loaded lineitem' "$OUT/q1-$mode.log") | $(tail -1 "$OUT/q1-$mode.log")"
done
cmp "$OUT/q1-on.out" "$OUT/q1-off.out" && echo "Q1 answers identical packed and plain"
for spec in ${BENCHES:-1:rigel:on 2:rigel:off 3:rigel-base:on 4:rigel:on}; do
  set -- ${spec//:/ }
  [ $SECONDS -gt 520 ] && break
  RIGEL_DEVICE_PACKING=$3 timeout 75 ./$2 bench tpch --db "$db" --device cuda --queries all --runs 3 --out "$OUT/bench-$1-$2-$3.md" > "$OUT/bench-$1-$2-$3.log" 2>&1
  echo "bench $1 $2 packing=$3 rc=$? at $SECONDS s"
done
# FIRST=1,6: those queries' first runs (a new kernel cache each), packing on then off.
if [ -n "$FIRST" ]; then
  for mode in on off; do
    [ $SECONDS -gt 500 ] && break
    RIGEL_DEVICE_PACKING=$mode timeout 90 ./rigel bench tpch --db "$db" --device cuda --queries "$FIRST" --runs 1 --first-run --out "$OUT/first-$mode.md" > "$OUT/first-$mode.log" 2>&1
    echo "first-run packing=$mode rc=$? at $SECONDS s"
  done
fi
# SASS=1: Q6's kernels packed and plain, compiled by the bench into kernel caches of their own, disassembled.
if [ -n "$SASS" ] && [ $SECONDS -lt 540 ]; then
  for mode in on off; do
    rm -rf "/tmp/kc-$mode"
    RIGEL_KERNEL_CACHE=/tmp/kc-$mode RIGEL_DEVICE_PACKING=$mode timeout 40 ./rigel bench tpch --db "$db" --device cuda --queries 6 --runs 1 --out /dev/null > "$OUT/sass-bench-$mode.log" 2>&1
    for f in /tmp/kc-$mode/*.cubin; do cuobjdump -sass "$f" | grep -q "rg_agg" && cuobjdump -sass "$f"; done > "$OUT/sass-$mode.out"
    echo "sass $mode: $(grep -c 'LDG' "$OUT/sass-$mode.out") LDG, $(wc -l < "$OUT/sass-$mode.out") lines"
  done
fi
cd "$OUT" && tar czf logs.tgz *.log *.out && rm -f *.log *.out
