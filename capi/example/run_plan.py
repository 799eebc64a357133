"""Runs rigel through its C ABI from Python: ctypes loads the library,
pyarrow hands a table over as an Arrow C stream and takes the answers back
the same way.

usage: run_plan.py LIBRIGEL PARQUET TABLE PLANFILE SQL OUTDIR

Reads PARQUET with pyarrow, registers it as TABLE in an empty in-memory
catalog (device "host"), runs the Substrait plan and the SQL, and writes the
answers to OUTDIR/plan.arrow and OUTDIR/sql.arrow (Arrow IPC files).
"""
import ctypes
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq


class ArrowArrayStream(ctypes.Structure):
    # Five pointers: get_schema, get_next, get_last_error, release,
    # private_data (the Arrow C stream interface).
    _fields_ = [("get_schema", ctypes.c_void_p), ("get_next", ctypes.c_void_p),
                ("get_last_error", ctypes.c_void_p), ("release", ctypes.c_void_p),
                ("private_data", ctypes.c_void_p)]


def load(path):
    lib = ctypes.CDLL(path)
    lib.rigel_version.restype = ctypes.c_char_p
    lib.rigel_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.rigel_open.restype = ctypes.c_size_t
    lib.rigel_last_error.argtypes = [ctypes.c_size_t]
    lib.rigel_last_error.restype = ctypes.c_char_p
    lib.rigel_register_stream.argtypes = [ctypes.c_size_t, ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream)]
    lib.rigel_execute_plan.argtypes = [ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ArrowArrayStream)]
    lib.rigel_execute_sql.argtypes = [ctypes.c_size_t, ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream)]
    lib.rigel_close.argtypes = [ctypes.c_size_t]
    return lib


def take(stream):
    """The answer in a stream rigel filled, as a pyarrow table."""
    reader = pa.RecordBatchReader._import_from_c(ctypes.addressof(stream))
    return reader.read_all()


def write(table, path):
    with pa.OSFile(path, "wb") as f, pa.ipc.new_file(f, table.schema) as w:
        w.write_table(table)


def main(lib_path, parquet, table, plan_file, sql, outdir):
    lib = load(lib_path)
    print(lib.rigel_version().decode(), file=sys.stderr)
    eng = lib.rigel_open(b"", b"host")
    if not eng:
        raise RuntimeError("open: " + lib.rigel_last_error(0).decode())
    try:
        data = pq.read_table(parquet)
        src = ArrowArrayStream()
        pa.RecordBatchReader.from_batches(data.schema, data.to_batches(max_chunksize=1000))._export_to_c(ctypes.addressof(src))
        if lib.rigel_register_stream(eng, table.encode(), ctypes.byref(src)) != 0:
            raise RuntimeError("register: " + lib.rigel_last_error(eng).decode())
        if src.release:
            raise RuntimeError("rigel did not take the stream over (release is still set)")

        plan = open(plan_file, "rb").read()
        out = ArrowArrayStream()
        if lib.rigel_execute_plan(eng, plan, len(plan), ctypes.byref(out)) != 0:
            raise RuntimeError("plan: " + lib.rigel_last_error(eng).decode())
        write(take(out), os.path.join(outdir, "plan.arrow"))

        out = ArrowArrayStream()
        if lib.rigel_execute_sql(eng, sql.encode(), ctypes.byref(out)) != 0:
            raise RuntimeError("sql: " + lib.rigel_last_error(eng).decode())
        write(take(out), os.path.join(outdir, "sql.arrow"))

        # An error comes back as text, and the engine keeps working.
        out = ArrowArrayStream()
        if lib.rigel_execute_plan(eng, b"\x0a\x05garbage", 9, ctypes.byref(out)) != -1:
            raise RuntimeError("a garbage plan was taken")
        msg = lib.rigel_last_error(eng).decode()
        if not msg:
            raise RuntimeError("no error text after a garbage plan")
        print("error-check garbage plan:", msg, file=sys.stderr)
    finally:
        lib.rigel_close(eng)


if __name__ == "__main__":
    try:
        main(*sys.argv[1:7])
    except Exception as e:
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
