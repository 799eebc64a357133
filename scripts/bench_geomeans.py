#!/usr/bin/env python3
"""Geometric means of `rigel bench` tables: DuckDB, rigel cold, plan and hot
milliseconds over the query rows that have them (rows of errors are named,
not counted), with how many ran on the GPU and how many were equal to
DuckDB. Usage: bench_geomeans.py TABLE.md ..."""
import math
import re
import sys


def geomean(values):
    return math.exp(sum(math.log(max(v, 1e-3)) for v in values) / len(values))  # a 0.00 cell counts as 1 us


for path in sys.argv[1:]:
    rows = [line.split("|") for line in open(path) if re.match(r"\| (Q\d+|\w+) \| ", line) and not line.startswith("| query")]
    failed = [r[1].strip() for r in rows if not r[3].strip() or not r[6].strip()]
    rows = [r for r in rows if r[3].strip() and r[6].strip()]  # an error row has no times
    if not rows:
        print(f"{path}: no query rows with times")
        continue
    col = lambda i: geomean([float(r[i].replace(",", "")) for r in rows])
    gpu = sum(r[2].strip() == "GPU" for r in rows)
    equal = sum(r[-2].strip() == "equal" for r in rows)
    duck, cold, plan, hot = col(3), col(4), col(5), col(6)
    print(f"{path}: {len(rows)} queries, {gpu} on the GPU, {equal} equal; DuckDB {duck:.1f} ms, "
          f"cold {cold:.1f} ms ({cold / duck:.2f}x DuckDB), plan {plan:.1f} ms, hot {hot:.3f} ms ({duck / hot:.1f}x)"
          + (f"; without times (errors): {', '.join(failed)}" if failed else ""))
