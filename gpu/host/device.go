// Package host is the reference implementation of gpu.Device in plain Go.
//
// It defines what the kernel IR means (gpu/ir.go states the rules; this
// package is their executable form), so it is written to be obviously
// correct first: exact 128-bit integer arithmetic with overflow checks,
// nulls tracked everywhere. It is also fast enough for TPC-H at scale factor
// 1 on a laptop: expressions are evaluated a chunk of rows at a time and
// chunks run in parallel.
package host

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rigel-db/rigel/gpu"
)

// Device is the host reference device. It is safe for concurrent use.
type Device struct {
	workers int

	mu     sync.Mutex
	stats  gpu.Stats
	closed atomic.Bool
}

// New returns a host device that uses every CPU.
func New() *Device { return &Device{workers: runtime.GOMAXPROCS(0)} }

var _ gpu.Device = (*Device)(nil)

func (d *Device) Info() gpu.Info {
	return gpu.Info{Name: "host", Model: fmt.Sprintf("Go %s, %d workers", runtime.Version(), d.workers), Multiprocs: d.workers}
}

func (d *Device) Stats() gpu.Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stats
}

func (d *Device) ResetStats() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stats = gpu.Stats{}
}

func (d *Device) count(f func(s *gpu.Stats)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f(&d.stats)
}

// Close marks the device closed; later calls fail. Columns hold only Go
// memory, which the garbage collector frees.
func (d *Device) Close() error {
	d.closed.Store(true)
	return nil
}

func (d *Device) checkOpen(what string) error {
	if d.closed.Load() {
		return fmt.Errorf("%s: host device is closed", what)
	}
	return nil
}

// Upload converts an Arrow array into a host column. The column is typed
// nullable exactly when the array holds a null.
func (d *Device) Upload(ctx context.Context, arr arrow.Array) (gpu.Column, error) {
	if err := d.checkOpen("upload"); err != nil {
		return nil, err
	}
	if arr == nil {
		return nil, fmt.Errorf("upload: nil array")
	}
	n := arr.Len()
	t, err := gpu.TypeOf(arr.DataType(), arr.NullN() > 0)
	if err != nil {
		return nil, fmt.Errorf("upload: %w", err)
	}
	v := newVec(t.Kind, n, t.Nullable)
	var dict *array.String
	switch a := arr.(type) {
	case *array.Boolean:
		for i := 0; i < n; i++ {
			if a.IsValid(i) && a.Value(i) {
				v.i64[i] = 1
			}
		}
	case *array.Int8:
		for i, x := range a.Int8Values() {
			v.i64[i] = int64(x)
		}
	case *array.Int16:
		for i, x := range a.Int16Values() {
			v.i64[i] = int64(x)
		}
	case *array.Int32:
		for i, x := range a.Int32Values() {
			v.i64[i] = int64(x)
		}
	case *array.Int64:
		copy(v.i64, a.Int64Values())
	case *array.Float32:
		for i, x := range a.Float32Values() {
			v.f64[i] = float64(x)
		}
	case *array.Float64:
		copy(v.f64, a.Float64Values())
	case *array.Date32:
		for i, x := range a.Date32Values() {
			v.i64[i] = int64(x)
		}
	case *array.Decimal64:
		for i := 0; i < n; i++ {
			v.i64[i] = int64(a.Value(i))
		}
	case *array.Decimal128:
		for i := 0; i < n; i++ {
			x := a.Value(i)
			w := int128{lo: x.LowBits(), hi: x.HighBits()}
			if t.Kind == gpu.Decimal64 {
				if a.IsValid(i) && (!w.isInt64() || !fitsPrecision(w, t.Precision)) {
					return nil, fmt.Errorf("upload %s: value %s at row %d exceeds the precision: %w", arr.DataType(), toBig(w), i, gpu.ErrOverflow)
				}
				v.i64[i] = int64(w.lo)
			} else {
				v.i128[i] = w
			}
		}
	default:
		if t.Kind != gpu.Dict {
			return nil, fmt.Errorf("upload %s: %w", arr.DataType(), gpu.ErrUnsupported)
		}
		enc, err := gpu.EncodeDictionary(arr)
		if err != nil {
			return nil, fmt.Errorf("upload: %w", err)
		}
		for i, c := range enc.Codes {
			v.i64[i] = int64(c)
		}
		dict = enc.Values
		defer dict.Release() // newColumn retains it
	}
	if t.Nullable {
		for i := 0; i < n; i++ {
			v.valid[i] = arr.IsValid(i)
			if !v.valid[i] {
				zeroAt(v, i)
			}
		}
	}
	d.count(func(s *gpu.Stats) { s.BytesUploaded += deviceBytes(t, n) })
	return d.newColumn(t, n, v, dict), nil
}

