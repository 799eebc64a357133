#!/usr/bin/env bash
# TPC-H SF100 into a DuckDB file on the device machine's 64 GB disk: rigel tpch-gen, one table at a time.
cd "$(dirname "$0")"
for f in *.xz; do xz -d -f -T0 "$f"; done
chmod +x rigel tpchgen-cli
data=$PWD/../.device-data; mkdir -p "$data"
export RIGEL_TPCHGEN=$PWD/tpchgen-cli
db=$data/tpch-sf100.duckdb
rm -rf "$data"/tpch-sf10*
df -h "$data" | tail -1
[ -f "$db" ] || /usr/bin/time -f "tpch-gen: wall %e s, max RSS %M KB" timeout 590 ./rigel tpch-gen --sf 100 --db "$db" 2>&1 | while read -r l; do echo "$SECONDS $l"; done | tee "$OUT/gen.log" | tail -4
ls -la "$data"; df -h "$data" | tail -1
