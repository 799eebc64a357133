#!/usr/bin/env bash
# rigel bench load on a fresh machine: TPC-H SF10 generated, every table's columns loaded into the GPU by a
# new process from DuckDB (the column store filling), then by another from the column store.
cd "$(dirname "$0")"
for f in *.xz; do xz -d -f -T0 "$f"; done
chmod +x rigel tpchgen-cli
data=$PWD/../.device-data; mkdir -p "$data"
export RIGEL_TPCHGEN=$PWD/tpchgen-cli
db=$data/tpch-sf10.duckdb
[ -f "$db" ] || ./rigel tpch-gen --sf 10 --db "$db" > "$OUT/gen.log" 2>&1
echo "gen done $SECONDS"
for run in duckdb store; do
  timeout 120 ./rigel bench load --db "$db" --device cuda --out "$OUT/load-$run.md" > "$OUT/load-$run.log" 2>&1
  echo "load from $run rc=$? at $SECONDS s"
  grep -E "^\| (all|lineitem|orders) " "$OUT/load-$run.md"
done
