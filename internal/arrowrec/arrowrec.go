// Package arrowrec joins record batches into one record: results arrive
// in batches (DuckDB's chunks, Flight streams, IPC files) and callers that
// compare or hand out a whole answer want one record.
package arrowrec

import (
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
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for rr.Next() {
		r := rr.RecordBatch()
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
