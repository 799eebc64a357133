package duckarrow

// #include <stdint.h>
// uint64_t duckdb_row_count(void *result);
import "C"

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	bindings "github.com/duckdb/duckdb-go-bindings"
	"github.com/rigel-db/rigel/internal/arrowrec"
	"github.com/rigel-db/rigel/internal/offheap"
)

// QueryColumn runs a query of one column and returns its whole result as
// one Arrow array of type want (what QueryContext's reader would give,
// concatenated).
//
// It is how rigel loads a table column that ScatterColumn cannot read (a
// view, a table whose rowids have gaps, other types), and why it exists: converting
// DuckDB's result to Arrow a chunk of 2,048 rows at a time, importing each
// chunk and concatenating them took most of a column's load (TPC-H SF10's
// lineitem on an H100 machine: 7.3 s of CPU in duckdb_data_chunk_to_arrow,
// 3.5 s concatenating, 1 s importing, of 26 s:
// bench/results/2026-11-28-h100-tpch-sf10-loader-v30.md). For the column types a
// table scan meets (integers, floating point, dates, timestamps, decimals,
// booleans, strings) it copies DuckDB's vectors straight into the array's
// buffers instead (memory maps, internal/offheap), sized once from the
// result's row count. Other types go
// the chunk-at-a-time way.
//
// ran, when not nil, is called once DuckDB has run the statement, before
// the result is read (duckguard's lock covers running statements only).
func (a *Arrow) QueryColumn(ctx context.Context, query string, want arrow.DataType, ran func()) (arrow.Array, error) {
	rows, err := a.conn.QueryContext(ctx, query, nil)
	if ran != nil {
		ran()
	}
	if err != nil {
		if rows != nil {
			err = errors.Join(err, rows.Close())
		}
		return nil, err
	}
	res, err := resultOf(rows)
	if err != nil {
		return nil, errors.Join(err, rows.Close())
	}
	if n := bindings.ColumnCount(res); n != 1 {
		return nil, errors.Join(fmt.Errorf("duckarrow: QueryColumn of a result of %d columns", n), rows.Close())
	}
	lt := bindings.ColumnLogicalType(res, 0)
	b := newVectorCopier(lt, want)
	bindings.DestroyLogicalType(&lt)
	if b == nil {
		r, err := newReader(ctx, rows)
		if err != nil {
			return nil, errors.Join(err, rows.Close())
		}
		defer r.Release()
		return concatChunks(r, want)
	}
	defer rows.Close()
	if !bindings.ResultIsStreaming(*res) {
		// A copy of the handle: res lies in duckdb-go's rows, whose other
		// fields cgo's pointer check would see.
		r := *res
		if err := b.reserve(int(C.duckdb_row_count(unsafe.Pointer(&r)))); err != nil {
			return nil, err
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			b.free()
			return nil, err
		}
		chunk := bindings.FetchChunk(*res)
		if chunk.Ptr == nil {
			break
		}
		vec := bindings.DataChunkGetVector(chunk, 0)
		err := b.appendVector(bindings.VectorGetData(vec), (*uint64)(bindings.VectorGetValidity(vec)), int(bindings.DataChunkGetSize(chunk)))
		bindings.DestroyDataChunk(&chunk)
		if err != nil {
			b.free()
			return nil, err
		}
	}
	return b.finish(want)
}

// concatChunks reads r to its end into one array of type want.
func concatChunks(r *reader, want arrow.DataType) (arrow.Array, error) {
	if got := r.Schema().Field(0).Type; !arrow.TypeEqual(got, want) {
		return nil, fmt.Errorf("duckarrow: the column is %s in Arrow, not %s", got, want)
	}
	rec, err := arrowrec.ReadAll(r)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	col := rec.Column(0)
	col.Retain()
	return col, nil
}

// vectorCopier builds one Arrow array from DuckDB vectors of one type, in
// mapped memory (internal/offheap).
type vectorCopier struct {
	kind  copyKind
	width int            // bytes a value in DuckDB's vector
	data  offheap.Region // values (strings: their bytes)
	offs  offheap.Region // strings: Arrow's 32-bit offsets
	valid offheap.Region // Arrow's validity bitmap; empty while no value is null
	n     int
	end   int32 // strings: the last offset
}

type copyKind int

const (
	copyFixed   copyKind = iota // the vector's values are Arrow's
	copyDecimal                 // sign-extended into 128-bit decimals
	copyBool                    // a byte a value into bits
	copyString                  // duckdb_string_t into offsets and bytes
)

// newVectorCopier is the copier for DuckDB's type lt when the array it
// makes is of type want, or nil.
func newVectorCopier(lt bindings.LogicalType, want arrow.DataType) *vectorCopier {
	var made arrow.DataType
	c := &vectorCopier{kind: copyFixed}
	id := bindings.GetTypeId(lt)
	if f, ok := fixedOfDuck(id); ok {
		made, c.width = f.arrowType, f.width
	}
	switch id {
	case bindings.TypeBoolean:
		made, c.width, c.kind = arrow.FixedWidthTypes.Boolean, 1, copyBool
	case bindings.TypeVarchar:
		made, c.width, c.kind = arrow.BinaryTypes.String, 16, copyString
	case bindings.TypeDecimal:
		made = &arrow.Decimal128Type{Precision: int32(bindings.DecimalWidth(lt)), Scale: int32(bindings.DecimalScale(lt))}
		c.kind = copyDecimal
		if c.width = decimalStorageWidth(bindings.DecimalInternalType(lt)); c.width == 0 {
			return nil
		}
	}
	if made == nil {
		return nil
	}
	if !arrow.TypeEqual(made, want) {
		return nil
	}
	return c
}

