"""Turn SQL queries into Substrait plans with ibis and ibis-substrait.

Usage: python3 ibis_tpch.py SCHEMA.sql OUTDIR QUERY.sql...

ibis is a dataframe library: it takes SQL through ibis.parse_sql (sqlglot),
which builds an ibis expression over tables declared by schema only, and
ibis-substrait compiles that expression to Substrait. For each qNN.sql it
writes OUTDIR/qNN.pb (the plan, binary protobuf) or OUTDIR/qNN.err (the
stage that failed and why): one refused query must not stop the others.
"""
import os
import re
import sys

import ibis
import ibis.expr.datatypes as dt
from ibis_substrait.compiler.core import SubstraitCompiler

# The SQL types of the schema file, in ibis's names.
TYPES = {"BIGINT": "int64", "INTEGER": "int32", "VARCHAR": "string", "DATE": "date"}


def ibis_type(sql_type):
    m = re.fullmatch(r"DECIMAL\((\d+),\s*(\d+)\)", sql_type)
    if m:
        return dt.Decimal(int(m.group(1)), int(m.group(2)))
    if sql_type not in TYPES:
        raise ValueError(f"schema type {sql_type} has no ibis mapping")
    return dt.dtype(TYPES[sql_type])


def catalog(path):
    text = open(path, encoding="utf-8").read()
    lines = [l for l in text.splitlines() if not l.strip().startswith("--")]
    out = {}
    for m in re.finditer(r"CREATE TABLE (\w+) \((.*?)\);", "\n".join(lines), re.S):
        cols = {}
        for col in m.group(2).split(",\n"):
            parts = col.split()
            name, typ = parts[0], " ".join(parts[1:])
            nullable = "NOT NULL" not in typ
            typ = typ.replace("NOT NULL", "").strip()
            cols[name] = ibis_type(typ).copy(nullable=nullable)
        out[m.group(1)] = ibis.schema(cols)
    return out


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    cat = catalog(argv[1])
    out = argv[2]
    os.makedirs(out, exist_ok=True)
    for q in argv[3:]:
        name = os.path.splitext(os.path.basename(q))[0]
        sql = open(q, encoding="utf-8").read().strip().rstrip(";")
        stage = "ibis.parse_sql"
        try:
            expr = ibis.parse_sql(sql, cat)
            stage = "ibis-substrait compile"
            plan = SubstraitCompiler().compile(expr).SerializeToString()
        except Exception as e:  # the producer's refusal is the result
            msg = (str(e).splitlines() or [type(e).__name__])[0]
            # Object addresses change from run to run: the committed
            # refusals and RESULTS.md stay stable without them.
            msg = re.sub(r" (object )?at 0x[0-9a-f]+", "", msg)
            with open(os.path.join(out, name + ".err"), "w") as f:
                f.write(f"{stage}: {type(e).__name__}: {msg}\n")
            continue
        with open(os.path.join(out, name + ".pb"), "wb") as f:
            f.write(plan)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
