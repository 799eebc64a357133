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
	// limit is the memory budget (budget.go) and live what columns and
	// running operations hold of it now.
	limit int64
	live  atomic.Int64
	peak  atomic.Int64 // the most live reached since ResetStats

	mu     sync.Mutex
	stats  gpu.Stats
	closed atomic.Bool
}

// New returns a host device that uses every CPU, with the default memory
// budget (DefaultMemoryLimit; NewWithOptions sets another).
func New() *Device {
	d := newDevice()
	d.limit = DefaultMemoryLimit()
	return d
}

func newDevice() *Device { return &Device{workers: runtime.GOMAXPROCS(0)} }

var (
	_ gpu.Device       = (*Device)(nil)
	_ gpu.MemoryBudget = (*Device)(nil)
)

func (d *Device) Info() gpu.Info {
	return gpu.Info{Name: "host", Model: fmt.Sprintf("Go %s, %d workers", runtime.Version(), d.workers), Multiprocs: d.workers,
		TotalMemory: d.limit, FreeMemory: max(0, d.limit-d.live.Load())}
}

func (d *Device) Stats() gpu.Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.stats
	s.BytesLive = d.live.Load()
	s.PeakBytesLive = max(d.peak.Load(), s.BytesLive)
	return s
}

func (d *Device) ResetStats() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stats = gpu.Stats{}
	d.peak.Store(d.live.Load())
}

