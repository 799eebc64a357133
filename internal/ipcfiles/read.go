package ipcfiles

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Column is one column a read asks for, as the plan's base schema names it.
type Column struct {
	Name string
	// Check says whether a file's field can be read as the plan's column
	// type; its error says how they differ (naming both types).
	Check func(f arrow.Field) error
	// NotNull: the plan declares the column without nulls, so a null in a
	// file is an error rather than a value the plan says cannot occur.
	NotNull bool
}

// fileMagic opens the Arrow IPC file format; a stream has no magic.
var fileMagic = []byte("ARROW1")

// Read reads the files of items, in order, and returns one array per
// column: the rows of every record batch of every file, concatenated
// (several items, and the files of a glob or folder, are one table, as a
// LocalFiles read is their union). Columns are found by name in each file
// (exactly, else ignoring case, as DuckDB matches names); a file's other
// columns are not read. Both Arrow IPC formats are read: the file format
// (magic ARROW1) and the stream format, since Substrait's ArrowReadOptions
// does not say which one "arrow" means.
func Read(items []Item, cols []Column) ([]arrow.Array, error) {
	if len(items) == 0 {
		return nil, errors.New("a LocalFiles read without files")
	}
	if len(cols) == 0 {
		// No column would carry the row count.
		return nil, errors.New("a LocalFiles read of Arrow IPC files whose base schema has no columns")
	}
	chunks := make([][]arrow.Array, len(cols))
	defer func() {
		for _, cs := range chunks {
			for _, c := range cs {
				c.Release()
			}
		}
	}()
	// first names the file whose column types later files must share:
	// concatenation needs one Arrow type per column.
	var first string
	var firstTypes []arrow.DataType
	for _, it := range items {
		files, err := it.Files()
		if err != nil {
			return nil, err
		}
		for _, path := range files {
			types, err := readFile(path, cols, chunks)
			if err != nil {
				return nil, err
			}
			if firstTypes == nil {
				first, firstTypes = path, types
				continue
			}
			for i, t := range types {
				if !arrow.TypeEqual(t, firstTypes[i]) {
					return nil, fmt.Errorf("Arrow IPC files %s and %s hold column %s in different types (%s, %s)",
						first, path, cols[i].Name, firstTypes[i], t)
				}
			}
		}
	}
	out := make([]arrow.Array, len(cols))
	for i, cs := range chunks {
		var err error
		if len(cs) == 0 {
			b := array.NewBuilder(memory.DefaultAllocator, firstTypes[i])
			out[i] = b.NewArray()
			b.Release()
			continue
		}
		if out[i], err = array.Concatenate(cs, memory.DefaultAllocator); err != nil {
			for _, a := range out[:i] {
				a.Release()
			}
			return nil, fmt.Errorf("column %s: %w", cols[i].Name, err)
		}
	}
	return out, nil
}

