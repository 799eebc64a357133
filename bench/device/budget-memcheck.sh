#!/usr/bin/env bash
# compute-sanitizer memcheck (with the leak check) over chunked plans and partitioned joins: TPC-H SF0.1
# under an 8 MB device budget, so that lineitem and orders stream in many segments (uploads, spills,
# restores, per-segment joins and aggregates, merges) and the large joins run partitioned (Q3, Q5, Q7,
# Q9, Q13: sides cut, held in pinned host memory, restored a partition at a time); each answer compared
# with DuckDB's.
cd "$(dirname "$0")"
for f in *.xz; do xz -d -f -T0 "$f"; done
chmod +x rigel tpchgen-cli
data=$PWD/../.device-data; mkdir -p "$data"
export RIGEL_TPCHGEN=$PWD/tpchgen-cli
db=$data/tpch-sf0.1.duckdb
[ -f "$db" ] || ./rigel tpch-gen --sf 0.1 --db "$db" > "$OUT/gen.log" 2>&1
san=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for q in ${QUERIES:-01 03 06 09 17 18 21}; do
  f=../conformance/tpch/queries/q$q.sql
  ./rigel explain --db "$db" --device cuda --device-memory 8MB -f $f > /tmp/plan 2>&1
  echo "$(grep -c "Chunked scan" /tmp/plan) partitioned=$(grep -c "PartitionedJoin" /tmp/plan)" > /tmp/chunks
  timeout 240 "$san" --tool memcheck --leak-check full ./rigel query --db "$db" --device cuda --device-memory 8MB --format csv -f $f > "$OUT/q$q.csv" 2> "$OUT/q$q.err"
  rc=$?
  ./rigel query --db "$db" --device duckdb --format csv -f $f > /tmp/want.csv 2>/dev/null
  grep -v "^=========" "$OUT/q$q.csv" > /tmp/got.csv
  same=DIFF; cmp -s /tmp/got.csv /tmp/want.csv && same=equal
  echo "q$q rc=$rc chunked=$(cat /tmp/chunks) $same $(grep -h 'ERROR SUMMARY\|LEAK SUMMARY' "$OUT/q$q.csv" "$OUT/q$q.err" | tr '\n' ' ') $(grep -h 'ran on' "$OUT/q$q.err" | cut -c1-80) at ${SECONDS}s"
done
tar czf "$OUT/memcheck.tar.gz" -C "$OUT" $(cd "$OUT" && ls q*.csv q*.err) && rm -f "$OUT"/q*.csv "$OUT"/q*.err
