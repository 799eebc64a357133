package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/internal/offheap"
)

// Small uploads (a run's string tables, a tiny table's columns) go through
// a ring of pinned slots and do not wait: the bytes are copied into a slot
// and the copy to the device is queued on the stream, so the host goes on
// launching while the device is still busy. rg_upload waits for the stream
// at its end, which drained the device before every run that uploaded a
// string table: one round trip per pipeline over a small dictionary.
const (
	ringSlots     = 8
	ringSlotBytes = 64 << 10
)

// copyIn copies b to device memory at dst: through the ring when it is
// small (in stream order, without waiting), else through the pinned staging
// buffers (waiting for the copy). Callers hold d.mu.
func (d *Device) copyIn(dst uint64, b []byte, what string) error {
	if len(b) == 0 {
		return nil
	}
	var stage *C.char
	if len(b) <= ringSlotBytes {
		i := d.ringNext
		d.ringNext = (i + 1) % ringSlots
		slot := unsafe.Add(d.ring, i*ringSlotBytes)
		r := C.rg_upload_small(d.cx.c, d.stream, C.CUdeviceptr(dst), unsafe.Pointer(&b[0]), C.size_t(len(b)), slot, d.ringEv[i], &stage)
		if err := check(r, "%s while uploading %s (%s)", C.GoString(stage), what, humanBytes(int64(len(b)))); err != nil {
			return err
		}
		d.st.up.Add(int64(len(b)))
		return nil
	}
	defer d.waited(time.Now())
	r := C.rg_upload(d.cx.c, d.stream, C.CUdeviceptr(dst), unsafe.Pointer(&b[0]), C.size_t(len(b)),
		d.pin[0], d.pin[1], d.pinEv[0], d.pinEv[1], stagingChunk, &stage)
	if err := check(r, "%s while uploading %s (%s)", C.GoString(stage), what, humanBytes(int64(len(b)))); err != nil {
		return err
	}
	d.st.up.Add(int64(len(b)))
	return nil
}

// copyOut copies len(b) bytes from device memory at src into b, after the
// kernels before it: unless the operation was cancelled (cancel.go).
func (d *Device) copyOut(b []byte, src uint64, what string) error {
	if len(b) == 0 {
		return nil
	}
	if err := d.cancelled(); err != nil {
		return err
	}
	var stage *C.char
	defer d.waited(time.Now())
	r := C.rg_download(d.cx.c, d.stream, unsafe.Pointer(&b[0]), C.CUdeviceptr(src), C.size_t(len(b)),
		d.pin[0], stagingChunk, &stage)
	if err := check(r, "%s while downloading %s (%s)", C.GoString(stage), what, humanBytes(int64(len(b)))); err != nil {
		return err
	}
	d.st.down.Add(int64(len(b)))
	return nil
}

// waited counts one wait of the host for the device that began at start
// (gpu.Stats.HostWaits).
func (d *Device) waited(start time.Time) {
	d.st.waits.Add(1)
	d.st.waitNanos.Add(time.Since(start).Nanoseconds())
}

// hostColumn is a column's bytes on the host, in device layout.
type hostColumn struct {
	t     gpu.Type
	n     int
	data  []byte
	valid []byte // one byte per row, nil when not nullable
	dict  *array.String
	// owned are the maps encode made data and valid in (internal/offheap:
	// a table column's encoding, garbage once uploaded, stays out of the
	// Go heap); free unmaps them.
	owned []*offheap.Region
}

// mapped is n bytes (zeros) of a new map the column owns.
func (h *hostColumn) mapped(n int) ([]byte, error) {
	r := &offheap.Region{}
	if err := r.Extend(n); err != nil {
		return nil, err
	}
	h.owned = append(h.owned, r)
	return r.B, nil
}

// free unmaps what encode mapped; the column's bytes are gone after it.
func (h *hostColumn) free() {
	for _, r := range h.owned {
		r.Free()
	}
	h.owned, h.data, h.valid = nil, nil, nil
}

