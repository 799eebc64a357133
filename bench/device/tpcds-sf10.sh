#!/usr/bin/env bash
# TPC-DS SF10 on the GPU, in the folder of `make gpu-bundle-tpcds` (its tpchgen-cli.xz removed to
# fit a device call's carry): generate the database with the bundled wheels once per warm machine
# (about 4 minutes on the H200 machine), then `rigel bench sql` hot over the 99 queries in the
# time left of a 10-minute call (LIMIT, default 585 s). Table to $OUT/tpcds-sf10-hot.md.
cd "$(dirname "$0")"
[ -f rigel.xz ] && xz -d -f -T0 rigel.xz; chmod +x rigel
data=$PWD/../.device-data; mkdir -p "$data"
db=$data/tpcds-sf10.duckdb
if [ ! -f "$db" ]; then
  python3 -m venv "$data/venv" && "$data/venv/bin/pip" install -q --no-index --find-links wheels duckdb duckdb-ext-tpcds
  "$data/venv/bin/python" tpcds-gen.py 10 "$db" "$data/q" > "$OUT/gen.log" 2>&1
  echo "gen rc=$? at $SECONDS s; $(du -sh "$db")"
fi
left=$(( ${LIMIT:-585} - SECONDS ))
echo "bench with $left s"
timeout $left ./rigel bench sql --db "$db" --dir "$data/q" --device cuda --runs 3 --out "$OUT/tpcds-sf10-hot.md" > "$OUT/bench.log" 2>&1
echo "bench rc=$? at $SECONDS s"
tail -n 30 "$OUT/tpcds-sf10-hot.md" 2>/dev/null | cut -c1-200
tail -n 5 "$OUT/bench.log"
