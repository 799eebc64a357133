#!/usr/bin/env bash
# make demo: TPC-H SF1 in a DuckDB file, then Q1 and Q6 through rigel (on the
# GPU when there is one, else on rigel's reference engine on the CPU) with
# their results, where they ran, and their time next to DuckDB's.
set -euo pipefail
cd "$(dirname "$0")/.."
db=${DEMO_DB:-data/tpch-sf1.duckdb}
[ -f "$db" ] || bin/rigel tpch-gen --sf 1 --db "$db"
if bin/rigel doctor | grep -q '^GPU:'; then
  dev=cuda; echo "== device: cuda (rigel doctor found a GPU)"
else
  dev=host; echo "== device: host (no GPU here: rigel's reference engine runs the plans on the CPU)"
fi
for q in 1 6; do
  echo; echo "== TPC-H Q$q"
  bin/rigel query --db "$db" --device "$dev" -f "conformance/tpch/queries/q0$q.sql"
done
echo; echo "== rigel next to DuckDB (same machine, same process)"
bin/rigel bench tpch --db "$db" --device "$dev" --queries 1,6 --runs 3 2>/dev/null