// noteLive records the live bytes v when they pass the peak.
func (d *Device) noteLive(v int64) {
	for {
		p := d.peak.Load()
		if v <= p || d.peak.CompareAndSwap(p, v) {
			return
		}
	}
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
	// The values, and for strings a dictionary no larger than the array.
	need := times(int64(n), rowBytes(t))
	if t.Kind == gpu.Dict {
		need += arrayBytes(arr)
	}
	g, err := d.reserve(fmt.Sprintf("upload of %d %s rows", n, arr.DataType()), need)
	if err != nil {
		return nil, err
	}
	defer g.done()
	v := newVec(t.Kind, n, t.Nullable)
	var dict *array.String
	if t.Kind == gpu.Dict {
		if err := gpu.CtxErr(ctx); err != nil {
			return nil, err
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
	err = inRanges(ctx, n, func(lo, hi int) error {
		if t.Kind != gpu.Dict {
			if err := uploadValues(arr, t, v, lo, hi); err != nil {
				return err
			}
		}
		if t.Nullable {
			for i := lo; i < hi; i++ {
				v.valid[i] = arr.IsValid(i)
				if !v.valid[i] {
					zeroAt(v, i)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.count(func(s *gpu.Stats) { s.BytesUploaded += deviceBytes(t, n) })
	c := d.newColumn(t, n, v, dict)
	if dict != nil {
		// The upload's column holds its dictionary's bytes too; the
		// columns made from it share that dictionary.
		b := arrayBytes(dict)
		c.bytes += b
		d.noteLive(d.live.Add(b))
	}
	return c, nil
}

// uploadValues converts rows [lo, hi) of arr (not a string array) into v.
func uploadValues(arr arrow.Array, t gpu.Type, v *vec, lo, hi int) error {
	switch a := arr.(type) {
	case *array.Boolean:
		for i := lo; i < hi; i++ {
			if a.IsValid(i) && a.Value(i) {
				v.i64[i] = 1
			}
		}
	case *array.Int8:
		for i, x := range a.Int8Values()[lo:hi] {
			v.i64[lo+i] = int64(x)
		}
	case *array.Int16:
		for i, x := range a.Int16Values()[lo:hi] {
			v.i64[lo+i] = int64(x)
		}
	case *array.Int32:
		for i, x := range a.Int32Values()[lo:hi] {
			v.i64[lo+i] = int64(x)
		}
	case *array.Int64:
		copy(v.i64[lo:hi], a.Int64Values()[lo:hi])
	case *array.Float32:
		for i, x := range a.Float32Values()[lo:hi] {
			v.f64[lo+i] = float64(x)
		}
	case *array.Float64:
		copy(v.f64[lo:hi], a.Float64Values()[lo:hi])
	case *array.Date32:
		for i, x := range a.Date32Values()[lo:hi] {
			v.i64[lo+i] = int64(x)
		}
	case *array.Decimal64:
		for i := lo; i < hi; i++ {
			v.i64[i] = int64(a.Value(i))
		}
	case *array.Decimal128:
		for i := lo; i < hi; i++ {
			x := a.Value(i)
			w := int128{lo: x.LowBits(), hi: x.HighBits()}
			if t.Kind == gpu.Decimal64 {
				if a.IsValid(i) && (!w.isInt64() || !fitsPrecision(w, t.Precision)) {
					return fmt.Errorf("upload %s: value %s at row %d exceeds the precision: %w", arr.DataType(), toBig(w), i, gpu.ErrOverflow)
				}
				v.i64[i] = int64(w.lo)
			} else {
				v.i128[i] = w
			}
		}
	default:
		return fmt.Errorf("upload %s: %w", arr.DataType(), gpu.ErrUnsupported)
	}
	return nil
}

// arrayBytes is the size of an Arrow array's buffers.
func arrayBytes(a arrow.Array) int64 {
	var n int64
	for _, b := range a.Data().Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	return n
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
	out, err := d.DownloadAll(ctx, []gpu.Column{col})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

var _ gpu.BatchDownloader = (*Device)(nil)

// DownloadAll downloads the columns (gpu.BatchDownloader) after reserving
// the Arrow arrays they make, all together: a result is about as large
// again in Arrow form while both exist (a cross product's millions of rows
// with their strings spelled out), and the budget must see it before the
// arrays are built. Once returned, the arrays are the caller's.
func (d *Device) DownloadAll(ctx context.Context, cols []gpu.Column) ([]arrow.Array, error) {
	if err := d.checkOpen("download"); err != nil {
		return nil, err
	}
	hc := make([]*column, len(cols))
	var need int64
	for i, col := range cols {
		c, err := d.own(col, fmt.Sprintf("download: column %d", i))
		if err != nil {
			return nil, err
		}
		hc[i] = c
		need += arrowBytes(c)
	}
	rows := 0
	if len(hc) > 0 {
		rows = hc[0].n
	}
	g, err := d.reserve(fmt.Sprintf("download of %d columns of %d rows", len(hc), rows), need)
	if err != nil {
		return nil, err
	}
	defer g.done()
	out := make([]arrow.Array, 0, len(hc))
	for _, c := range hc {
		a, err := d.download(ctx, c)
		if err != nil {
			for _, a := range out {
				a.Release()
			}
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// arrowBytes estimates the Arrow array of a column: its values at Arrow's
// width, its validity bitmap, and for strings the offsets and the
// characters at the average length of its dictionary's (or upload's)
// strings.
func arrowBytes(c *column) int64 {
	n, k := int64(c.n), c.typ.Kind
	var b int64
	switch k {
	case gpu.Bool:
		b = (n + 7) / 8
	case gpu.Decimal64, gpu.Decimal128:
		b = n * 16
	case gpu.Dict:
		b = n * 4
		if c.dict != nil && c.dict.Len() > 0 {
			b += times(n, int64(len(c.dict.ValueBytes()))/int64(c.dict.Len())+1)
		}
	case gpu.Str:
		b = n * 4
		if s := c.data.str; s != nil && len(s.offs) > 1 {
			b += times(n, int64(len(s.chars))/int64(len(s.offs)-1)+1)
		}
	default:
		b = n * int64(k.Width())
	}
	if c.data.valid != nil || k == gpu.Dict || k == gpu.Str {
		b += (n + 7) / 8
	}
	return b
}

// download converts one of the device's columns.
func (d *Device) download(ctx context.Context, c *column) (arrow.Array, error) {
	var err error
	t, v, n := c.typ, c.data, c.n
	mem := memory.DefaultAllocator
	var out arrow.Array
	// Each kind appends its rows in ranges (inRanges), checking ctx.
	switch t.Kind {
	case gpu.Bool:
		b := array.NewBooleanBuilder(mem)
		defer b.Release()
		b.Reserve(n)
		err = inRanges(ctx, n, func(lo, hi int) error {
			for _, x := range v.i64[lo:hi] {
				b.UnsafeAppend(x != 0)
			}
			return nil
		})
		out = b.NewArray()
	case gpu.Int8, gpu.Int16, gpu.Int32, gpu.Int64, gpu.Date32:
		b := array.NewBuilder(mem, gpu.ArrowType(t))
		defer b.Release()
		b.Reserve(n)
		err = inRanges(ctx, n, func(lo, hi int) error {
			for _, x := range v.i64[lo:hi] {
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
			return nil
		})
		out = b.NewArray()
	case gpu.Float32:
		b := array.NewFloat32Builder(mem)
		defer b.Release()
		b.Reserve(n)
		err = inRanges(ctx, n, func(lo, hi int) error {
			for _, x := range v.f64[lo:hi] {
				b.UnsafeAppend(float32(x))
			}
			return nil
		})
		out = b.NewArray()
	case gpu.Float64:
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		b.Reserve(n)
		err = inRanges(ctx, n, func(lo, hi int) error {
			b.AppendValues(v.f64[lo:hi], nil)
			return nil
		})
		out = b.NewArray()
	case gpu.Decimal64, gpu.Decimal128:
		b := array.NewDecimal128Builder(mem, gpu.ArrowType(t).(*arrow.Decimal128Type))
		defer b.Release()
		b.Reserve(n)
		err = inRanges(ctx, n, func(lo, hi int) error {
			for i := lo; i < hi; i++ {
				w := i128(0)
				if t.Kind == gpu.Decimal64 {
					w = i128(v.i64[i])
				} else {
					w = v.i128[i]
				}
				b.UnsafeAppend(decimal128.New(w.hi, w.lo))
			}
			return nil
		})
		out = b.NewArray()
	case gpu.Dict:
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.Reserve(n)
		err = inRanges(ctx, n, func(lo, hi int) error {
			for i := lo; i < hi; i++ {
				if !v.isValid(i) {
					b.AppendNull()
					continue
				}
				code := v.i64[i]
				if c.dict == nil || code < 0 || code >= int64(c.dict.Len()) {
					return fmt.Errorf("download dict column: code %d at row %d outside its dictionary", code, i)
				}
				b.Append(c.dict.Value(int(code)))
			}
			return nil
		})
		out = b.NewArray()
	case gpu.Str:
		out, err = downloadStr(ctx, v, n) // strcol_strings.go
	default:
		return nil, fmt.Errorf("download %s: %w", t, gpu.ErrUnsupported)
	}
	if err != nil {
		if out != nil {
			out.Release()
		}
		return nil, err
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
