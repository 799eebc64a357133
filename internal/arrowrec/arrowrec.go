// Package arrowrec joins record batches into one record: results arrive
// in batches (DuckDB's chunks, Flight streams, IPC files) and callers that
// compare or hand out a whole answer want one record.
package arrowrec

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Concat returns one record holding the rows of recs, in order (recs are
// not released). A column that comes in one chunk is shared, not copied,
// which also serves types array.Concatenate lacks (dense unions).
func Concat(schema *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	tbl := array.NewTableFromRecords(schema, recs)
	defer tbl.Release()
	cols := make([]arrow.Array, tbl.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range cols {
		chunks := tbl.Column(i).Data().Chunks()
		switch len(chunks) {
		case 0:
			cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, schema.Field(i).Type, 0)
		case 1:
			chunks[0].Retain()
			cols[i] = chunks[0]
		default:
			c, err := array.Concatenate(chunks, memory.DefaultAllocator)
			if err != nil {
				return nil, err
			}
			cols[i] = c
		}
	}
	return array.NewRecordBatch(schema, cols, tbl.NumRows()), nil
}

// ReadAll reads a reader's batches into one record (Concat of them); the
// reader is read to its end, not released.
func ReadAll(rr array.RecordReader) (arrow.RecordBatch, error) {
	return ReadAllWithin(rr, 0)
}

// ErrTooLarge: an answer larger than the bytes its reader may hold in
// memory at once.
var ErrTooLarge = errors.New("answer too large to hold in memory")

// ReadAllWithin is ReadAll holding at most maxBytes of batches (0: no
// bound; the concatenation holds as much again for a moment). Past the
// bound it stops reading and fails with ErrTooLarge, so that an answer of
// any size costs bounded memory: a cross product that DuckDB streams
// happily would otherwise end the process.
func ReadAllWithin(rr array.RecordReader, maxBytes int64) (arrow.RecordBatch, error) {
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	var held, rows int64
	for rr.Next() {
		r := rr.RecordBatch()
		held += RecordBytes(r)
		rows += r.NumRows()
		if maxBytes > 0 && held > maxBytes {
			return nil, fmt.Errorf("%w: past %d rows and %d bytes, over the bound of %d bytes on an answer held whole (a LIMIT, or a streaming reader, where there is one)",
				ErrTooLarge, rows, held, maxBytes)
		}
		r.Retain()
		recs = append(recs, r)
	}
	if err := rr.Err(); err != nil {
		return nil, err
	}
	return Concat(rr.Schema(), recs)
}

// Positional returns a record of equally long arrays named c0, c1, ...
// (the names the fallback SQL gives relation columns), every column
// nullable. The record holds its own references: arrays stay the caller's.
func Positional(arrays []arrow.Array) arrow.RecordBatch {
	fields := make([]arrow.Field, len(arrays))
	rows := int64(0)
	for i, a := range arrays {
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: a.DataType(), Nullable: true}
		rows = int64(a.Len())
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrays, rows)
}

// RecordBytes is the memory a record's buffers hold (children and
// dictionaries included; a buffer shared by two columns counts twice).
func RecordBytes(r arrow.RecordBatch) int64 {
	var n int64
	for _, c := range r.Columns() {
		n += DataBytes(c.Data())
	}
	return n
}

// DataBytes is the memory an array's buffers hold, children and
// dictionary included.
func DataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += DataBytes(c)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += DataBytes(d.Dictionary())
	}
	return n
}