// reserve makes room for n rows.
func (c *vectorCopier) reserve(n int) error {
	switch c.kind {
	case copyFixed:
		return c.data.Reserve(n * c.width)
	case copyDecimal:
		return c.data.Reserve(n * 16)
	case copyBool:
		return c.data.Reserve(int(bitutil.BytesForBits(int64(n))))
	case copyString:
		return c.offs.Reserve(4 * (n + 1))
	}
	return nil
}

// appendVector adds n rows of a vector: its values at data, its validity
// mask (a bit a row, set when valid) at mask or nil when all are valid.
func (c *vectorCopier) appendVector(data unsafe.Pointer, mask *uint64, n int) error {
	if n == 0 {
		return nil
	}
	if c.kind == copyString && c.n == 0 {
		if err := c.offs.Add(make([]byte, 4)); err != nil { // the first offset, 0
			return err
		}
	}
	src := unsafe.Slice((*byte)(data), n*c.width)
	var err error
	switch c.kind {
	case copyFixed:
		err = c.data.Add(src)
	case copyDecimal:
		err = c.appendDecimals(src, n)
	case copyBool:
		if err = c.data.Extend(int(bitutil.BytesForBits(int64(c.n + n)))); err == nil {
			for i := range n {
				bitutil.SetBitTo(c.data.B, c.n+i, src[i] != 0)
			}
		}
	case copyString:
		err = c.appendStrings(src, mask, n)
	}
	if err != nil {
		return err
	}
	if err := c.appendValidity(mask, n); err != nil {
		return err
	}
	c.n += n
	return nil
}

// appendDecimals sign-extends DuckDB's decimals (16, 32, 64 or 128 bits,
// little-endian, as the machine) into Arrow's 128-bit ones: the low word,
// then the sign.
func (c *vectorCopier) appendDecimals(src []byte, n int) error {
	at := len(c.data.B)
	if err := c.data.Extend(at + 16*n); err != nil {
		return err
	}
	out := unsafe.Slice((*int64)(unsafe.Pointer(&c.data.B[at])), 2*n)
	p := unsafe.Pointer(&src[0])
	switch c.width {
	case 2:
		for i, v := range unsafe.Slice((*int16)(p), n) {
			out[2*i], out[2*i+1] = int64(v), int64(v)>>63
		}
	case 4:
		for i, v := range unsafe.Slice((*int32)(p), n) {
			out[2*i], out[2*i+1] = int64(v), int64(v)>>63
		}
	case 8:
		for i, v := range unsafe.Slice((*int64)(p), n) {
			out[2*i], out[2*i+1] = v, v>>63
		}
	case 16:
		copy(c.data.B[at:], src) // DuckDB's hugeint: lower 64 bits, then upper
	}
	return nil
}

// appendStrings copies duckdb_string_t values: a 32-bit length, then the
// string inline when it is at most 12 bytes, else a 4-byte prefix and a
// pointer to it. Null rows add no bytes.
func (c *vectorCopier) appendStrings(src []byte, mask *uint64, n int) error {
	var words []uint64
	if mask != nil {
		words = unsafe.Slice(mask, (n+63)/64)
	}
	at := len(c.offs.B)
	if err := c.offs.Extend(at + 4*n); err != nil {
		return err
	}
	offs := unsafe.Slice((*int32)(unsafe.Pointer(&c.offs.B[at])), n)
	for i := range n {
		if words == nil || words[i/64]>>(i%64)&1 != 0 {
			v := src[i*16 : i*16+16]
			l := int(binary.LittleEndian.Uint32(v))
			var s []byte
			if l <= 12 {
				s = v[4 : 4+l]
			} else {
				s = unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&v[8]))), l)
			}
			if len(c.data.B)+l > 1<<31-1 {
				return ErrStringsTooLong
			}
			if err := c.data.Add(s); err != nil {
				return err
			}
			c.end = int32(len(c.data.B))
		}
		offs[i] = c.end
	}
	return nil
}

// appendValidity adds n rows' validity bits at row c.n.
func (c *vectorCopier) appendValidity(mask *uint64, n int) error {
	if mask == nil && c.valid.B == nil {
		return nil
	}
	first := c.valid.B == nil // the first null: the rows before are valid
	if err := c.valid.Extend(int(bitutil.BytesForBits(int64(c.n + n)))); err != nil {
		return err
	}
	if first {
		bitutil.SetBitsTo(c.valid.B, 0, int64(c.n), true)
	}
	if mask == nil {
		bitutil.SetBitsTo(c.valid.B, int64(c.n), int64(n), true)
		return nil
	}
	words := unsafe.Slice(mask, (n+63)/64)
	for i := range n {
		bitutil.SetBitTo(c.valid.B, c.n+i, words[i/64]>>(i%64)&1 != 0)
	}
	return nil
}

// free unmaps what the copier holds (on an error).
func (c *vectorCopier) free() {
	c.data.Free()
	c.offs.Free()
	c.valid.Free()
}

// finish makes the array, which owns the copier's memory.
func (c *vectorCopier) finish(want arrow.DataType) (arrow.Array, error) {
	nulls := 0
	var valid *memory.Buffer
	if c.valid.B != nil {
		nulls = c.n - bitutil.CountSetBits(c.valid.B, 0, c.n)
		valid = c.valid.Buffer()
	}
	bufs := []*memory.Buffer{valid, c.data.Buffer()}
	if c.kind == copyString {
		if c.offs.B == nil {
			if err := c.offs.Add(make([]byte, 4)); err != nil {
				return nil, err
			}
		}
		bufs = []*memory.Buffer{valid, c.offs.Buffer(), bufs[1]}
	}
	d := array.NewData(want, c.n, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release() // the data holds its own references
		}
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}
