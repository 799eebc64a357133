package cuda

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
)

// Str columns (strings in Arrow layout, gpu/ext_strings.go): data holds the
// Len()+1 int32 offsets (from 0), chars the UTF-8 bytes, valid one byte per
// row as for every column. Kernels read them only in string predicates
// (codegen_strrow.go); asColumns refuses them everywhere else.

var _ gpu.StrUploader = (*Device)(nil)

// UploadStr copies a utf8 or large_utf8 array as a Str column: the offsets
// (rebased to 0 on the host only when the array does not start at 0) and
// the characters each go in one bulk copy through the pinned buffers.
func (d *Device) UploadStr(ctx context.Context, arr arrow.Array) (gpu.Column, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if arr == nil {
		return nil, fmt.Errorf("upload strings: nil array")
	}
	l, err := gpu.ArrowStrLayout(arr)
	if err != nil {
		return nil, fmt.Errorf("upload strings: %w", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, fmt.Errorf("upload strings: CUDA device is closed")
	}
	n := l.Len()
	c := &column{d: d, t: gpu.Type{Kind: gpu.Str, Nullable: l.Nulls > 0}, n: n, nchars: int64(len(l.Chars))}
	what := fmt.Sprintf("str column of %d rows", n)
	// The offsets' bytes as the device reads them (the host is
	// little-endian, as every supported CUDA host).
	offs := unsafe.Slice((*byte)(unsafe.Pointer(&l.Offsets[0])), 4*len(l.Offsets))
	err = func() error {
		var err error
		if c.data, err = d.allocDirect(int64(len(offs)), what+" offsets"); err != nil {
			return err
		}
		if err = d.copyIn(c.data, offs, what+" offsets"); err != nil {
			return err
		}
		// At least one byte: a column of empty strings still gets a
		// pointer the kernels may offset by zero.
		if c.chars, err = d.allocDirect(max(c.nchars, 1), what+" characters"); err != nil {
			return err
		}
		if err = d.copyIn(c.chars, l.Chars, what+" characters"); err != nil {
			return err
		}
		if l.Valid != nil {
			if c.valid, err = d.allocDirect(int64(n), what+" validity"); err != nil {
				return err
			}
			return d.copyIn(c.valid, l.Valid, what+" validity")
		}
		return nil
	}()
	if err != nil {
		d.freeColumn(c)
		return nil, err
	}
	return c, nil
}

// CharBytes is a Str column's characters on the device (gpu.StrColumn);
// 0 for other kinds.
func (c *column) CharBytes() int64 { return c.nchars }

// asInputs is asColumns for Run, whose string predicates read Str columns.
func (d *Device) asInputs(cols []gpu.Column) ([]*column, error) { return d.checkColumns(cols, true) }

// downloadStr copies a Str column back as a utf8 array: its three buffers
// are the Arrow array's (the validity bytes become a bitmap).
func (d *Device) downloadStr(c *column) (arrow.Array, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, fmt.Errorf("download: CUDA device is closed")
	}
	if c.d != d || c.freed.Load() {
		return nil, fmt.Errorf("download: str column released or not made by this CUDA device")
	}
	what := fmt.Sprintf("str column of %d rows", c.n)
	offs := make([]byte, 4*(c.n+1))
	if err := d.copyOut(offs, c.data, what+" offsets"); err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	chars := make([]byte, c.nchars)
	if err := d.copyOut(chars, c.chars, what+" characters"); err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	var valid []byte
	if c.valid != 0 {
		valid = make([]byte, c.n)
		if err := d.copyOut(valid, c.valid, what+" validity"); err != nil {
			return nil, fmt.Errorf("download: %w", err)
		}
	}
	bitmap, nulls := validityBitmap(valid)
	data := array.NewData(arrow.BinaryTypes.String, c.n,
		[]*memory.Buffer{bitmap, memory.NewBufferBytes(offs), memory.NewBufferBytes(chars)}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}
