package main

/*
#include <string.h>
#define RIGEL_BUILDING_LIBRARY
#include "rigel.h"
*/
import "C"

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
)

//export rigel_execute_plan
func rigel_execute_plan(h C.uintptr_t, plan *C.uint8_t, n C.size_t, out *C.struct_ArrowArrayStream) (rc C.int) {
	e := acquire(h)
	if e == nil {
		return -1 // rigel_last_error(h) says the engine is not open
	}
	defer e.unref()
	defer guard(e, &rc)
	return finish(e, out, func() (*duckdbbridge.Stream, error) {
		if plan == nil || n == 0 {
			return nil, errors.New("rigel_execute_plan: the plan is NULL or empty")
		}
		if uint64(n) > math.MaxInt {
			return nil, fmt.Errorf("rigel_execute_plan: a plan of %d bytes cannot be", uint64(n))
		}
		// A copy: the host may free or reuse its buffer once the call
		// returns, and Go must not keep pointers into C memory.
		data := bytes.Clone(unsafe.Slice((*byte)(unsafe.Pointer(plan)), int(n)))
		return e.eng.PlanStream(context.Background(), data)
	})
}

//export rigel_execute_sql
func rigel_execute_sql(h C.uintptr_t, query *C.char, out *C.struct_ArrowArrayStream) (rc C.int) {
	e := acquire(h)
	if e == nil {
		return -1
	}
	defer e.unref()
	defer guard(e, &rc)
	return finish(e, out, func() (*duckdbbridge.Stream, error) {
		if query == nil {
			return nil, errors.New("rigel_execute_sql: the query is NULL")
		}
		return e.eng.QueryStream(context.Background(), C.GoString(query))
	})
}

// finish checks out, runs the query and exports its answer into out,
// recording the outcome as the engine's last error. On error out is not
// touched.
func finish(e *engine, out *C.struct_ArrowArrayStream, run func() (*duckdbbridge.Stream, error)) C.int {
	if out == nil {
		e.errs.set("rigel: the out stream pointer is NULL")
		return -1
	}
	s, err := run()
	if err != nil {
		e.errs.set(err.Error())
		return -1
	}
	exportStream(e, s, (*cdata.CArrowArrayStream)(unsafe.Pointer(out)))
	e.errs.set("")
	return 0
}

// exportStream hands s to the host as an Arrow C stream, taking over the
// reference to s: the host's release callback releases it (for a DuckDB
// fallback, that returns its connection to the pool) and the engine
// reference the stream holds.
func exportStream(e *engine, s *duckdbbridge.Stream, out *cdata.CArrowArrayStream) {
	// arrow-go asks for a zeroed struct; hosts are told to zero it, but a
	// stack struct in C often is not, and a stale pointer there could
	// confuse Go's checks of C memory.
	C.memset(unsafe.Pointer(out), 0, C.size_t(unsafe.Sizeof(*out)))
	r := &engineReader{RecordReader: s, e: e}
	r.refs.Store(1)
	e.ref()
	cdata.ExportRecordReader(r, out) // retains r: the stream's reference
	r.Release()                      // ours
}

// engineReader is an answer handed out as a stream: it keeps its engine
// open until the host releases it.
type engineReader struct {
	array.RecordReader
	e    *engine
	refs atomic.Int64
}

func (r *engineReader) Retain() { r.refs.Add(1) }

func (r *engineReader) Release() {
	if r.refs.Add(-1) == 0 {
		r.RecordReader.Release()
		r.e.unref()
	}
}