// readFile appends the columns of one file's record batches to chunks and
// returns the columns' Arrow types. A reader that panics on damaged bytes
// becomes an error naming the file.
func readFile(path string, cols []Column, chunks [][]arrow.Array) (types []arrow.DataType, err error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("Arrow IPC file: %w", err)
	} else if fi.IsDir() {
		return nil, fmt.Errorf("Arrow IPC file %s is a folder (use uri_folder to read its files)", path)
	}
	// The whole file is read at once: its columns are all read anyway, and
	// the record batches then point into these bytes instead of copies.
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("Arrow IPC file: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			types, err = nil, fmt.Errorf("Arrow IPC file %s is damaged: %v", path, p)
		}
	}()
	size := int64(len(data))
	opts := []ipc.Option{
		ipc.WithAllocator(limitAllocator{Allocator: memory.DefaultAllocator, max: allocLimit(size)}),
		// No message of the file is larger than the file (arrow-go's
		// defaults, 64 MiB and 256 MiB, would refuse large files).
		ipc.WithMetadataSizeLimit(size), ipc.WithBodySizeLimit(size),
	}
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	var schema *arrow.Schema
	if bytes.HasPrefix(data, fileMagic) {
		if err := checkFileSchema(data); err != nil {
			return nil, fmt.Errorf("Arrow IPC file %s cannot be read (truncated or damaged): %v", path, err)
		}
		r, err := ipc.NewMappedFileReader(data, opts...)
		if err != nil {
			return nil, fmt.Errorf("Arrow IPC file %s cannot be read (truncated or damaged): %w", path, err)
		}
		defer r.Close()
		schema = r.Schema()
		for i := 0; i < r.NumRecords(); i++ {
			b, err := r.RecordBatch(i)
			if err != nil {
				return nil, fmt.Errorf("Arrow IPC file %s record batch %d cannot be read (truncated or damaged): %w", path, i, err)
			}
			b.Retain() // valid only until the reader's next batch otherwise
			batches = append(batches, b)
		}
	} else {
		if err := checkStreamSchema(data); err != nil {
			return nil, fmt.Errorf("%s is not an Arrow IPC file (no ARROW1 magic) nor an Arrow IPC stream: %v", path, err)
		}
		r, err := ipc.NewReader(bytes.NewReader(data), opts...)
		if err != nil {
			return nil, fmt.Errorf("%s is not an Arrow IPC file (no ARROW1 magic) nor an Arrow IPC stream: %v", path, err)
		}
		defer r.Release()
		schema = r.Schema()
		for r.Next() {
			b := r.RecordBatch()
			b.Retain()
			batches = append(batches, b)
		}
		if err := r.Err(); err != nil {
			return nil, fmt.Errorf("Arrow IPC stream %s record batch %d cannot be read (truncated or damaged): %w", path, len(batches), err)
		}
	}
	idx := make([]int, len(cols))
	types = make([]arrow.DataType, len(cols))
	for i, c := range cols {
		j, err := fieldIndex(schema, c.Name)
		if err != nil {
			return nil, fmt.Errorf("Arrow IPC file %s: %w (its columns: %s)", path, err, describe(schema))
		}
		fd := schema.Field(j)
		if c.Check != nil {
			if err := c.Check(fd); err != nil {
				return nil, fmt.Errorf("Arrow IPC file %s column %s: %w", path, c.Name, err)
			}
		}
		idx[i], types[i] = j, fd.Type
	}
	for bi, b := range batches {
		for i, c := range cols {
			a := b.Column(idx[i])
			if err := validate(a); err != nil {
				return nil, fmt.Errorf("Arrow IPC file %s column %s (record batch %d) is damaged: %v", path, c.Name, bi, err)
			}
			if c.NotNull && a.NullN() > 0 {
				return nil, fmt.Errorf("Arrow IPC file %s column %s holds nulls (record batch %d), but the plan's base schema declares it NOT NULL", path, c.Name, bi)
			}
		}
	}
	for _, b := range batches {
		for i := range cols {
			a := b.Column(idx[i])
			a.Retain()
			chunks[i] = append(chunks[i], a)
		}
	}
	return types, nil
}

// fieldIndex finds a column by name: exactly, else ignoring case when that
// names one column only.
func fieldIndex(s *arrow.Schema, name string) (int, error) {
	if i := s.FieldIndices(name); len(i) == 1 {
		return i[0], nil
	} else if len(i) > 1 {
		return 0, fmt.Errorf("%d columns are named %s", len(i), name)
	}
	found := -1
	for i, f := range s.Fields() {
		if strings.EqualFold(f.Name, name) {
			if found >= 0 {
				return 0, fmt.Errorf("columns %s and %s both match %s ignoring case", s.Field(found).Name, f.Name, name)
			}
			found = i
		}
	}
	if found < 0 {
		return 0, fmt.Errorf("no column %s", name)
	}
	return found, nil
}

func describe(s *arrow.Schema) string {
	parts := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		parts[i] = f.Name + " " + f.Type.String()
	}
	return strings.Join(parts, ", ")
}

// validate checks that an array's buffers hold what its length says: the
// IPC reader takes lengths and offsets from the file, and a damaged file
// would otherwise make a later read of a value index out of its buffer.
func validate(a arrow.Array) error {
	d := a.Data()
	n := d.Offset() + d.Len()
	bufs := d.Buffers()
	if a.NullN() > 0 && (len(bufs) == 0 || bufs[0] == nil || bufs[0].Len()*8 < n) {
		return fmt.Errorf("%d nulls but a validity bitmap shorter than %d rows", a.NullN(), n)
	}
	if fw, ok := a.DataType().(arrow.FixedWidthDataType); ok && n > 0 {
		need := (n*fw.BitWidth() + 7) / 8
		if len(bufs) < 2 || bufs[1] == nil || bufs[1].Len() < need {
			return fmt.Errorf("a values buffer shorter than %d rows of %s", n, a.DataType())
		}
	}
	if v, ok := a.(interface{ ValidateFull() error }); ok {
		return v.ValidateFull()
	}
	return nil
}
