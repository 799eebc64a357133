#!/usr/bin/env python3
"""Writes a TPC-DS database and DuckDB's 99 TPC-DS query texts.

usage: tpcds-gen.py SF DB_FILE QUERY_DIR

Runs with the Python duckdb package 1.4.4 and the duckdb-ext-tpcds wheel of
the same version (rigel's DuckDB 1.5.3 has no tpcds extension offline; it
reads the 1.4.4 file). Each query goes to QUERY_DIR/qNN.sql, the form
`rigel bench sql --dir` reads.
"""
import os
import sys

import duckdb
import duckdb_ext  # the extension wheel's package folder

sf, db, qdir = float(sys.argv[1]), sys.argv[2], sys.argv[3]
ext = os.path.join(list(duckdb_ext.__path__)[0], "extensions",
                   "v" + duckdb.__version__, "linux_amd64", "tpcds.duckdb_extension")
if os.path.exists(db):
    sys.exit(f"{db} exists: remove it first")
os.makedirs(os.path.dirname(os.path.abspath(db)), exist_ok=True)
con = duckdb.connect(db, config={"allow_unsigned_extensions": "true"})
con.execute(f"LOAD '{ext}'")
con.execute(f"CALL dsdgen(sf={sf})")
os.makedirs(qdir, exist_ok=True)
for n, q in con.execute("SELECT query_nr, query FROM tpcds_queries()").fetchall():
    with open(os.path.join(qdir, f"q{n:02d}.sql"), "w") as f:
        f.write(q)
con.close()
print(f"TPC-DS SF{sf:g} in {db}, 99 queries in {qdir}")
