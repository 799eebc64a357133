// Command capi is rigel's C ABI (rigel.h), built as a shared library:
//
//	go build -tags duckdb_arrow -buildmode=c-shared -o librigel.so ./capi
//
// Hosts that cannot link Go (Doris, Velox, a C program, Python through
// ctypes) open an engine on a catalog, register Arrow C streams as tables,
// and run Substrait plans or SQL, getting Arrow C streams back. No Go type
// crosses the boundary: engines are integer handles, data is the Arrow C
// data interface, errors are text kept per engine.
package main

/*
#include <stdlib.h>
#define RIGEL_BUILDING_LIBRARY
#include "rigel.h"
*/
import "C"

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu"
)

func main() {} // a c-shared library needs one; never called

// engine is what a handle stands for.
type engine struct {
	eng *duckdbbridge.Engine
	db  *sql.DB
	dev gpu.Device

	mu      sync.Mutex
	lastErr *C.char // owned here; freed when replaced or at close
}

var (
	handlesMu sync.Mutex
	handles   = map[uintptr]*engine{}
	lastID    uintptr
	openErr   *C.char // the last rigel_open error (handle 0)
)

var version = C.CString("rigel 0.1.0")

//export rigel_version
func rigel_version() *C.char { return version }

// setErr records an engine's (or, for nil, rigel_open's) last error; an
// empty text clears it.
func setErr(e *engine, msg string) {
	c := C.CString(msg)
	if e == nil {
		handlesMu.Lock()
		old := openErr
		openErr = c
		handlesMu.Unlock()
		if old != nil {
			C.free(unsafe.Pointer(old))
		}
		return
	}
	e.mu.Lock()
	old := e.lastErr
	e.lastErr = c
	e.mu.Unlock()
	if old != nil {
		C.free(unsafe.Pointer(old))
	}
}

// guard turns a panic into an error, so that a bug in rigel never takes
// the host process down.
func guard(e *engine, rc *C.int) {
	if r := recover(); r != nil {
		setErr(e, fmt.Sprintf("rigel: internal error (a bug; please report it): %v", r))
		if rc != nil {
			*rc = -1
		}
	}
}

func lookup(h C.uintptr_t) (*engine, error) {
	handlesMu.Lock()
	defer handlesMu.Unlock()
	e, ok := handles[uintptr(h)]
	if !ok {
		return nil, fmt.Errorf("rigel: engine %d is not open (closed already, or never opened)", uintptr(h))
	}
	return e, nil
}

// catalogSpec reads rigel_open's catalog argument.
func catalogSpec(path string) (duckdbbridge.CatalogSpec, error) {
	spec := duckdbbridge.CatalogSpec{Writable: true}
	if path == "" {
		return spec, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return spec, fmt.Errorf("catalog %s: %w", path, err)
	}
	if st.IsDir() {
		spec.Parquet = []string{path}
	} else {
		spec.DB = path
	}
	return spec, nil
}

//export rigel_open
func rigel_open(catalog, device *C.char) (h C.uintptr_t) {
	defer func() {
		if r := recover(); r != nil {
			setErr(nil, fmt.Sprintf("rigel: internal error (a bug; please report it): %v", r))
			h = 0
		}
	}()
	var path, mode string
	if catalog != nil {
		path = C.GoString(catalog)
	}
	if device != nil {
		mode = C.GoString(device)
	}
	if mode == "" {
		mode = "auto"
	}
	spec, err := catalogSpec(path)
	if err != nil {
		setErr(nil, err.Error())
		return 0
	}
	dev, reason, err := duckdbbridge.OpenDevice(mode)
	if err != nil {
		setErr(nil, err.Error())
		return 0
	}
	db, id, err := duckdbbridge.OpenCatalog(context.Background(), spec)
	if err != nil {
		if dev != nil {
			dev.Close()
		}
		setErr(nil, err.Error())
		return 0
	}
	e := &engine{eng: duckdbbridge.NewEngine(db, id, dev, reason), db: db, dev: dev}
	handlesMu.Lock()
	lastID++
	handles[lastID] = e
	h = C.uintptr_t(lastID)
	handlesMu.Unlock()
	setErr(nil, "")
	return h
}

