package host

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rigel-db/rigel/gpu"
)

// Spilled columns (gpu.Spiller), as the CUDA device keeps a streamed
// table's segments between runs (gpu/cuda/spill.go): a copy of the
// column's values outside the device's budget, and a restore that copies
// them back under it. The host device holds its columns in host memory
// already; it spills so that the executor's chunked scans take the same
// path with it as with a GPU, and make test checks that path.

type hostCopy struct {
	d     *Device
	typ   gpu.Type
	n     int
	data  *vec
	dict  *array.String
	freed atomic.Bool
}

func (h *hostCopy) Bytes() int64 { return vecBytes(h.data) }

func (h *hostCopy) Release() {
	if !h.freed.Swap(true) && h.dict != nil {
		h.dict.Release()
	}
}

var _ gpu.Spiller = (*Device)(nil)

// Spill copies col out of the device's budget. Strings in Arrow layout are
// refused, as the CUDA device refuses them.
func (d *Device) Spill(ctx context.Context, col gpu.Column) (gpu.HostColumn, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	c, err := d.own(col, "spill")
	if err != nil {
		return nil, err
	}
	if c.typ.Kind == gpu.Str {
		return nil, fmt.Errorf("spill: a str column: %w", gpu.ErrUnsupported)
	}
	h := &hostCopy{d: d, typ: c.typ, n: c.n, data: cloneVec(c.data)}
	if c.dict != nil {
		c.dict.Retain()
		h.dict = c.dict
	}
	return h, nil
}

// Restore copies a spilled column back under the budget.
func (d *Device) Restore(ctx context.Context, hc gpu.HostColumn) (gpu.Column, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	h, ok := hc.(*hostCopy)
	if !ok || h.d != d {
		return nil, fmt.Errorf("restore: the host column was not spilled by this host device")
	}
	if h.freed.Load() {
		return nil, fmt.Errorf("restore: the host column was released")
	}
	g, err := d.reserve(fmt.Sprintf("restore of %d %s rows", h.n, h.typ), vecBytes(h.data))
	if err != nil {
		return nil, err
	}
	defer g.done()
	d.count(func(s *gpu.Stats) { s.BytesUploaded += deviceBytes(h.typ, h.n) })
	return d.newColumn(h.typ, h.n, cloneVec(h.data), h.dict), nil
}

// cloneVec is a copy of v's values (not of strings: Spill refuses them).
func cloneVec(v *vec) *vec {
	return &vec{i64: slices.Clone(v.i64), f64: slices.Clone(v.f64), i128: slices.Clone(v.i128), valid: slices.Clone(v.valid)}
}
