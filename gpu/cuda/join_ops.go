package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rigel-db/rigel/gpu"
)

// gatherMaxCols is JG_MAX of join.cu: the columns one gather launch moves.
const gatherMaxCols = 48

// Gather returns, for each column, the values at the rows idx holds. One
// kernel moves every width and the validity bytes; an index outside the
// columns (or negative without padNulls) raises a status flag that becomes
// an error here, so a bad index is reported, never read out of bounds.
func (d *Device) Gather(ctx context.Context, cols []gpu.Column, idx gpu.Column, padNulls bool) ([]gpu.Column, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.watch(ctx)()
	if d.closed {
		return nil, fmt.Errorf("gather: CUDA device is closed")
	}
	ic, err := d.indexArg(idx, "gather")
	if err != nil {
		return nil, err
	}
	cs, err := d.sameLength(cols, "column", acceptStr)
	if err != nil {
		return nil, fmt.Errorf("gather: %w", err)
	}
	m, n := ic.n, 0
	if len(cs) > 0 {
		n = cs[0].n
	}
	var out []*column
	fail := func(err error) ([]gpu.Column, error) {
		for _, c := range out {
			d.freeColumn(c)
		}
		return nil, fmt.Errorf("gather of %d rows: %w", m, err)
	}
	for i, c := range cs {
		t := c.t
		if padNulls {
			t.Nullable = true
		}
		o, err := d.newOutput(t, m, c.dict, fmt.Sprintf("gathered column %d (%d rows)", i, m))
		if err != nil {
			return fail(err)
		}
		o.shareStr(c)
		out = append(out, o)
	}
	if m > 0 && len(cs) > 0 {
		mod, err := d.joinModule()
		if err != nil {
			return fail(err)
		}
		if err := d.resetStatus(); err != nil {
			return fail(err)
		}
		pad := uint64(0)
		if padNulls {
			pad = 1
		}
		for lo := 0; lo < len(cs); lo += gatherMaxCols {
			hi := min(lo+gatherMaxCols, len(cs))
			args := []uint64{uint64(m), d.status, ic.data, uint64(hi - lo), pad, uint64(n), 0, 0}
			for i := lo; i < hi; i++ {
				args = append(args, cs[i].data, cs[i].valid, out[i].data, out[i].valid, gatherWidth(cs[i]))
			}
			if err := d.timedLaunch(mod, "rg_join_gather", d.gridFor(int64(m), joinThreads), joinThreads, 0, args); err != nil {
				return fail(err)
			}
		}
		flags, err := d.readFlags("gather")
		if err != nil {
			return fail(err)
		}
		if flags&statusBadIndex != 0 {
			if padNulls {
				return fail(fmt.Errorf("an index is at or beyond the columns' %d rows", n))
			}
			return fail(fmt.Errorf("an index is negative or at or beyond the columns' %d rows (negative indexes need padNulls)", n))
		}
	}
	return asColumns(out), nil
}

// gatherWidth is rg_join_gather's width word for column c: its value's
// bytes, or JG_STR_OFFSETS for a Str upload, whose gathered rows become
// views (only the rows gathered are read, not the whole upload).
func gatherWidth(c *column) uint64 {
	if c.t.Kind == gpu.Str && !c.views {
		return jgStrOffsets
	}
	return uint64(devWidth(c.t))
}

// jgStrOffsets is join.cu's JG_STR_OFFSETS.
const jgStrOffsets = 3

// indexArg checks that idx is a live, non-nullable Int32 column of d.
func (d *Device) indexArg(idx gpu.Column, what string) (*column, error) {
	cs, err := d.asColumns([]gpu.Column{idx})
	if err != nil {
		return nil, fmt.Errorf("%s: index column: %w", what, err)
	}
	c := cs[0]
	if c.t.Kind != gpu.JoinIndexType.Kind || c.t.Nullable {
		return nil, fmt.Errorf("%s: the index column is %s, want non-nullable %s", what, c.t, gpu.JoinIndexType)
	}
	return c, nil
}