//export rigel_register_stream
func rigel_register_stream(h C.uintptr_t, name *C.char, stream *C.struct_ArrowArrayStream) (rc C.int) {
	// The stream is ours from here: release it on every path.
	var rdr array.RecordReader
	defer func() {
		if rdr != nil {
			rdr.Release()
		} else if stream != nil && stream.release != nil {
			cdata.ReleaseCArrowArrayStream((*cdata.CArrowArrayStream)(unsafe.Pointer(stream)))
		}
	}()
	e, err := lookup(h)
	if err != nil {
		setErr(nil, err.Error())
		return -1
	}
	defer guard(e, &rc)
	if name == nil || C.GoString(name) == "" {
		setErr(e, "rigel_register_stream: the table needs a name")
		return -1
	}
	if stream == nil || stream.release == nil {
		setErr(e, "rigel_register_stream: the stream is NULL or released already")
		return -1
	}
	rdr, err = importStream(stream)
	if err != nil {
		setErr(e, "rigel_register_stream: "+err.Error())
		return -1
	}
	if err := e.eng.RegisterArrow(context.Background(), C.GoString(name), rdr); err != nil {
		setErr(e, err.Error())
		return -1
	}
	setErr(e, "")
	return 0
}

// importStream reads a C stream whole (the table is copied anyway) into a
// record reader; it takes the stream over.
func importStream(stream *C.struct_ArrowArrayStream) (array.RecordReader, error) {
	in, err := cdata.ImportCRecordReader((*cdata.CArrowArrayStream)(unsafe.Pointer(stream)), nil)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r, ok := in.(interface{ Release() }); ok {
			r.Release()
		}
	}()
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	var schema *arrow.Schema
	for {
		rec, err := in.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("reading the stream: %w", err)
		}
		// The reader releases its current record at the next Read (its
		// doc says otherwise): keep our own reference.
		rec.Retain()
		schema = rec.Schema()
		recs = append(recs, rec)
	}
	if schema == nil {
		if s, ok := in.(interface{ Schema() *arrow.Schema }); ok {
			schema = s.Schema()
		}
	}
	if schema == nil {
		return nil, errors.New("the stream has no schema")
	}
	return array.NewRecordReader(schema, recs)
}

//export rigel_execute_plan
func rigel_execute_plan(h C.uintptr_t, plan *C.uint8_t, n C.size_t, out *C.struct_ArrowArrayStream) (rc C.int) {
	e, err := lookup(h)
	if err != nil {
		setErr(nil, err.Error())
		return -1
	}
	defer guard(e, &rc)
	if out == nil {
		setErr(e, "rigel_execute_plan: out is NULL")
		return -1
	}
	if plan == nil || n == 0 {
		setErr(e, "rigel_execute_plan: the plan is empty")
		return -1
	}
	if n > 1<<31 {
		setErr(e, fmt.Sprintf("rigel_execute_plan: a plan of %d bytes is more than rigel takes (2 GiB)", uint64(n)))
		return -1
	}
	data := C.GoBytes(unsafe.Pointer(plan), C.int(n))
	s, err := e.eng.PlanStream(context.Background(), data)
	if err != nil {
		setErr(e, err.Error())
		return -1
	}
	cdata.ExportRecordReader(s, (*cdata.CArrowArrayStream)(unsafe.Pointer(out)))
	setErr(e, "")
	return 0
}

//export rigel_execute_sql
func rigel_execute_sql(h C.uintptr_t, query *C.char, out *C.struct_ArrowArrayStream) (rc C.int) {
	e, err := lookup(h)
	if err != nil {
		setErr(nil, err.Error())
		return -1
	}
	defer guard(e, &rc)
	if out == nil {
		setErr(e, "rigel_execute_sql: out is NULL")
		return -1
	}
	if query == nil {
		setErr(e, "rigel_execute_sql: the query is NULL")
		return -1
	}
	s, err := e.eng.QueryStream(context.Background(), C.GoString(query))
	if err != nil {
		setErr(e, err.Error())
		return -1
	}
	cdata.ExportRecordReader(s, (*cdata.CArrowArrayStream)(unsafe.Pointer(out)))
	setErr(e, "")
	return 0
}

var (
	empty   = C.CString("")
	notOpen = C.CString("rigel: this engine is not open (closed already, or never opened)")
)

//export rigel_last_error
func rigel_last_error(h C.uintptr_t) *C.char {
	if h == 0 {
		handlesMu.Lock()
		defer handlesMu.Unlock()
		if openErr == nil {
			return empty
		}
		return openErr
	}
	e, err := lookup(h)
	if err != nil {
		return notOpen
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.lastErr == nil {
		return empty
	}
	return e.lastErr
}

//export rigel_close
func rigel_close(h C.uintptr_t) {
	defer func() { _ = recover() }()
	handlesMu.Lock()
	e, ok := handles[uintptr(h)]
	delete(handles, uintptr(h))
	handlesMu.Unlock()
	if !ok {
		return
	}
	e.db.Close()
	if e.dev != nil {
		e.dev.Close()
	}
	e.mu.Lock()
	if e.lastErr != nil {
		C.free(unsafe.Pointer(e.lastErr))
		e.lastErr = nil
	}
	e.mu.Unlock()
}
