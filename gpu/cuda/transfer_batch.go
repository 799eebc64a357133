package cuda

// #include "shim.h"
import "C"

import (
	"context"
	"fmt"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/gpu"
)

// Small columns (aggregate results, query results) move in one batch: their
// bytes share the pinned staging buffer, the copies are queued on the
// stream, and the stream is synchronized once. Column by column, each small
// copy paid its own synchronization: about 20 of them for TPC-H Q1.

// batchAlign keeps every column's bytes 16-byte aligned in the staging
// buffer.
const batchAlign = 16

func alignUp(n int) int { return (n + batchAlign - 1) &^ (batchAlign - 1) }

// batchBytes is the staging space that hs need, or -1 when it is more than
// one staging buffer holds.
func batchBytes(sizes []int) int {
	total := 0
	for _, n := range sizes {
		total += alignUp(n)
	}
	if total > stagingChunk {
		return -1
	}
	return total
}

// placeBatch moves host columns into the processing region. Callers hold
// d.mu; the staging buffers are idle (every transfer synchronizes before it
// returns).
func (d *Device) placeBatch(hs []*hostColumn) ([]*column, error) {
	var sizes []int
	for _, h := range hs {
		sizes = append(sizes, len(h.data), len(h.valid))
	}
	if batchBytes(sizes) < 0 {
		return d.placeEach(hs)
	}
	pin := unsafe.Slice((*byte)(d.pin[0]), stagingChunk)
	off := 0
	out := make([]*column, 0, len(hs))
	fail := func(err error) ([]*column, error) {
		d.cx.sync(d.stream, "batched upload") // let queued copies finish before freeing
		for _, c := range out {
			d.freeColumn(c)
		}
		return nil, err
	}
	queue := func(b []byte, what string) (uint64, error) {
		p, err := d.pool.get(int64(len(b)), what)
		if err != nil || len(b) == 0 {
			return p, err
		}
		copy(pin[off:], b)
		r := C.rg_copy_htod_async(d.cx.c, C.CUdeviceptr(p), unsafe.Pointer(&pin[off]), C.size_t(len(b)), d.stream)
		off += alignUp(len(b))
		if err := check(r, "cuMemcpyHtoDAsync of %s", what); err != nil {
			d.pool.put(p)
			return 0, err
		}
		return p, nil
	}
	for _, h := range hs {
		what := fmt.Sprintf("%s column of %d rows", h.t, h.n)
		c := &column{d: d, t: h.t, n: h.n, dict: h.dict, pooled: true}
		if c.dict != nil {
			c.dict.Retain() // the column's own reference, released by freeColumn
		}
		var err error
		if c.data, err = queue(h.data, what); err != nil {
			return fail(err)
		}
		if h.valid != nil {
			if c.valid, err = queue(h.valid, what+" validity"); err != nil {
				d.freeColumn(c)
				return fail(err)
			}
		}
		out = append(out, c)
	}
	if err := d.cx.sync(d.stream, "batched upload"); err != nil {
		return fail(err)
	}
	d.st.up.Add(int64(off))
	return out, nil
}