// Unmatched returns, ascending, the rows of [0, n) that idx does not hold:
// a byte flag per row scattered from idx, then a compaction of the unflagged
// rows (count per tile, scan, write in order).
func (d *Device) Unmatched(ctx context.Context, idx gpu.Column, n int) (gpu.Column, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("unmatched: negative row count %d", n)
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("unmatched over %d rows: row indexes are int32: %w", n, gpu.ErrUnsupported)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.watch(ctx)()
	if d.closed {
		return nil, fmt.Errorf("unmatched: CUDA device is closed")
	}
	ic, err := d.indexArg(idx, "unmatched")
	if err != nil {
		return nil, err
	}
	c, err := d.unmatched(ic, n)
	if err != nil {
		return nil, fmt.Errorf("unmatched rows of %d (%d indexes): %w", n, ic.n, err)
	}
	return c, nil
}

func (d *Device) unmatched(ic *column, n int) (*column, error) {
	if n == 0 && ic.n == 0 {
		return d.newOutput(gpu.JoinIndexType, 0, nil, "unmatched rows")
	}
	mod, err := d.joinModule()
	if err != nil {
		return nil, err
	}
	tmp := &temps{d: d}
	defer tmp.release()
	seen, err := tmp.get(int64(n), "matched-row flags")
	if err != nil {
		return nil, err
	}
	if err := firstErr(d.cx.memset(seen, 0, int64(n), d.stream), d.resetStatus()); err != nil {
		return nil, err
	}
	if ic.n > 0 {
		if err := d.timedLaunch(mod, "rg_join_mark", d.gridFor(int64(ic.n), joinThreads), joinThreads, 0,
			[]uint64{uint64(ic.n), d.status, ic.data, seen, uint64(n)}); err != nil {
			return nil, err
		}
	}
	total := 0
	ntiles := (int64(n) + joinTile - 1) / joinTile
	var offsets uint64
	if n > 0 {
		counts, err := tmp.get(ntiles*8, "unmatched tile counts")
		if err != nil {
			return nil, err
		}
		if offsets, err = tmp.get((ntiles+1)*8, "unmatched tile offsets"); err != nil {
			return nil, err
		}
		if err := d.timedLaunch(mod, "rg_join_unseen_count", d.gridFor(ntiles, 1), joinThreads, 0,
			[]uint64{uint64(n), 0, seen, counts, uint64(ntiles)}); err != nil {
			return nil, err
		}
		if total, err = d.scanTiles(mod, counts, offsets, ntiles); err != nil {
			return nil, err
		}
	}
	flags, err := d.readFlags("unmatched")
	if err != nil {
		return nil, err
	}
	if flags&statusBadIndex != 0 {
		return nil, fmt.Errorf("an index is at or beyond the %d rows", n)
	}
	out, err := d.newOutput(gpu.JoinIndexType, total, nil, fmt.Sprintf("unmatched rows (%d)", total))
	if err != nil {
		return nil, err
	}
	if total > 0 {
		if err := d.timedLaunch(mod, "rg_join_unseen_write", d.gridFor(ntiles, 1), joinThreads, 0,
			[]uint64{uint64(n), 0, seen, 0, uint64(ntiles), offsets, out.data}); err != nil {
			d.freeColumn(out)
			return nil, err
		}
	}
	return out, nil
}

