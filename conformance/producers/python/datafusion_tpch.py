"""Turn SQL queries into Substrait plans with DataFusion (PyPI datafusion).

Usage: python3 datafusion_tpch.py SCHEMA.sql OUTDIR QUERY.sql...

The tables are created empty from the CREATE TABLE statements (DataFusion
plans from the schema alone). For each qNN.sql it writes OUTDIR/qNN.pb (the
plan, binary protobuf) or OUTDIR/qNN.err (why DataFusion could not produce
it): one refused query must not stop the others.
"""
import os
import sys

import datafusion
from datafusion import substrait


def statements(path):
    text = open(path, encoding="utf-8").read()
    lines = [l for l in text.splitlines() if not l.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    ctx = datafusion.SessionContext()
    for stmt in statements(argv[1]):
        ctx.sql(stmt).collect()
    out = argv[2]
    os.makedirs(out, exist_ok=True)
    for q in argv[3:]:
        name = os.path.splitext(os.path.basename(q))[0]
        sql = open(q, encoding="utf-8").read().strip().rstrip(";")
        try:
            plan = substrait.Serde.serialize_bytes(sql, ctx)
        except Exception as e:  # the producer's refusal is the result
            with open(os.path.join(out, name + ".err"), "w") as f:
                f.write(str(e).splitlines()[0] + "\n")
            continue
        with open(os.path.join(out, name + ".pb"), "wb") as f:
            f.write(plan)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