func zeroAt(v *vec, i int) {
	switch {
	case v.i64 != nil:
		v.i64[i] = 0
	case v.f64 != nil:
		v.f64[i] = 0
	case v.i128 != nil:
		v.i128[i] = int128{}
	}
}

// Download converts a column to the Arrow type gpu.ArrowType gives.
func (d *Device) Download(ctx context.Context, col gpu.Column) (arrow.Array, error) {
	if err := d.checkOpen("download"); err != nil {
		return nil, err
	}
	c, err := d.own(col, "download")
	if err != nil {
		return nil, err
	}
	t, v, n := c.typ, c.data, c.n
	mem := memory.DefaultAllocator
	var out arrow.Array
	switch t.Kind {
	case gpu.Bool:
		b := array.NewBooleanBuilder(mem)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			b.UnsafeAppend(v.i64[i] != 0)
		}
		out = b.NewArray()
	case gpu.Int8, gpu.Int16, gpu.Int32, gpu.Int64, gpu.Date32:
		b := array.NewBuilder(mem, gpu.ArrowType(t))
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			x := v.i64[i]
			switch bb := b.(type) {
			case *array.Int8Builder:
				bb.UnsafeAppend(int8(x))
			case *array.Int16Builder:
				bb.UnsafeAppend(int16(x))
			case *array.Int32Builder:
				bb.UnsafeAppend(int32(x))
			case *array.Int64Builder:
				bb.UnsafeAppend(x)
			case *array.Date32Builder:
				bb.UnsafeAppend(arrow.Date32(x))
			}
		}
		out = b.NewArray()
	case gpu.Float32:
		b := array.NewFloat32Builder(mem)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			b.UnsafeAppend(float32(v.f64[i]))
		}
		out = b.NewArray()
	case gpu.Float64:
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		b.AppendValues(v.f64[:n], nil)
		out = b.NewArray()
	case gpu.Decimal64, gpu.Decimal128:
		b := array.NewDecimal128Builder(mem, gpu.ArrowType(t).(*arrow.Decimal128Type))
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			w := i128(0)
			if t.Kind == gpu.Decimal64 {
				w = i128(v.i64[i])
			} else {
				w = v.i128[i]
			}
			b.UnsafeAppend(decimal128.New(w.hi, w.lo))
		}
		out = b.NewArray()
	case gpu.Dict:
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if !v.isValid(i) {
				b.AppendNull()
				continue
			}
			code := v.i64[i]
			if c.dict == nil || code < 0 || code >= int64(c.dict.Len()) {
				return nil, fmt.Errorf("download dict column: code %d at row %d outside its dictionary", code, i)
			}
			b.Append(c.dict.Value(int(code)))
		}
		out = b.NewArray()
	case gpu.Str:
		out = downloadStr(v, n) // strcol_strings.go
	default:
		return nil, fmt.Errorf("download %s: %w", t, gpu.ErrUnsupported)
	}
	if v.valid != nil && t.Kind != gpu.Dict && t.Kind != gpu.Str {
		out = withValidity(out, v.valid[:n])
	}
	d.count(func(s *gpu.Stats) { s.BytesDownloaded += deviceBytes(t, n) })
	return out, nil
}

// withValidity returns arr with a validity bitmap built from valid (the
// builders above append values only, so nulls are applied afterwards).
func withValidity(arr arrow.Array, valid []bool) arrow.Array {
	defer arr.Release()
	data := arr.Data()
	bm := memory.NewResizableBuffer(memory.DefaultAllocator)
	bm.Resize((len(valid) + 7) / 8)
	bits := bm.Bytes()
	for i := range bits {
		bits[i] = 0
	}
	nulls := 0
	for i, ok := range valid {
		if ok {
			bits[i/8] |= 1 << (i % 8)
		} else {
			nulls++
		}
	}
	bufs := append([]*memory.Buffer{bm}, data.Buffers()[1:]...)
	nd := array.NewData(data.DataType(), data.Len(), bufs, nil, nulls, data.Offset())
	defer nd.Release()
	bm.Release()
	return array.MakeFromData(nd)
}
