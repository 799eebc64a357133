package ipcfiles

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
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
// LocalFiles read is their union). Only files the policy allows are read
// (see Access), and their bytes together are bounded by its MaxBytes.
// Columns are found by name in each file (exactly, else ignoring case, as
// DuckDB matches names); a file's other columns are not read. Both Arrow
// IPC formats are read: the file format (magic ARROW1) and the stream
// format, since Substrait's ArrowReadOptions does not say which one
// "arrow" means. The context is checked between files.
func (a Access) Read(ctx context.Context, items []Item, cols []Column) ([]arrow.Array, error) {
	if len(items) == 0 {
		return nil, errors.New("a LocalFiles read without files")
	}
	if len(cols) == 0 {
		// No column would carry the row count.
		return nil, errors.New("a LocalFiles read of Arrow IPC files whose base schema has no columns")
	}
	rd := &reading{cols: cols, chunks: make([][]arrow.Array, len(cols)), budget: a.MaxBytes()}
	defer func() {
		for _, cs := range rd.chunks {
			for _, c := range cs {
				c.Release()
			}
		}
	}()
	for _, it := range items {
		if err := rd.item(ctx, a, it); err != nil {
			return nil, err
		}
	}
	out := make([]arrow.Array, len(cols))
	for i, cs := range rd.chunks {
		var err error
		if len(cs) == 0 {
			b := array.NewBuilder(memory.DefaultAllocator, rd.firstTypes[i])
			out[i] = b.NewArray()
			b.Release()
			continue
		}
		if out[i], err = array.Concatenate(cs, memory.DefaultAllocator); err != nil {
			for _, arr := range out[:i] {
				arr.Release()
			}
			return nil, fmt.Errorf("column %s: %w", cols[i].Name, err)
		}
	}
	return out, nil
}

// reading is one Read under way.
type reading struct {
	cols   []Column
	chunks [][]arrow.Array // per column, the arrays of every batch read
	budget int64           // the bytes the read's next files may still take
	// first names the file whose column types later files must share:
	// concatenation needs one Arrow type per column.
	first      string
	firstTypes []arrow.DataType
}

// item reads the files of one item.
func (rd *reading) item(ctx context.Context, a Access, it Item) error {
	pl, files, err := a.files(it)
	if err != nil {
		return err
	}
	defer pl.close()
	for _, rel := range files {
		if err := context.Cause(ctx); err != nil {
			return err
		}
		name := pl.show(rel)
		if it.Kind == File {
			name = it.Path // as the plan wrote it
		}
		data, err := readBounded(pl, rel, name, a.MaxBytes(), &rd.budget)
		if err != nil {
			return err
		}
		types, err := readFile(name, data, rd.cols, rd.chunks)
		if err != nil {
			return err
		}
		if rd.firstTypes == nil {
			rd.first, rd.firstTypes = name, types
			continue
		}
		for i, t := range types {
			if !arrow.TypeEqual(t, rd.firstTypes[i]) {
				return fmt.Errorf("Arrow IPC files %s and %s hold column %s in different types (%s, %s)",
					rd.first, name, rd.cols[i].Name, rd.firstTypes[i], t)
			}
		}
	}
	return nil
}

// readBounded reads the whole file rel of a place, name being its path
// for errors. It checks the opened file itself (no race with a rename
// between a check and the open): only a regular file is read, and only if
// its size fits both the per-file bound max and what is left of the
// read's budget. The read takes at most one byte more than that size, so
// a file that grows while read is an error, not unbounded memory.
func readBounded(pl place, rel, name string, max int64, budget *int64) ([]byte, error) {
	f, err := pl.open(rel)
	if err != nil {
		return nil, openErr(pl, "Arrow IPC file", name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("Arrow IPC file %s: %w", name, pathReason(err))
	}
	if !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return nil, refuse(ErrNotRegular, "Arrow IPC file %s is a folder (use uri_folder to read its files)", name)
		}
		return nil, refuse(ErrNotRegular, "Arrow IPC file %s is %s, not a regular file: only regular files are read", name, modeName(fi.Mode()))
	}
	size := fi.Size()
	if size > *budget {
		if size > max {
			return nil, refuse(ErrTooLarge, "Arrow IPC file %s holds %d bytes, more than the %d bytes one read may take from its files", name, size, max)
		}
		return nil, refuse(ErrTooLarge, "Arrow IPC file %s (%d bytes) takes the read's files past the %d bytes one read may take", name, size, max)
	}
	*budget -= size
	// The whole file is read at once: its columns are all read anyway, and
	// the record batches then point into these bytes instead of copies.
	data := make([]byte, size+1)
	n, err := io.ReadFull(f, data)
	switch {
	case int64(n) > size:
		return nil, fmt.Errorf("Arrow IPC file %s grew while it was read (past its %d bytes)", name, size)
	case err != nil && err != io.EOF && err != io.ErrUnexpectedEOF:
		return nil, fmt.Errorf("Arrow IPC file %s: %w", name, pathReason(err))
	case int64(n) < size:
		return nil, fmt.Errorf("Arrow IPC file %s shrank while it was read (%d of its %d bytes)", name, n, size)
	}
	return data[:size], nil
}

