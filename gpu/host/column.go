package host

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
)

// vec holds the values of a column or of an intermediate result. Exactly one
// value slice is used, chosen by the Kind's storage class:
//   - i64: Bool (0/1), Int8..Int64, Date32, Decimal64, Dict (codes);
//   - f64: Float32 (exactly widened) and Float64;
//   - i128: Decimal128;
//   - str: Str (strcol_strings.go), whose other slices are nil.
//
// valid is nil when every value is present. Null slots hold zero, and no
// operation looks at them (so a null never raises an overflow).
type vec struct {
	i64   []int64
	f64   []float64
	i128  []int128
	valid []bool
	str   *strVec // Str (strcol_strings.go)
}

type storage uint8

const (
	stInt storage = iota
	stFloat
	st128
)

func storageOf(k gpu.Kind) storage {
	switch k {
	case gpu.Float32, gpu.Float64:
		return stFloat
	case gpu.Decimal128:
		return st128
	}
	return stInt
}

func newVec(k gpu.Kind, n int, nullable bool) *vec {
	v := &vec{}
	switch {
	case k == gpu.Str:
		v.str = emptyStrs(n)
	case storageOf(k) == stInt:
		v.i64 = make([]int64, n)
	case storageOf(k) == stFloat:
		v.f64 = make([]float64, n)
	default:
		v.i128 = make([]int128, n)
	}
	if nullable {
		v.valid = make([]bool, n)
	}
	return v
}

func (v *vec) isValid(i int) bool { return v.valid == nil || v.valid[i] }

// slice returns rows [lo, hi) without copying.
func (v *vec) slice(lo, hi int) *vec {
	s := &vec{}
	if v.i64 != nil {
		s.i64 = v.i64[lo:hi]
	}
	if v.f64 != nil {
		s.f64 = v.f64[lo:hi]
	}
	if v.i128 != nil {
		s.i128 = v.i128[lo:hi]
	}
	if v.valid != nil {
		s.valid = v.valid[lo:hi]
	}
	if v.str != nil {
		s.str = v.str.slice(lo, hi)
	}
	return s
}

// gather returns the rows idx, in that order.
func (v *vec) gather(idx []int32) *vec {
	g := v.gatherAlloc(len(idx))
	v.gatherRange(g, idx, 0, len(idx))
	return g
}

// gatherAlloc allocates what gather returns for n rows: vectors of v's
// kinds (a Str one holds rows into v's characters).
func (v *vec) gatherAlloc(n int) *vec {
	g := &vec{}
	if v.i64 != nil {
		g.i64 = make([]int64, n)
	}
	if v.f64 != nil {
		g.f64 = make([]float64, n)
	}
	if v.i128 != nil {
		g.i128 = make([]int128, n)
	}
	if v.valid != nil {
		g.valid = make([]bool, n)
	}
	if v.str != nil {
		g.str = &strVec{offs: v.str.offs, chars: v.str.chars, rows: make([]int32, n)}
	}
	return g
}

// gatherRange fills rows [lo, hi) of g (from gatherAlloc) with v's rows
// idx[lo:hi].
func (v *vec) gatherRange(g *vec, idx []int32, lo, hi int) {
	if v.i64 != nil {
		for j, i := range idx[lo:hi] {
			g.i64[lo+j] = v.i64[i]
		}
	}
	if v.f64 != nil {
		for j, i := range idx[lo:hi] {
			g.f64[lo+j] = v.f64[i]
		}
	}
	if v.i128 != nil {
		for j, i := range idx[lo:hi] {
			g.i128[lo+j] = v.i128[i]
		}
	}
	if v.valid != nil {
		for j, i := range idx[lo:hi] {
			g.valid[lo+j] = v.valid[i]
		}
	}
	if v.str != nil {
		for j, i := range idx[lo:hi] {
			g.str.rows[lo+j] = int32(v.str.row(int(i)))
		}
	}
}

// gatherCtx is gather in ranges of rows, checking ctx before each.
func (v *vec) gatherCtx(ctx context.Context, idx []int32) (*vec, error) {
	g := v.gatherAlloc(len(idx))
	err := inRanges(ctx, len(idx), func(lo, hi int) error {
		v.gatherRange(g, idx, lo, hi)
		return nil
	})
	return g, err
}

// hasNull reports whether any of the first n rows is null.
func (v *vec) hasNull() bool {
	for _, ok := range v.valid {
		if !ok {
			return true
		}
	}
	return false
}

// column is the host Device's gpu.Column.
type column struct {
	dev      *Device
	typ      gpu.Type
	n        int
	data     *vec
	dict     *array.String // Dict columns only; retained by this column
	released atomic.Bool
	// bytes is what the column holds of the device's memory budget, from
	// newColumn to Release (budget.go).
	bytes int64
}

func (c *column) Type() gpu.Type            { return c.typ }
func (c *column) Len() int                  { return c.n }
func (c *column) Dictionary() *array.String { return c.dict }

func (c *column) Release() {
	if c.released.Swap(true) {
		return
	}
	if c.dict != nil {
		c.dict.Release()
	}
	c.data = nil
	c.dev.live.Add(-c.bytes)
}

// newColumn makes a column of data, which the caller allocated under a
// grant (budget.go): from here on the column itself holds its bytes of the
// budget until its Release.
func (d *Device) newColumn(t gpu.Type, n int, data *vec, dict *array.String) *column {
	if dict != nil {
		dict.Retain()
	}
	if data.valid != nil && !t.Nullable {
		// Only columns typed nullable carry a validity vector.
		data.valid = nil
	}
	c := &column{dev: d, typ: t, n: n, data: data, dict: dict, bytes: vecBytes(data)}
	d.noteLive(d.live.Add(c.bytes))
	return c
}

// own checks that c is a live column of this device.
func (d *Device) own(c gpu.Column, what string) (*column, error) {
	hc, ok := c.(*column)
	if !ok || hc == nil {
		return nil, fmt.Errorf("%s: column of type %T does not belong to the host device", what, c)
	}
	if hc.dev != d {
		return nil, fmt.Errorf("%s: column belongs to another host device", what)
	}
	if hc.released.Load() {
		return nil, fmt.Errorf("%s: column was released", what)
	}
	return hc, nil
}

// deviceBytes is what a column of n values would occupy on a GPU: values plus
// a validity bitmap when nullable (used for Stats).
func deviceBytes(t gpu.Type, n int) int64 {
	b := int64(n) * int64(t.Kind.Width())
	if t.Nullable {
		b += int64(n+7) / 8
	}
	return b
}
