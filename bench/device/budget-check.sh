#!/usr/bin/env bash
# TPC-H SF10 on the GPU under a device memory budget (--device-memory: plans stream their largest
# scans a segment at a time, physical's Chunked) and resident, in one call, each against DuckDB.
# BUDGET (default 2GB) is the budget; the plans of every query under it go to $OUT/explain.tar.gz.
cd "$(dirname "$0")"
for f in *.xz; do xz -d -f -T0 "$f"; done
chmod +x rigel tpchgen-cli
data=$PWD/../.device-data; mkdir -p "$data"
export RIGEL_TPCHGEN=$PWD/tpchgen-cli
db=$data/tpch-sf10.duckdb
budget=${BUDGET:-2GB}
[ -f "$db" ] || ./rigel tpch-gen --sf 10 --db "$db" > "$OUT/gen.log" 2>&1
echo "gen done $SECONDS"
mkdir -p explain
for f in ../conformance/tpch/queries/q*.sql; do
  ./rigel explain --db "$db" --device cuda --device-memory "$budget" -f "$f" > "explain/$(basename "$f" .sql).txt" 2>&1
done
echo "plans: $(grep -l "Chunked scan" explain/*.txt | wc -l) of 22 stream a scan, $(grep -l "PartitionedJoin" explain/*.txt | wc -l) partition a join"
tar czf "$OUT/explain.tar.gz" explain
timeout 280 ./rigel bench tpch --db "$db" --device cuda --device-memory "$budget" --queries all --runs ${RUNS:-3} --out "$OUT/budget.md" > "$OUT/budget.log" 2>&1
echo "budget $budget rc=$? at $SECONDS s"
timeout 200 ./rigel bench tpch --db "$db" --device cuda --queries all --runs ${RUNS:-3} --out "$OUT/resident.md" > "$OUT/resident.log" 2>&1
echo "resident rc=$? at $SECONDS s"
python3 - "$OUT/budget.md" "$OUT/resident.md" <<'PY'
import sys, math
def rows(p):
    out = {}
    for l in open(p):
        c = [x.strip() for x in l.split('|')]
        if len(c) > 5 and c[1].startswith('Q') and c[1][1:].isdigit():
            out[c[1]] = c
    return out
b, r = rows(sys.argv[1]), rows(sys.argv[2])
print("query  ran  duck_ms  budget_hot  budget_cold  resident_hot  result")
gb = gr = gd = 0; n = 0
for q in b:
    x, y = b[q], r.get(q)
    print(q, x[2], x[3], x[6], x[4], y[6] if y else '-', x[-2])
    if y:
        gb += math.log(float(x[6])); gr += math.log(float(y[6])); gd += math.log(float(x[3])); n += 1
if n:
    print("geomean ms: duckdb %.2f budget hot %.2f resident hot %.2f -> budget %.1fx duckdb, resident %.1fx" % (math.exp(gd/n), math.exp(gb/n), math.exp(gr/n), math.exp((gd-gb)/n), math.exp((gd-gr)/n)))
PY