// modeName says what kind of file a non-regular mode is.
func modeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "an irregular file"
}

// readFile appends the columns of one file's record batches (its bytes,
// data) to chunks and returns the columns' Arrow types. A reader that
// panics on damaged bytes becomes an error naming the file.
//
// Errors name the file, its size, the kind of damage and the record batch,
// never a value read from the file: a length or count that does not fit is
// the file's own bytes in another spelling (the first four bytes of a text
// file, read as a message length, spell its first word), and a plan may
// name a file its client has no right to read. Messages of arrow-go, which
// print such values, pass through withoutValues. Names and types of a file
// that parses as Arrow IPC (its columns, listed when the plan's column is
// missing) are what a plan allowed to read the file may read anyway.
func readFile(path string, data []byte, cols []Column, chunks [][]arrow.Array) (types []arrow.DataType, err error) {
	size := int64(len(data))
	defer func() {
		if p := recover(); p != nil {
			types, err = nil, fmt.Errorf("Arrow IPC file %s (%d bytes) is damaged: %s", path, size, withoutValues(fmt.Sprint(p)))
		}
	}()
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
			return nil, fmt.Errorf("Arrow IPC file %s (%d bytes) cannot be read (truncated or damaged): %v", path, size, err)
		}
		r, err := ipc.NewMappedFileReader(data, opts...)
		if err != nil {
			return nil, fmt.Errorf("Arrow IPC file %s (%d bytes) cannot be read (truncated or damaged): %s", path, size, withoutValues(err.Error()))
		}
		defer r.Close()
		schema = r.Schema()
		for i := 0; i < r.NumRecords(); i++ {
			b, err := r.RecordBatch(i)
			if err != nil {
				return nil, fmt.Errorf("Arrow IPC file %s (%d bytes) record batch %d cannot be read (truncated or damaged): %s", path, size, i, withoutValues(err.Error()))
			}
			b.Retain() // valid only until the reader's next batch otherwise
			batches = append(batches, b)
		}
	} else {
		if err := checkStreamSchema(data); err != nil {
			return nil, fmt.Errorf("%s (%d bytes) is not an Arrow IPC file (no ARROW1 magic) nor an Arrow IPC stream: %v", path, size, err)
		}
		r, err := ipc.NewReader(bytes.NewReader(data), opts...)
		if err != nil {
			return nil, fmt.Errorf("%s (%d bytes) is not an Arrow IPC file (no ARROW1 magic) nor an Arrow IPC stream: %s", path, size, withoutValues(err.Error()))
		}
		defer r.Release()
		schema = r.Schema()
		for r.Next() {
			b := r.RecordBatch()
			b.Retain()
			batches = append(batches, b)
		}
		if err := r.Err(); err != nil {
			return nil, fmt.Errorf("Arrow IPC stream %s (%d bytes) record batch %d cannot be read (truncated or damaged): %s", path, size, len(batches), withoutValues(err.Error()))
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
				return nil, fmt.Errorf("Arrow IPC file %s column %s (record batch %d) is damaged: %s", path, c.Name, bi, withoutValues(err.Error()))
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

// fileValues are what a message may hold of a file's bytes: numbers
// (decimal or hexadecimal) and quoted text.
var fileValues = regexp.MustCompile(`0[xX][0-9a-fA-F]+|[0-9]+|"[^"]*"|'[^']*'`)

// withoutValues is a reader's message with every number and quoted text
// left out: the kind of damage stays, the file's values go.
func withoutValues(msg string) string {
	return fileValues.ReplaceAllString(msg, "…")
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