// encode turns an Arrow array into device layout on the host.
func encode(arr arrow.Array) (_ *hostColumn, err error) {
	n := arr.Len()
	t, err := gpu.TypeOf(arr.DataType(), arr.NullN() > 0)
	if err != nil {
		return nil, err
	}
	h := &hostColumn{t: t, n: n}
	defer func() {
		if err != nil {
			h.free()
		}
	}()
	if t.Nullable {
		if h.valid, err = h.mapped(n); err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ { // a new map is zeros
			if arr.IsValid(i) {
				h.valid[i] = 1
			}
		}
	}
	switch a := arr.(type) {
	case *array.Boolean:
		if h.data, err = h.mapped(n); err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			if a.Value(i) {
				h.data[i] = 1
			}
		}
	case *array.Decimal128:
		// Typed views of the buffers, not a call a value: the loop is a
		// column's whole host-side encoding (60 M rows for TPC-H SF10's
		// lineitem, four such columns in Q1). The host is little-endian,
		// as the device and Arrow.
		w := t.Kind.Width()
		if n == 0 {
			break
		}
		if h.data, err = h.mapped(n * w); err != nil {
			return nil, err
		}
		vals := a.Values()
		if w == 8 {
			// Precision <= 18: the value fits the low word as int64.
			out := unsafe.Slice((*uint64)(unsafe.Pointer(&h.data[0])), n)
			for i, v := range vals {
				out[i] = v.LowBits()
			}
		} else {
			out := unsafe.Slice((*uint64)(unsafe.Pointer(&h.data[0])), 2*n)
			for i, v := range vals {
				out[2*i], out[2*i+1] = v.LowBits(), uint64(v.HighBits())
			}
		}
	default:
		if t.Kind == gpu.Dict {
			if h.data, err = h.mapped(4 * n); err != nil {
				return nil, err
			}
			// The codes straight into the map: little-endian, as the device.
			dict, err := gpu.EncodeDictionaryInto(arr, arrow.Int32Traits.CastFromBytes(h.data))
			if err != nil {
				return nil, err
			}
			h.dict = dict.Values
			break
		}
		// Fixed-width primitives: the values buffer is already the device
		// layout (little-endian), from the array's offset.
		w := t.Kind.Width()
		bufs := arr.Data().Buffers()
		if len(bufs) < 2 || bufs[1] == nil {
			if n == 0 {
				break
			}
			return nil, fmt.Errorf("upload %s: array has no values buffer", arr.DataType())
		}
		off := arr.Data().Offset()
		h.data = bufs[1].Bytes()[off*w : (off+n)*w]
	}
	return h, nil
}

// Upload copies an Arrow array into device memory (see gpu.Device).
func (d *Device) Upload(ctx context.Context, arr arrow.Array) (gpu.Column, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	h, err := encode(arr)
	if err != nil {
		return nil, err
	}
	defer h.free()
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.watch(ctx)()
	if d.closed {
		return nil, fmt.Errorf("upload: CUDA device is closed")
	}
	c, err := d.place(h, false)
	if err != nil {
		return nil, err
	}
	if err := d.packPlaced(c); err != nil {
		d.freeColumn(c)
		return nil, fmt.Errorf("upload: packing a %s column of %d rows: %w", c.t, c.n, err)
	}
	return c, nil
}

// place moves a host column to the device. pooled puts it in the processing
// region (pipeline results), otherwise it is a table column of its own.
func (d *Device) place(h *hostColumn, pooled bool) (*column, error) {
	c := &column{d: d, t: h.t, n: h.n, dict: h.dict, pooled: pooled}
	if c.dict != nil {
		c.dict.Retain() // the column's own reference, released by freeColumn
	}
	what := fmt.Sprintf("%s column of %d rows", h.t, h.n)
	alloc, _ := d.buffersOf(c)
	var err error
	if c.data, err = alloc(int64(h.n*h.t.Kind.Width()), what); err == nil {
		err = d.copyIn(c.data, h.data, what)
	}
	if err == nil && h.valid != nil {
		if c.valid, err = alloc(int64(h.n), what); err == nil {
			err = d.copyIn(c.valid, h.valid, what+" validity")
		}
	}
	if err != nil {
		d.freeColumn(c)
		return nil, err
	}
	return c, nil
}

// buffersOf is where c's buffers come from and go back to: the pool for
// a pooled column (intermediates, restored segments), else allocations of
// their own. d.mu held.
func (d *Device) buffersOf(c *column) (alloc func(n int64, what string) (uint64, error), free func(p uint64)) {
	if c.pooled {
		return d.pool.get, d.pool.put
	}
	return d.allocDirect, d.freeDirect
}

// freeColumn frees a column's buffers and its dictionary reference, with
// d.mu held. A column holds one dictionary reference from its creation.
func (d *Device) freeColumn(c *column) {
	c.freed.Store(true)
	// Its buffers go back to the pool for the device's stream's work:
	// after the copies that fill them. An error here is the context's,
	// which every later call reports.
	_ = d.awaitCopy(c)
	_, free := d.buffersOf(c)
	for _, p := range []uint64{c.data, c.valid} {
		if p != 0 {
			free(p)
		}
	}
	if c.dict != nil {
		c.dict.Release()
	}
	if c.str != nil {
		d.dropChars(c.str)
		c.str = nil
	}
	d.freePacked(c)
}

