"""Turn SQL queries into Substrait plans with ibis and ibis-substrait.

Usage: python3 ibis_tpch.py SCHEMA.sql OUTDIR QUERY.sql...

ibis is a dataframe library: it takes SQL through ibis.parse_sql (sqlglot),
which builds an ibis expression over tables declared by schema only, and
ibis-substrait compiles that expression to Substrait. Where parse_sql
fails, the same query written with ibis's dataframe API (ibis_tpch_api.py)
is compiled instead: what the plan count measures is ibis-substrait, not
sqlglot's SQL bridge. For each qNN.sql it writes OUTDIR/qNN.pb (the plan,
binary protobuf) and OUTDIR/qNN.via (which path made it: "sql", or "api"
with parse_sql's error), or OUTDIR/qNN.err (the stages that failed and
why): one refused query must not stop the others.
"""
import os
import re
import sys

import ibis
import ibis.expr.datatypes as dt
from ibis_substrait.compiler.core import SubstraitCompiler

from ibis_tpch_api import QUERIES

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


def compile_plan(stage, build):
    """Build the ibis expression and compile it: (plan bytes, None), or
    (None, "stage: error") naming the stage that failed."""
    try:
        expr = build()
        stage = "ibis-substrait compile"
        return SubstraitCompiler().compile(expr).SerializeToString(), None
    except Exception as e:  # the producer's refusal is the result
        msg = (str(e).splitlines() or [type(e).__name__])[0]
        # Object addresses change from run to run: the committed
        # refusals and RESULTS.md stay stable without them.
        msg = re.sub(r" (object )?at 0x[0-9a-f]+", "", msg)
        return None, f"{stage}: {type(e).__name__}: {msg}"


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    cat = catalog(argv[1])
    out = argv[2]
    os.makedirs(out, exist_ok=True)
    tables = {name: ibis.table(schema, name=name) for name, schema in cat.items()}
    for q in argv[3:]:
        name = os.path.splitext(os.path.basename(q))[0]
        sql = open(q, encoding="utf-8").read().strip().rstrip(";")
        plan, err = compile_plan("ibis.parse_sql", lambda: ibis.parse_sql(sql, cat))
        via = "sql"
        if plan is None and name in QUERIES:
            sql_err = err
            plan, err = compile_plan("ibis API", lambda: QUERIES[name](tables))
            via = f"api (the SQL path failed: {sql_err})"
            err = f"{sql_err}; {err}"
        if plan is None:
            with open(os.path.join(out, name + ".err"), "w") as f:
                f.write(err + "\n")
            continue
        with open(os.path.join(out, name + ".pb"), "wb") as f:
            f.write(plan)
        with open(os.path.join(out, name + ".via"), "w") as f:
            f.write(via + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
