// Package duckarrow reads DuckDB's query results as Arrow record batches,
// and lets DuckDB scan Arrow record batches as a view, over a duckdb-go
// connection, through DuckDB's own C API for Arrow
// (duckdb_data_chunk_to_arrow, duckdb_arrow_scan), and appends Arrow rows to
// a table (duckdb_data_chunk_from_arrow).
//
// Why not duckdb-go's Arrow interface (duckdb.NewArrowFromConn): duckdb-go
// compiles it only with its duckdb_arrow build tag, and a plain `go build`
// of a program that imports rigel must work. The C functions are in the
// DuckDB library that duckdb-go links in any case; this package declares
// the functions it calls (column.go and scatter.go more), and takes the
// two handles they need (a connection's, a result's) from duckdb-go's
// connection and rows (internals.go). It also reads whole table columns
// fast: scatter.go by DuckDB's own parallel scan calling a C scalar
// function, column.go by copying a query's vectors.
package duckarrow

/*
#include <stdint.h>
#include <stdlib.h>

// The Arrow C data interface (arrow.apache.org/docs/format/CDataInterface.html).
struct ArrowSchema {
	const char *format;
	const char *name;
	const char *metadata;
	int64_t flags;
	int64_t n_children;
	struct ArrowSchema **children;
	struct ArrowSchema *dictionary;
	void (*release)(struct ArrowSchema *);
	void *private_data;
};

struct ArrowArray {
	int64_t length;
	int64_t null_count;
	int64_t offset;
	int64_t n_buffers;
	int64_t n_children;
	const void **buffers;
	struct ArrowArray **children;
	struct ArrowArray *dictionary;
	void (*release)(struct ArrowArray *);
	void *private_data;
};

struct ArrowArrayStream {
	int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *);
	int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *);
	const char *(*get_last_error)(struct ArrowArrayStream *);
	void (*release)(struct ArrowArrayStream *);
	void *private_data;
};

// From duckdb.h (DuckDB 1.5), its handles as the pointers they are.
void *duckdb_to_arrow_schema(void *arrow_options, void **types, const char **names, uint64_t column_count, struct ArrowSchema *out_schema);
void *duckdb_data_chunk_to_arrow(void *arrow_options, void *chunk, struct ArrowArray *out_arrow_array);
int duckdb_arrow_scan(void *connection, const char *table_name, void *arrow);
void *duckdb_schema_from_arrow(void *connection, struct ArrowSchema *schema, void **out_types);
void *duckdb_data_chunk_from_arrow(void *connection, struct ArrowArray *arrow_array, void *converted_schema, void **out_chunk);
void duckdb_destroy_arrow_converted_schema(void **arrow_converted_schema);
*/
import "C"

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	bindings "github.com/duckdb/duckdb-go-bindings"
	"github.com/duckdb/duckdb-go/v2"
)

// Arrow runs statements on one duckdb-go connection with Arrow results.
type Arrow struct {
	conn *duckdb.Conn
}

// New returns the Arrow interface over a duckdb-go driver connection.
func New(conn *duckdb.Conn) (*Arrow, error) {
	if _, err := connHandle(conn); err != nil {
		return nil, err
	}
	return &Arrow{conn: conn}, nil
}

// QueryContext runs query (its last statement's result comes back) with
// args bound to its parameters, and returns the result's reader. DuckDB
// streams the result: the reader fetches a chunk at a time.
func (a *Arrow) QueryContext(ctx context.Context, query string, args ...any) (array.RecordReader, error) {
	named := make([]driver.NamedValue, len(args))
	for i, v := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	rows, err := a.conn.QueryContext(ctx, query, named)
	if err != nil {
		if rows != nil {
			err = errors.Join(err, rows.Close())
		}
		return nil, err
	}
	r, err := newReader(ctx, rows)
	if err != nil {
		return nil, errors.Join(err, rows.Close())
	}
	return r, nil
}

// RegisterView makes reader's batches scannable as the view name on this
// connection. Call release once the view is no longer queried.
func (a *Arrow) RegisterView(reader array.RecordReader, name string) (release func(), err error) {
	conn, err := connHandle(a.conn)
	if err != nil {
		return nil, err
	}
	stream := (*C.struct_ArrowArrayStream)(C.calloc(1, C.sizeof_struct_ArrowArrayStream))
	release = func() {
		cdata.ReleaseCArrowArrayStream((*cdata.CArrowArrayStream)(unsafe.Pointer(stream)))
		C.free(unsafe.Pointer(stream))
	}
	cdata.ExportRecordReader(reader, (*cdata.CArrowArrayStream)(unsafe.Pointer(stream)))
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	if C.duckdb_arrow_scan(conn, cname, unsafe.Pointer(stream)) != 0 {
		release()
		return nil, fmt.Errorf("DuckDB could not register the Arrow view %q (duckdb_arrow_scan failed)", name)
	}
	return release, nil
}

