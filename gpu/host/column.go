package host

import (
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
	g := &vec{}
	if v.i64 != nil {
		g.i64 = make([]int64, len(idx))
		for j, i := range idx {
			g.i64[j] = v.i64[i]
		}
	}
	if v.f64 != nil {
		g.f64 = make([]float64, len(idx))
		for j, i := range idx {
			g.f64[j] = v.f64[i]
		}
	}
	if v.i128 != nil {
		g.i128 = make([]int128, len(idx))
		for j, i := range idx {
			g.i128[j] = v.i128[i]
		}
	}
	if v.valid != nil {
		g.valid = make([]bool, len(idx))
		for j, i := range idx {
			g.valid[j] = v.valid[i]
		}
	}
	if v.str != nil {
		g.str = v.str.gather(idx)
	}
	return g
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
}

func (d *Device) newColumn(t gpu.Type, n int, data *vec, dict *array.String) *column {
	if dict != nil {
		dict.Retain()
	}
	if data.valid != nil && !t.Nullable {
		// Only columns typed nullable carry a validity vector.
		data.valid = nil
	}
	return &column{dev: d, typ: t, n: n, data: data, dict: dict}
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
