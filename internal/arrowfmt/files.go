package arrowfmt

import (
	"fmt"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/internal/arrowrec"
)

// ReadIPCFile reads an Arrow IPC file (what other programs' tests write)
// into one record.
func ReadIPCFile(path string) (arrow.RecordBatch, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	var recs []arrow.RecordBatch
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.RecordBatch(i)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		rec.Retain() // the reader's record is valid only until its next RecordBatch
		recs = append(recs, rec)
	}
	return arrowrec.Concat(r.Schema(), recs)
}

// WriteInt64File writes an Arrow IPC file of one nullable BIGINT column
// (what tests hand to readers of LocalFiles and read_arrow).
func WriteInt64File(path, column string, values []int64) error {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(values, nil)
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: column, Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(len(values)))
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := WriteFile(f, rec); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// WriteFile writes rec as an Arrow IPC file into f and closes f.
func WriteFile(f *os.File, rec arrow.RecordBatch) error {
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(rec.Schema()))
	if err == nil {
		err = w.Write(rec)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// CompareTSV compares rows printed by another program (one line a row,
// values separated by tabs, NULL for nulls) with an answer, in order:
// exact text except floats (relative tolerance).
func CompareTSV(text string, want arrow.RecordBatch) error {
	var got [][]string
	if text != "" {
		for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			got = append(got, strings.Split(line, "\t"))
		}
	}
	rows := Rows(want)
	if len(got) != len(rows) {
		return fmt.Errorf("%d rows, want %d", len(got), len(rows))
	}
	for r := range rows {
		if len(got[r]) != len(rows[r]) {
			return fmt.Errorf("row %d has %d values, want %d", r, len(got[r]), len(rows[r]))
		}
		for c, w := range rows[r] {
			if !equalValue(got[r][c], w, isFloat(want, c), RelTol) {
				return fmt.Errorf("row %d column %s: got %s, want %s", r, want.ColumnName(c), got[r][c], w)
			}
		}
	}
	return nil
}
