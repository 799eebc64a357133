/*
 * rigel.h: the C ABI of rigel, a GPU-native SQL engine.
 *
 * Build the library with
 *   go build -buildmode=c-shared -o librigel.so ./capi
 * (or `make capi`, which writes bin/librigel.so), then include this header
 * and link with -lrigel.
 *
 * Data crosses the boundary only as the Arrow C data and stream interfaces
 * (https://arrow.apache.org/docs/format/CStreamInterface.html); no Go type
 * does. An engine is a handle (an integer, 0 = none).
 *
 * Threads: every function may be called from any thread. One engine may be
 * used by several threads at once: queries queue for the device one at a
 * time; queries that fall back to DuckDB run side by side. Error texts are
 * kept per engine and per calling thread (like errno), so a thread reads
 * its own call's error even while other threads use the engine.
 *
 * Lifetimes: rigel_close may be called while other threads' calls are in
 * flight (they finish normally; later calls on the handle fail) and while
 * answer streams are still out: each stream keeps what it reads from alive,
 * and the engine's device and catalog close when the last of them is
 * released. Handles are never reused.
 *
 * Errors never crash the host: bad handles, NULL pointers, malformed plans,
 * SQL errors and panics inside rigel are a -1 (or 0 from rigel_open) and a
 * text from rigel_last_error.
 */
#ifndef RIGEL_H
#define RIGEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  // Array type description
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  // Release callback
  void (*release)(struct ArrowSchema*);
  // Opaque producer-specific data
  void* private_data;
};

struct ArrowArray {
  // Array data description
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  // Release callback
  void (*release)(struct ArrowArray*);
  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  // Callbacks providing stream functionality
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);

  // Release callback
  void (*release)(struct ArrowArrayStream*);

  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_STREAM_INTERFACE

/* An engine: a catalog of tables, a device, and the DuckDB that plans SQL. */
typedef uintptr_t rigel_engine;

/* The Go side includes this header for the structs only: cgo declares the
 * exported functions itself (without const). The ABI is the same. */
#ifndef RIGEL_BUILDING_LIBRARY

/* rigel's version, a static string. */
const char* rigel_version(void);

/*
 * Opens an engine.
 * catalog: NULL or "" for an empty in-memory catalog (fill it with
 *   rigel_register_stream); the path of a DuckDB database file (opened
 *   read-only; its tables keep their names); or the path of a folder of
 *   Parquet files (each NAME.parquet file or NAME/ folder of them becomes
 *   table NAME, read once at open).
 * device: NULL or "auto" (the GPU if there is one, else none: SQL then runs
 *   on DuckDB and Substrait plans are refused), "cuda" (the GPU, an error
 *   without one), "host" (rigel's reference engine on the CPU) or "duckdb".
 * Returns 0 on failure; rigel_last_error(0) says why.
 */
rigel_engine rigel_open(const char* catalog, const char* device);

/*
 * Makes the batches of an Arrow stream a table of the engine's catalog,
 * named name (replacing a table of that name). The rows are copied; the
 * function takes ownership of the stream and releases it before returning,
 * on success and on every error (a bad handle or name included); a NULL
 * stream or one released already is an error. The stream's callbacks are
 * called only on the calling thread, before the function returns. Returns
 * 0, or -1 with rigel_last_error(engine) saying why (for a stream that
 * fails, the text includes the stream's own get_last_error).
 */
int rigel_register_stream(rigel_engine engine, const char* name, struct ArrowArrayStream* stream);

/*
 * Runs a Substrait plan (binary protobuf, or JSON) whose tables are in the
 * catalog. The plan bytes are copied before the call returns. On success,
 * fills *out with the answer (the caller releases it with out->release; *out
 * need not be zeroed first) and returns 0; on error returns -1, leaves *out
 * untouched, and rigel_last_error(engine) says why (a plan the device
 * cannot run is an error naming the reason: Substrait input has no DuckDB
 * fallback, and an engine without a device refuses every plan).
 */
int rigel_execute_plan(rigel_engine engine, const uint8_t* plan, size_t len, struct ArrowArrayStream* out);

/*
 * Runs one SQL query (DuckDB plans it; rigel's device runs it, or DuckDB
 * when the device cannot): a SELECT, or an EXPLAIN [ANALYZE] of one. Other
 * statements (DDL, INSERT, ATTACH, COPY, SET, PRAGMA, EXPLAIN ANALYZE of a
 * write) are refused with an error naming their kind: tables come into the
 * catalog through rigel_register_stream. Same conventions as
 * rigel_execute_plan.
 */
int rigel_execute_sql(rigel_engine engine, const char* sql, struct ArrowArrayStream* out);

/*
 * The error of the calling thread's most recent call on the engine ("" when
 * that call succeeded), or with engine 0 the error of the thread's most
 * recent rigel_open or call on handle 0 (which is never an engine). For a
 * handle that is not open (closed, or never opened), a text saying so.
 * Never NULL. The text belongs to rigel and stays valid until the thread's
 * next call on that engine (or its next rigel_open or call on handle 0 for
 * 0), or until the engine is closed.
 */
const char* rigel_last_error(rigel_engine engine);

/* Closes an engine's handle. 0 and handles closed already are ignored.
 * Streams the engine handed out stay readable; the engine's device and
 * catalog close when the last of them is released (see Lifetimes above). */
void rigel_close(rigel_engine engine);

#endif  // RIGEL_BUILDING_LIBRARY

#ifdef __cplusplus
}
#endif

#endif  // RIGEL_H
