package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/forpack"
)

// Spilled columns (gpu.Spiller). A segment of a table that streams
// through the device (physical's Chunked) is uploaded from Arrow once,
// packed on the device as every table column (packed.go), and copied back
// into pinned host memory as the device holds it: its packed words, or
// its plain values, and its validity bytes. Every later run restores it
// with one DMA per buffer from that pinned memory, queued on the copy
// stream without waiting (copystream.go): a packed segment crosses the
// link at its packed size, beside the kernels, and the host neither
// encodes nor packs it again.

// hostCopy is a column's device buffers in pinned host memory.
type hostCopy struct {
	d     *Device
	t     gpu.Type
	n     int
	dict  *array.String
	data  unsafe.Pointer // packed words (frame set) or plain values
	dataN int64
	valid unsafe.Pointer // one byte a row; nil when the column has none
	frame *forpack.Frame
	freed atomic.Bool
	// restored: a restore read it on the copy stream, which its pinned
	// buffers wait for before they serve another spill (d.mu).
	restored bool
}

func (h *hostCopy) Bytes() int64 {
	n := h.dataN
	if h.valid != nil {
		n += int64(h.n)
	}
	return n
}

// Release gives the pinned memory back (pinned.go).
func (h *hostCopy) Release() {
	if h.freed.Swap(true) {
		return
	}
	d := h.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if h.dict != nil {
		h.dict.Release()
	}
	if d.closed { // Close freed the pinned memory
		return
	}
	if h.restored {
		// The next spill into these buffers is queued on the device's
		// stream: after the copy stream has read them. An error here is
		// the context's, which every later call reports.
		_ = d.order(d.stream, d.copyStream)
	}
	if h.data != nil {
		d.pinnedPut(h.data, h.dataN)
	}
	if h.valid != nil {
		d.pinnedPut(h.valid, int64(h.n))
	}
	h.data, h.valid = nil, nil
	delete(d.spilled, h)
}

// freePinned frees h's pinned memory (Close, a failed spill). d.mu held.
func (h *hostCopy) freePinned() {
	for _, p := range []unsafe.Pointer{h.data, h.valid} {
		if p != nil {
			C.rg_host_free(h.d.cx.c, p)
		}
	}
	h.data, h.valid = nil, nil
}

var _ gpu.Spiller = (*Device)(nil)

// Spill copies col into pinned host memory as the device holds it.
func (d *Device) Spill(ctx context.Context, col gpu.Column) (gpu.HostColumn, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, fmt.Errorf("spill: CUDA device is closed")
	}
	cs, err := d.checkColumns([]gpu.Column{col}, acceptPacked)
	if err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	c := cs[0]
	h := &hostCopy{d: d, t: c.t, n: c.n}
	src, n := c.data, int64(c.n)*int64(c.t.Kind.Width())
	if c.pack != nil {
		f := c.pack.frame
		h.frame = &f
		src, n = c.pack.words, c.pack.bytes
	}
	what := fmt.Sprintf("host copy of a %s column of %d rows", c.t, c.n)
	fail := func(err error) (gpu.HostColumn, error) {
		h.freePinned()
		return nil, fmt.Errorf("spill: %w", err)
	}
	if h.data, err = d.pinnedCopyOf(src, n, what); err != nil {
		return fail(err)
	}
	h.dataN = n
	if c.valid != 0 {
		if h.valid, err = d.pinnedCopyOf(c.valid, int64(c.n), what+" (validity)"); err != nil {
			return fail(err)
		}
	}
	if c.dict != nil {
		c.dict.Retain()
		h.dict = c.dict
	}
	if d.spilled == nil {
		d.spilled = map[*hostCopy]struct{}{}
	}
	d.spilled[h] = struct{}{}
	return h, nil
}

// pinnedCopyOf takes a pinned host buffer for n bytes (pinned.go) and
// queues a copy of n bytes at src into it. d.mu held.
func (d *Device) pinnedCopyOf(src uint64, n int64, what string) (unsafe.Pointer, error) {
	p, err := d.pinnedGet(n, what)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, gpu.ErrHostMemory)
	}
	if n > 0 {
		if err := check(C.rg_copy_dtoh_pinned(d.cx.c, p, C.CUdeviceptr(src), C.size_t(n), d.stream), "copying the %s (%s)", what, humanBytes(n)); err != nil {
			d.pinnedPut(p, n)
			return nil, err
		}
		d.st.down.Add(n)
	}
	return p, nil
}

// Restore puts a host copy back on the device: buffers allocated, their
// copies queued on the copy stream, which the column's first use waits
// for (copystream.go).
func (d *Device) Restore(ctx context.Context, hc gpu.HostColumn) (gpu.Column, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	h, ok := hc.(*hostCopy)
	if !ok || h.d != d {
		return nil, fmt.Errorf("restore: the host column was not spilled by this CUDA device")
	}
	if h.freed.Load() {
		return nil, fmt.Errorf("restore: the host column was released")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, fmt.Errorf("restore: CUDA device is closed")
	}
	// From the pool (pooled): a run restores a segment of every streamed
	// column and frees it after the segment, and cuMemAlloc and cuMemFree
	// would each wait for the device, between the copies and the kernels
	// that should overlap them.
	c := &column{d: d, t: h.t, n: h.n, pooled: true}
	what := fmt.Sprintf("restored %s column of %d rows", h.t, h.n)
	var cs C.CUstream
	fail := func(err error) (gpu.Column, error) {
		if cs != nil && c.ready == nil {
			// The buffers go back to the pool after what was queued.
			c.ready, _ = d.copied()
		}
		d.freeColumn(c)
		return nil, fmt.Errorf("restore: %w", err)
	}
	cs, err := d.copyStreamFor()
	if err != nil {
		return fail(err)
	}
	h.restored = true
	dst, err := d.pool.get(max(h.dataN, 1), what)
	if err != nil {
		return fail(err)
	}
	if h.frame != nil {
		c.pack = &packedColumn{words: dst, frame: *h.frame, bytes: h.dataN}
	} else {
		c.data = dst
	}
	if err := d.copyPinned(cs, dst, h.data, h.dataN, what); err != nil {
		return fail(err)
	}
	if h.valid != nil {
		if c.valid, err = d.pool.get(int64(h.n), what+" validity"); err != nil {
			return fail(err)
		}
		if err := d.copyPinned(cs, c.valid, h.valid, int64(h.n), what+" validity"); err != nil {
			return fail(err)
		}
	}
	if c.ready, err = d.copied(); err != nil {
		return fail(err)
	}
	if h.dict != nil {
		h.dict.Retain()
		c.dict = h.dict
	}
	return c, nil
}

// copyPinned queues a copy of n bytes of pinned host memory to dst. d.mu
// held.
func (d *Device) copyPinned(s C.CUstream, dst uint64, src unsafe.Pointer, n int64, what string) error {
	if n == 0 {
		return nil
	}
	if err := check(C.rg_copy_htod_pinned(d.cx.c, C.CUdeviceptr(dst), src, C.size_t(n), s), "copying the %s (%s) to the device", what, humanBytes(n)); err != nil {
		return err
	}
	d.st.up.Add(n)
	return nil
}