// AppendRecord appends rec's rows to the table catalog.schema.table, whose
// columns must have the DuckDB types DuckDB gives rec's Arrow types: a
// vector (2,048 rows) at a time, each converted by DuckDB from rec's Arrow
// buffers (duckdb_data_chunk_from_arrow) and appended whole
// (duckdb_append_data_chunk), not a Go value a cell as duckdb-go's
// appender takes them. Unlike an Arrow view, it needs no catalog entry, so
// it works on a temporary table of a read-only database. On an error the
// table may hold some of the rows.
func (a *Arrow) AppendRecord(catalog, schema, table string, rec arrow.RecordBatch) error {
	conn, err := connHandle(a.conn)
	if err != nil {
		return err
	}
	cs := (*C.struct_ArrowSchema)(C.calloc(1, C.sizeof_struct_ArrowSchema))
	defer C.free(unsafe.Pointer(cs))
	cdata.ExportArrowSchema(rec.Schema(), (*cdata.CArrowSchema)(unsafe.Pointer(cs)))
	var converted unsafe.Pointer
	err = takeError(C.duckdb_schema_from_arrow(conn, cs, &converted), "the Arrow schema of the rows for "+table+" to its types")
	cdata.ReleaseCArrowSchema((*cdata.CArrowSchema)(unsafe.Pointer(cs)))
	if converted != nil {
		defer C.duckdb_destroy_arrow_converted_schema(&converted)
	}
	if err != nil {
		return err
	}
	var app bindings.Appender
	defer bindings.AppenderDestroy(&app) // after the errors below read it
	if bindings.AppenderCreateExt(bindings.Connection{Ptr: conn}, catalog, schema, table, &app) == bindings.StateError {
		return fmt.Errorf("appending to %s: %s", table, bindings.AppenderError(app))
	}
	fail := func(what string) error {
		e := bindings.AppenderErrorData(app)
		defer bindings.DestroyErrorData(&e)
		return fmt.Errorf("appending to %s: %s: %s", table, what, bindings.ErrorDataMessage(e))
	}
	ca := (*C.struct_ArrowArray)(C.calloc(1, C.sizeof_struct_ArrowArray))
	defer C.free(unsafe.Pointer(ca))
	const vector = 2048 // DuckDB's STANDARD_VECTOR_SIZE: a data chunk's rows at most
	for at := int64(0); at < rec.NumRows(); at += vector {
		part := rec.NewSlice(at, min(at+vector, rec.NumRows()))
		cdata.ExportArrowRecordBatch(part, (*cdata.CArrowArray)(unsafe.Pointer(ca)), nil)
		part.Release()
		var chunk unsafe.Pointer
		// The chunk takes over the exported array (its release included).
		err := takeError(C.duckdb_data_chunk_from_arrow(conn, ca, converted, &chunk), "Arrow rows for "+table+" to a data chunk")
		if err != nil {
			if ca.release != nil {
				cdata.ReleaseCArrowArray((*cdata.CArrowArray)(unsafe.Pointer(ca)))
			}
			return err
		}
		dc := bindings.DataChunk{Ptr: chunk}
		state := bindings.AppendDataChunk(app, dc)
		bindings.DestroyDataChunk(&dc)
		if state == bindings.StateError {
			return fail("a chunk of rows")
		}
	}
	if bindings.AppenderClose(app) == bindings.StateError {
		return fail("closing")
	}
	return nil
}

// reader is a DuckDB result read a chunk at a time, each chunk converted
// to an Arrow record batch by DuckDB.
type reader struct {
	ctx    context.Context
	rows   driver.Rows // owns res; closed on the last Release
	res    bindings.Result
	opts   bindings.ArrowOptions
	schema *arrow.Schema

	mu      sync.Mutex
	refs    int64
	closed  bool
	current arrow.RecordBatch
	err     error
}

var _ array.RecordReader = (*reader)(nil)

func newReader(ctx context.Context, rows driver.Rows) (*reader, error) {
	res, err := resultOf(rows)
	if err != nil {
		return nil, err
	}
	opts := bindings.ResultGetArrowOptions(res)
	schema, err := resultSchema(res, opts)
	if err != nil {
		bindings.DestroyArrowOptions(&opts)
		return nil, err
	}
	return &reader{ctx: ctx, rows: rows, res: *res, opts: opts, schema: schema, refs: 1}, nil
}