// placeEach places columns one by one (for batches larger than staging).
func (d *Device) placeEach(hs []*hostColumn) ([]*column, error) {
	var out []*column
	for _, h := range hs {
		c, err := d.place(h, true)
		if err != nil {
			for _, o := range out {
				d.freeColumn(o)
			}
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// fetchBatch copies columns to the host in device layout. Callers hold d.mu.
func (d *Device) fetchBatch(cs []*column) ([]*hostColumn, error) {
	var sizes []int
	for _, c := range cs {
		sizes = append(sizes, c.n*c.t.Kind.Width())
		if c.valid != 0 {
			sizes = append(sizes, c.n)
		}
	}
	if batchBytes(sizes) < 0 {
		var out []*hostColumn
		for _, c := range cs {
			h, err := d.fetch(c)
			if err != nil {
				return nil, err
			}
			out = append(out, h)
		}
		return out, nil
	}
	pin := unsafe.Slice((*byte)(d.pin[0]), stagingChunk)
	type span struct{ off, n int }
	spans := make([][2]span, len(cs))
	off := 0
	queue := func(src uint64, n int, what string) (span, error) {
		s := span{off, n}
		if n == 0 {
			return s, nil
		}
		r := C.rg_copy_dtoh_async(d.cx.c, unsafe.Pointer(&pin[off]), C.CUdeviceptr(src), C.size_t(n), d.stream)
		off += alignUp(n)
		return s, check(r, "cuMemcpyDtoHAsync of %s", what)
	}
	for i, c := range cs {
		what := fmt.Sprintf("%s column of %d rows", c.t, c.n)
		var err error
		if spans[i][0], err = queue(c.data, c.n*c.t.Kind.Width(), what); err != nil {
			d.cx.sync(d.stream, "batched download")
			return nil, err
		}
		if c.valid != 0 {
			if spans[i][1], err = queue(c.valid, c.n, what+" validity"); err != nil {
				d.cx.sync(d.stream, "batched download")
				return nil, err
			}
		}
	}
	wait := time.Now()
	err := d.cx.sync(d.stream, "batched download")
	d.waited(wait)
	if err != nil {
		return nil, err
	}
	d.st.down.Add(int64(off))
	out := make([]*hostColumn, len(cs))
	for i, c := range cs {
		h := &hostColumn{t: c.t, n: c.n, dict: c.dict}
		h.data = append([]byte(nil), pin[spans[i][0].off:spans[i][0].off+spans[i][0].n]...)
		if c.valid != 0 {
			h.valid = append([]byte(nil), pin[spans[i][1].off:spans[i][1].off+spans[i][1].n]...)
		}
		out[i] = h
	}
	return out, nil
}

// DownloadAll copies several columns back as Arrow arrays with one
// synchronization when they are small (gpu.BatchDownloader), and one more
// for the totals of Str columns that need compacting (stageStrDownloads).
// The arrays are built after d.mu is let go.
func (d *Device) DownloadAll(ctx context.Context, cols []gpu.Column) ([]arrow.Array, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	d.mu.Lock()
	restore := d.watch(ctx)
	build, err := d.fetchAll(cols)
	restore()
	d.mu.Unlock()
	if err == nil {
		var out []arrow.Array
		if out, err = build(); err == nil {
			return out, nil
		}
	}
	return nil, fmt.Errorf("download: %w", err)
}

// fetchAll copies the columns to the host and returns what turns the
// copies into Arrow arrays. d.mu held.
func (d *Device) fetchAll(cols []gpu.Column) (build func() ([]arrow.Array, error), err error) {
	if d.closed {
		return nil, fmt.Errorf("CUDA device is closed")
	}
	cs, err := d.asInputs(cols)
	if err != nil {
		return nil, err
	}
	tmp := &temps{d: d}
	defer tmp.release()
	var strs []*column
	for _, c := range cs {
		if c.t.Kind == gpu.Str {
			strs = append(strs, c)
		}
	}
	staged, err := d.stageStrDownloads(strs, tmp)
	if err != nil {
		return nil, err
	}
	var fetch []*column
	for _, c := range cs {
		if c.t.Kind != gpu.Str {
			fetch = append(fetch, c)
		}
	}
	for i := range staged {
		fetch = append(fetch, staged[i].parts()...)
	}
	hs, err := d.fetchBatch(fetch)
	if err != nil {
		return nil, err
	}
	return func() ([]arrow.Array, error) {
		out := make([]arrow.Array, 0, len(cs))
		fixed, rest := hs, hs[len(cs)-len(strs):]
		next := 0
		for _, c := range cs {
			var a arrow.Array
			var err error
			if c.t.Kind == gpu.Str {
				s := &staged[next]
				n := len(s.parts())
				a, err = s.array(rest[:n])
				rest, next = rest[n:], next+1
			} else {
				a, err = decode(fixed[0])
				fixed = fixed[1:]
			}
			if err != nil {
				for _, o := range out {
					o.Release()
				}
				return nil, err
			}
			out = append(out, a)
		}
		return out, nil
	}, nil
}
