#!/usr/bin/env bash
# Hot TPC-H SF10, resident, rigel-base against rigel (HEAD) in one call, alternating base, head,
# base, head (ROUNDS, default 2) so that drift in the machine falls on both: each bench's table to
# $OUT, then per query the better of each binary's rounds and the geomeans (the "hot table not
# worse" check).
cd "$(dirname "$0")"
for f in *.xz; do xz -d -f -T0 "$f"; done
chmod +x rigel rigel-base tpchgen-cli
data=$PWD/../.device-data; mkdir -p "$data"
export RIGEL_TPCHGEN=$PWD/tpchgen-cli
db=$data/tpch-sf10.duckdb
[ -f "$db" ] || ./rigel tpch-gen --sf 10 --db "$db" > "$OUT/gen.log" 2>&1
echo "gen done $SECONDS"
for r in $(seq 1 "${ROUNDS:-2}"); do
  for b in rigel-base rigel; do
    timeout 120 ./$b bench tpch --db "$db" --device cuda --queries all --runs ${RUNS:-3} --out "$OUT/$b-$r.md" > "$OUT/$b-$r.log" 2>&1
    echo "$b round $r rc=$? at $SECONDS s"
  done
done
python3 - "$OUT" "${ROUNDS:-2}" <<'PY'
import sys, math, glob
out, rounds = sys.argv[1], int(sys.argv[2])
def rows(p):
    return {c[1]: c for c in ([x.strip() for x in l.split('|')] for l in open(p)) if len(c) > 5 and c[1][:1] == 'Q' and c[1][1:].isdigit()}
best = {}
for b in ('rigel-base', 'rigel'):
    for r in range(1, rounds + 1):
        for q, c in rows(f"{out}/{b}-{r}.md").items():
            best.setdefault(b, {})[q] = min(best.get(b, {}).get(q, 1e9), float(c[6]))
print("query  base_hot  head_hot  head/base")
for q in best['rigel']:
    print(q, best['rigel-base'][q], best['rigel'][q], "%.2f" % (best['rigel'][q] / best['rigel-base'][q]))
g = lambda b: math.exp(sum(math.log(v) for v in best[b].values()) / len(best[b]))
print("geomean hot ms: base %.3f head %.3f -> head/base %.3f" % (g('rigel-base'), g('rigel'), g('rigel') / g('rigel-base')))
PY