// freeOnError frees the columns *out holds and clears it when *err is
// set: deferred by the functions that build output columns, so that one
// failing part way leaks none of them.
func (d *Device) freeOnError(out *[]*column, err *error) {
	if *err == nil {
		return
	}
	for _, c := range *out {
		d.freeColumn(c)
	}
	*out = nil
}

// fetch copies a column to the host in device layout.
func (d *Device) fetch(c *column) (*hostColumn, error) {
	h := &hostColumn{t: c.t, n: c.n, dict: c.dict, data: make([]byte, c.n*c.t.Kind.Width())}
	what := fmt.Sprintf("%s column of %d rows", c.t, c.n)
	if err := d.copyOut(h.data, c.data, what); err != nil {
		return nil, err
	}
	if c.valid != 0 {
		h.valid = make([]byte, c.n)
		if err := d.copyOut(h.valid, c.valid, what+" validity"); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// Download copies a column back into an Arrow array of gpu.ArrowType.
func (d *Device) Download(ctx context.Context, col gpu.Column) (arrow.Array, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	out, err := d.DownloadAll(ctx, []gpu.Column{col})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// decode builds the Arrow array of a host column.
func decode(h *hostColumn) (arrow.Array, error) {
	n := h.n
	null := func(i int) bool { return h.valid != nil && h.valid[i] == 0 }
	mem := memory.DefaultAllocator
	switch h.t.Kind {
	case gpu.Bool:
		b := array.NewBooleanBuilder(mem)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if null(i) {
				b.AppendNull()
			} else {
				b.UnsafeAppend(h.data[i] != 0)
			}
		}
		return b.NewArray(), nil
	case gpu.Dict:
		return decodeDict(h)
	case gpu.Decimal64, gpu.Decimal128:
		b := array.NewDecimal128Builder(mem, gpu.ArrowType(h.t).(*arrow.Decimal128Type))
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if null(i) {
				b.AppendNull()
			} else if h.t.Kind == gpu.Decimal64 {
				b.UnsafeAppend(decimal128.FromI64(int64(binary.LittleEndian.Uint64(h.data[i*8:]))))
			} else {
				b.UnsafeAppend(decimal128.New(int64(binary.LittleEndian.Uint64(h.data[i*16+8:])),
					binary.LittleEndian.Uint64(h.data[i*16:])))
			}
		}
		return b.NewArray(), nil
	}
	// Fixed-width primitives share Arrow's layout: wrap the bytes.
	bitmap, nulls := validityBitmap(h.valid)
	data := array.NewData(gpu.ArrowType(h.t), n, []*memory.Buffer{bitmap, memory.NewBufferBytes(h.data)}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// validityBitmap turns the device's validity bytes (one a row, 0 = null)
// into an Arrow validity bitmap and its null count; nil and 0 when the
// column has no validity.
func validityBitmap(valid []byte) (*memory.Buffer, int) {
	if valid == nil {
		return nil, 0
	}
	bm := make([]byte, bitutil.BytesForBits(int64(len(valid))))
	nulls := 0
	for i, v := range valid {
		if v != 0 {
			bitutil.SetBit(bm, i)
		} else {
			nulls++
		}
	}
	return memory.NewBufferBytes(bm), nulls
}

// allocDirect allocates outside the pool (uploaded table columns, which the
// column cache keeps for long) and counts the bytes for Stats.BytesLive;
// with d.mu held.
func (d *Device) allocDirect(n int64, what string) (uint64, error) {
	p, err := d.cx.alloc(n, what)
	if err == nil {
		if d.direct == nil {
			d.direct = map[uint64]int64{}
		}
		d.direct[p] = n
		d.directBytes += n
		d.pool.notePeak()
	}
	return p, err
}

// freeDirect frees a block of allocDirect; with d.mu held.
func (d *Device) freeDirect(p uint64) {
	d.directBytes -= d.direct[p]
	delete(d.direct, p)
	d.cx.free(p)
}

// parallelCopy is an upload's staging copy (rg_parallel_copy) on Go
// slices, so that tests check it without a device: it splits large copies
// over threads, and each split must cover every byte.
func parallelCopy(dst, src []byte) {
	if n := min(len(dst), len(src)); n > 0 {
		C.rg_parallel_copy(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), C.size_t(n))
	}
}