// Concat appends equally shaped column lists with device-to-device copies
// (no kernel). An output column is nullable when any part's is; parts
// without validity contribute valid bytes (a memset of 1s).
func (d *Device) Concat(ctx context.Context, parts [][]gpu.Column) ([]gpu.Column, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("concat: no parts")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.watch(ctx)()
	if d.closed {
		return nil, fmt.Errorf("concat: CUDA device is closed")
	}
	cp := make([][]*column, len(parts))
	for k, p := range parts {
		if len(p) != len(parts[0]) {
			return nil, fmt.Errorf("concat: part %d has %d columns, part 0 has %d", k, len(p), len(parts[0]))
		}
		var err error
		if cp[k], err = d.sameLength(p, fmt.Sprintf("part %d column", k), acceptStr); err != nil {
			return nil, fmt.Errorf("concat: %w", err)
		}
	}
	for k := range cp {
		var views func()
		var err error
		if cp[k], views, err = d.strViewsOf(cp[k]); err != nil {
			return nil, fmt.Errorf("concat: %w", err)
		}
		defer views()
	}
	var out []*column
	fail := func(err error) ([]gpu.Column, error) {
		for _, c := range out {
			d.freeColumn(c)
		}
		return nil, fmt.Errorf("concat: %w", err)
	}
	for i := range parts[0] {
		first := cp[0][i]
		t := first.t
		total := 0
		for k, p := range cp {
			c := p[i]
			if c.t.Kind != t.Kind || c.t.Scale != t.Scale {
				return fail(fmt.Errorf("column %d is %s in part %d and %s in part 0", i, c.t, k, first.t))
			}
			if t.Kind == gpu.Str && c.str != first.str {
				// Views index their own upload's characters.
				return fail(fmt.Errorf("column %d: strings of two different uploads (%d and %d bytes of characters): %w",
					i, first.str.n, c.str.n, gpu.ErrUnsupported))
			}
			t.Nullable = t.Nullable || c.t.Nullable
			total += c.n
		}
		srcs := make([]*column, len(cp))
		for k, p := range cp {
			srcs[k] = p[i]
		}
		dict := first.dict
		if t.Kind == gpu.Dict {
			var release func()
			var err error
			if dict, srcs, release, err = d.dictParts(srcs); err != nil {
				return fail(fmt.Errorf("column %d: %w", i, err))
			}
			defer release()
		}
		o, err := d.newOutput(t, total, dict, fmt.Sprintf("concatenated column %d (%d rows)", i, total))
		if err != nil {
			return fail(err)
		}
		o.shareStr(first)
		out = append(out, o)
		w := int64(devWidth(t))
		at := int64(0)
		for _, c := range srcs {
			rows := int64(c.n)
			if rows == 0 {
				continue
			}
			if err := d.copyDtoD(o.data+uint64(at*w), c.data, rows*w); err != nil {
				return fail(err)
			}
			if o.valid != 0 {
				if c.valid != 0 {
					err = d.copyDtoD(o.valid+uint64(at), c.valid, rows)
				} else {
					err = d.cx.memset(o.valid+uint64(at), 1, rows, d.stream)
				}
				if err != nil {
					return fail(err)
				}
			}
			at += rows
		}
	}
	return asColumns(out), nil
}

// dictParts returns Dict columns (a column of each part of a Concat)
// with their codes in one dictionary: theirs when they share one, else the
// sorted union of theirs (gpu.MergeDictionaries), each column's codes
// mapped into it (dictKeyIn). A UNION's branches over two tables' strings,
// or over string literals of their own, carry different dictionaries:
// TPC-DS q05, q14, q18 and ten more fell back to DuckDB whole for it
// (bench/results/2026-11-28-h200-tpch-tpcds-first-run-v27-strmatch.md).
// release frees the mapped columns (in stream order, after the copies
// queued from them) and the merged dictionary's reference. d.mu held.
func (d *Device) dictParts(cs []*column) (dict *array.String, out []*column, release func(), err error) {
	dicts := make([]*array.String, len(cs))
	for k, c := range cs {
		dicts[k] = c.dict
	}
	merged, same := gpu.MergeDictionaries(dicts...)
	var mapped []*column
	release = func() {
		for _, m := range mapped {
			d.freeColumn(m)
		}
		if merged != nil {
			merged.Release()
		}
	}
	if same {
		// merged is the parts' one dictionary, also where the first part's
		// is empty (a part without strings: all nulls, or no rows).
		return merged, cs, release, nil
	}
	out = append([]*column(nil), cs...)
	for k, c := range cs {
		if c.n == 0 || c.dict == nil || c.dict.Len() == 0 || gpu.SameDictionary(c.dict, merged) {
			continue // no codes to map (a column without strings is all nulls)
		}
		m, err := d.dictKeyIn(c, merged)
		if err != nil {
			release()
			return nil, nil, nil, fmt.Errorf("codes of part %d mapped into the parts' %d strings: %w", k, merged.Len(), err)
		}
		mapped = append(mapped, m)
		out[k] = m
	}
	return merged, out, release, nil
}

// copyDtoD queues a device-to-device copy on the device's stream.
func (d *Device) copyDtoD(dst, src uint64, n int64) error {
	return check(C.rg_copy_dtod(d.cx.c, C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(n), d.stream),
		"cuMemcpyDtoDAsync %s", humanBytes(n))
}
