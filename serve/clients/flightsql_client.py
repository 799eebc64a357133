"""A Flight SQL client that rigel did not write: ADBC's Flight SQL driver and
plain pyarrow.flight, against a rigel server.

usage: flightsql_client.py URI OUTDIR SQLFILE... [--plan PLANFILE]... [--token T]

For each SQL file it runs the query twice, through ADBC (adbc_driver_flightsql)
and through pyarrow.flight with a hand-made CommandStatementQuery; for each
plan file (binary Substrait) it runs the plan through ADBC. Every result is
written to OUTDIR as an Arrow IPC file named after the input and the client
("q1.sql.adbc.arrow", "q1.sql.flight.arrow", "q6.pb.adbc.arrow"); the caller
compares them with DuckDB. Errors go to stderr and the exit status is 1.
"""
import os
import sys

import adbc_driver_flightsql.dbapi as flightsql
import pyarrow as pa
import pyarrow.flight as flight
from adbc_driver_flightsql import DatabaseOptions


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, payload):
    """A length-delimited protobuf field."""
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def statement_query(sql):
    """Any{CommandStatementQuery{query}} as Flight SQL defines it."""
    cmd = field(1, sql.encode())
    type_url = b"type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery"
    return field(1, type_url) + field(2, cmd)


def write(table, path):
    with pa.OSFile(path, "wb") as f, pa.ipc.new_file(f, table.schema) as w:
        w.write_table(table)


def main(argv):
    uri, outdir, rest = argv[0], argv[1], argv[2:]
    token = None
    sqls, plans = [], []
    i = 0
    while i < len(rest):
        if rest[i] == "--token":
            token = rest[i + 1]
            i += 2
        elif rest[i] == "--plan":
            plans.append(rest[i + 1])
            i += 2
        else:
            sqls.append(rest[i])
            i += 1

    kwargs = {}
    headers = []
    if token:
        kwargs[DatabaseOptions.AUTHORIZATION_HEADER.value] = "Bearer " + token
        headers = [(b"authorization", b"Bearer " + token.encode())]
    conn = flightsql.connect(uri, db_kwargs=kwargs)
    client = flight.FlightClient(uri)
    opts = flight.FlightCallOptions(headers=headers)
    try:
        for path in sqls:
            sql = open(path).read()
            name = os.path.basename(path)
            with conn.cursor() as cur:
                cur.execute(sql)
                write(cur.fetch_arrow_table(), os.path.join(outdir, name + ".adbc.arrow"))
            info = client.get_flight_info(flight.FlightDescriptor.for_command(statement_query(sql)), opts)
            parts = [client.do_get(ep.ticket, opts).read_all() for ep in info.endpoints]
            write(pa.concat_tables(parts), os.path.join(outdir, name + ".flight.arrow"))
        for path in plans:
            plan = open(path, "rb").read()
            name = os.path.basename(path)
            with conn.cursor() as cur:
                cur.execute(plan)  # bytes: ADBC sends a Substrait plan
                write(cur.fetch_arrow_table(), os.path.join(outdir, name + ".adbc.arrow"))
    finally:
        conn.close()
        client.close()


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except Exception as e:  # one line for the test's failure message
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
