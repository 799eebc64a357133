package main

/*
#define RIGEL_BUILDING_LIBRARY
#include "rigel.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
)

//export rigel_register_stream
func rigel_register_stream(h C.uintptr_t, name *C.char, stream *C.struct_ArrowArrayStream) (rc C.int) {
	// The stream is ours from the start: whatever path this call takes, a
	// stream not moved into an importer (which releases it itself) is
	// released here.
	defer func() {
		if stream != nil && stream.release != nil {
			cdata.ReleaseCArrowArrayStream((*cdata.CArrowArrayStream)(unsafe.Pointer(stream)))
		}
	}()
	e := acquire(h)
	if e == nil {
		return -1 // rigel_last_error(h) says the engine is not open
	}
	defer e.unref()
	defer guard(e, &rc)
	if err := registerStream(e, name, stream); err != nil {
		e.errs.set(err.Error())
		return -1
	}
	e.errs.set("")
	return 0
}

func registerStream(e *engine, name *C.char, stream *C.struct_ArrowArrayStream) error {
	if name == nil || *name == 0 {
		return errors.New("rigel_register_stream: the table name is NULL or empty")
	}
	if stream == nil {
		return errors.New("rigel_register_stream: the stream is NULL")
	}
	if stream.release == nil {
		return errors.New("rigel_register_stream: the stream is released already (its release callback is NULL)")
	}
	rdr, err := readStream(stream)
	if err != nil {
		return fmt.Errorf("rigel_register_stream: %w", err)
	}
	defer rdr.Release()
	return e.eng.RegisterArrow(context.Background(), C.GoString(name), rdr)
}

// readStream takes a C stream over and reads it whole, on the calling
// thread, into a reader of the same batches (imported without copies).
//
// Reading it here rather than letting DuckDB pull it keeps the producer's
// callbacks on the caller's thread and inside the call: DuckDB would pull
// from its own worker threads, which a producer tied to its thread (or to
// Python's GIL, held by a caller through ctypes.PyDLL) would not survive.
// The rows are copied into the catalog anyway, so this costs only holding
// the producer's batches until the copy is done.
func readStream(stream *C.struct_ArrowArrayStream) (array.RecordReader, error) {
	in, err := cdata.ImportCRecordReader((*cdata.CArrowArrayStream)(unsafe.Pointer(stream)), nil)
	if err != nil {
		return nil, fmt.Errorf("reading the stream's schema: %w", err)
	}
	rr, ok := in.(array.RecordReader)
	if !ok { // arrow-go's importer is one; this guards an upgrade
		return nil, fmt.Errorf("arrow-go's stream importer (%T) is not an array.RecordReader", in)
	}
	defer rr.Release()
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for rr.Next() {
		rec := rr.RecordBatch()
		rec.Retain() // the importer releases its current batch at the next Next
		recs = append(recs, rec)
	}
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("reading the stream: %w", err)
	}
	return array.NewRecordReader(rr.Schema(), recs)
}