// resultSchema is the Arrow schema DuckDB gives res's columns.
func resultSchema(res *bindings.Result, opts bindings.ArrowOptions) (*arrow.Schema, error) {
	n := int(bindings.ColumnCount(res))
	types := (*[1 << 20]unsafe.Pointer)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof(unsafe.Pointer(nil)))))[:n:n]
	names := (*[1 << 20]*C.char)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof((*C.char)(nil)))))[:n:n]
	defer func() {
		for i := range n {
			if types[i] != nil {
				lt := bindings.LogicalType{Ptr: types[i]}
				bindings.DestroyLogicalType(&lt)
			}
			C.free(unsafe.Pointer(names[i]))
		}
		C.free(unsafe.Pointer(unsafe.SliceData(types)))
		C.free(unsafe.Pointer(unsafe.SliceData(names)))
	}()
	for i := range n {
		types[i] = bindings.ColumnLogicalType(res, bindings.IdxT(i)).Ptr
		names[i] = C.CString(bindings.ColumnName(res, bindings.IdxT(i)))
	}
	out := (*C.struct_ArrowSchema)(C.calloc(1, C.sizeof_struct_ArrowSchema))
	defer func() {
		cdata.ReleaseCArrowSchema((*cdata.CArrowSchema)(unsafe.Pointer(out)))
		C.free(unsafe.Pointer(out))
	}()
	ed := C.duckdb_to_arrow_schema(opts.Ptr, (*unsafe.Pointer)(unsafe.Pointer(unsafe.SliceData(types))),
		(**C.char)(unsafe.Pointer(unsafe.SliceData(names))), C.uint64_t(n), out)
	if err := takeError(ed, "the result's schema to Arrow"); err != nil {
		return nil, err
	}
	return cdata.ImportCArrowSchema((*cdata.CArrowSchema)(unsafe.Pointer(out)))
}

// takeError turns DuckDB's error data into an error, and frees it.
func takeError(ed unsafe.Pointer, what string) error {
	if ed == nil {
		return nil
	}
	e := bindings.ErrorData{Ptr: ed}
	defer bindings.DestroyErrorData(&e)
	if !bindings.ErrorDataHasError(e) {
		return nil
	}
	return fmt.Errorf("DuckDB could not convert %s: %s", what, bindings.ErrorDataMessage(e))
}

func (r *reader) Schema() *arrow.Schema { return r.schema }

func (r *reader) Retain() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.refs++
	}
}

// Release drops a reference; the last frees the current batch, the
// conversion options and the result (closing the rows).
func (r *reader) Release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refs <= 0 {
		return
	}
	if r.refs--; r.refs > 0 {
		return
	}
	r.closed = true
	if r.current != nil {
		r.current.Release()
		r.current = nil
	}
	bindings.DestroyArrowOptions(&r.opts)
	if err := r.rows.Close(); err != nil && r.err == nil {
		r.err = err
	}
}

// Next fetches DuckDB's next chunk and converts it; false at the end, on
// an error (Err) or once the context is done.
func (r *reader) Next() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.current != nil {
		r.current.Release()
		r.current = nil
	}
	if r.closed {
		r.err = errors.New("the Arrow reader of a DuckDB result was released")
		return false
	}
	if r.err != nil {
		return false
	}
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return false
	}
	chunk := bindings.FetchChunk(r.res)
	if chunk.Ptr == nil {
		return false
	}
	defer bindings.DestroyDataChunk(&chunk)
	out := (*C.struct_ArrowArray)(C.calloc(1, C.sizeof_struct_ArrowArray))
	defer func() {
		cdata.ReleaseCArrowArray((*cdata.CArrowArray)(unsafe.Pointer(out)))
		C.free(unsafe.Pointer(out))
	}()
	if err := takeError(C.duckdb_data_chunk_to_arrow(r.opts.Ptr, chunk.Ptr, out), "a result chunk to Arrow"); err != nil {
		r.err = err
		return false
	}
	rec, err := cdata.ImportCRecordBatchWithSchema((*cdata.CArrowArray)(unsafe.Pointer(out)), r.schema)
	if err != nil {
		r.err = fmt.Errorf("importing DuckDB's Arrow chunk: %w", err)
		return false
	}
	r.current = rec
	return true
}

func (r *reader) RecordBatch() arrow.RecordBatch {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.current
}

// Record is RecordBatch under its older name (array.RecordReader has both).
func (r *reader) Record() arrow.RecordBatch { return r.RecordBatch() }

func (r *reader) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}
