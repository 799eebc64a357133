package cuda

import (
	"context"
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

// The window primitives (gpu/window.go) on the GPU: kernels/window.cu.

var _ gpu.Windower = (*Device)(nil)

// scanTile is RG_SCAN_TILE, the values one block of rg_segscan_tiles scans.
const scanTile = 1024

// maxTreeLevels is RG_TREE_MAX_LEVELS + 1, the levels of the frame sums'
// tree with the rows: enough for 2^31 rows.
const maxTreeLevels = 10

func (d *Device) SegmentStarts(ctx context.Context, n int, keys []gpu.Column, starts gpu.Column) (gpu.Column, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.watch(ctx)()
	if d.closed {
		return nil, fmt.Errorf("segment starts: CUDA device is closed")
	}
	cols := keys
	if starts != nil {
		cols = append([]gpu.Column{starts}, keys...)
	}
	cs, err := d.sameLength(cols, "segment starts column", 0)
	if err != nil {
		return nil, err
	}
	if len(cs) > 0 && cs[0].n != n {
		return nil, fmt.Errorf("segment starts: columns of %d rows, want %d", cs[0].n, n)
	}
	var prev *column
	if starts != nil {
		if prev = cs[0]; prev.t.Kind != gpu.Bool || prev.t.Nullable {
			return nil, fmt.Errorf("segment starts: the starts are %s, not bool", prev.t)
		}
		cs = cs[1:]
	}
	out, err := d.newOutput(gpu.Type{Kind: gpu.Bool}, n, nil, "segment starts")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (gpu.Column, error) {
		d.freeColumn(out)
		return nil, fmt.Errorf("segment starts: %w", err)
	}
	if n == 0 {
		return out, nil
	}
	if prev != nil {
		err = d.copyDtoD(out.data, prev.data, int64(n))
	} else {
		err = d.cx.memset(out.data, 0, int64(n), d.stream)
	}
	if err == nil {
		err = d.cx.memset(out.data, 1, 1, d.stream) // row 0 starts, keys or none
	}
	if err != nil {
		return fail(err)
	}
	if len(cs) == 0 {
		return out, nil
	}
	mod, err := d.loaded(&d.window, windowFile)
	if err != nil {
		return fail(err)
	}
	for _, k := range cs {
		isFloat := uint64(0)
		if k.t.Kind.IsFloat() {
			isFloat = 1
		}
		args := []uint64{uint64(n), out.data, k.data, k.valid, uint64(devWidth(k.t)), isFloat}
		if err := d.timedLaunch(mod, "rg_seg_starts", d.gridFor(int64(n), blockThreads), blockThreads, 0, args); err != nil {
			return fail(err)
		}
	}
	return out, nil
}

func (d *Device) SegmentedScan(ctx context.Context, vals, starts gpu.Column, op gpu.ScanOp, reverse bool) (gpu.Column, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.watch(ctx)()
	if d.closed {
		return nil, fmt.Errorf("segmented scan: CUDA device is closed")
	}
	cs, err := d.sameLength([]gpu.Column{vals, starts}, "segmented scan column", 0)
	if err != nil {
		return nil, err
	}
	v, s := cs[0], cs[1]
	var suffix string
	switch {
	case v.t.Nullable || !gpu.ScanKind(v.t.Kind):
		return nil, fmt.Errorf("segmented scan of %s values (non-null int64, decimal or float64 only): %w", v.t, gpu.ErrUnsupported)
	case s.t.Kind != gpu.Bool || s.t.Nullable:
		return nil, fmt.Errorf("segmented scan: the starts are %s, not bool", s.t)
	case op < gpu.ScanSum || op > gpu.ScanFill:
		return nil, fmt.Errorf("segmented scan: unknown operator %d", op)
	case v.t.Kind == gpu.Float64:
		suffix = "f64"
	case v.t.Kind == gpu.Decimal128:
		suffix = "i128"
	default:
		suffix = "i64"
	}
	out, err := d.newOutput(v.t, v.n, nil, "segmented scan")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (gpu.Column, error) {
		d.freeColumn(out)
		return nil, fmt.Errorf("segmented scan: %w", err)
	}
	if v.n == 0 {
		return out, nil
	}
	mod, err := d.loaded(&d.window, windowFile)
	if err != nil {
		return fail(err)
	}
	if err := d.resetStatus(); err != nil {
		return fail(err)
	}
	tmp := &temps{d: d}
	defer tmp.release()
	rev := uint64(0)
	if reverse {
		rev = 1
	}
	scan := windowScan{d: d, mod: mod, suffix: suffix, width: int64(devWidth(v.t)), op: uint64(op), tmp: tmp}
	if err := scan.run(v.n, v.data, s.data, rev, out.data); err != nil {
		return fail(err)
	}
	flags, err := d.readFlags("segmented scan")
	if err != nil {
		return fail(err)
	}
	if flags&1 != 0 {
		return fail(fmt.Errorf("a running sum does not fit a 128-bit decimal: %w", gpu.ErrOverflow))
	}
	return out, nil
}

// windowScan is one segmented scan's kernels and temporaries.
type windowScan struct {
	d      *Device
	mod    *module
	suffix string // the value type's kernels: i64, f64 or i128
	width  int64
	op     uint64
	tmp    *temps
}

// run scans n values into out: the tiles, then (when there are several)
// the tiles' totals, scanned in place the same way, then the carries.
func (s windowScan) run(n int, vals, starts, rev, out uint64) error {
	d := s.d
	tiles := (n + scanTile - 1) / scanTile
	tileVal, err := s.tmp.get(int64(tiles)*s.width, "segmented scan tile totals")
	if err != nil {
		return err
	}
	tileFlag, err := s.tmp.get(int64(tiles), "segmented scan tile starts")
	if err != nil {
		return err
	}
	grid := min(tiles, d.sms*8)
	args := []uint64{uint64(n), d.status, vals, starts, rev, out, s.op, tileVal, tileFlag}
	if err := d.timedLaunch(s.mod, "rg_segscan_tiles_"+s.suffix, grid, blockThreads, 0, args); err != nil {
		return err
	}
	if tiles == 1 {
		return nil
	}
	if err := s.run(tiles, tileVal, tileFlag, 0, tileVal); err != nil {
		return err
	}
	args = []uint64{uint64(n), d.status, starts, rev, out, s.op, tileVal}
	return d.timedLaunch(s.mod, "rg_segscan_carry_"+s.suffix, min(tiles-1, d.sms*8), blockThreads, 0, args)
}

func (d *Device) FrameSums(ctx context.Context, vals, from, to gpu.Column) (gpu.Column, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.watch(ctx)()
	if d.closed {
		return nil, fmt.Errorf("frame sums: CUDA device is closed")
	}
	cs, err := d.sameLength([]gpu.Column{vals, from, to}, "frame sums column", 0)
	if err != nil {
		return nil, err
	}
	v, f, t := cs[0], cs[1], cs[2]
	switch {
	case v.t != gpu.Type{Kind: gpu.Float64}:
		return nil, fmt.Errorf("frame sums of %s values (non-null float64 only): %w", v.t, gpu.ErrUnsupported)
	case f.t != gpu.JoinIndexType || t.t != gpu.JoinIndexType:
		return nil, fmt.Errorf("frame sums: the frames' ends are %s and %s, not %s", f.t, t.t, gpu.JoinIndexType)
	}
	out, err := d.newOutput(v.t, v.n, nil, "frame sums")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (gpu.Column, error) {
		d.freeColumn(out)
		return nil, fmt.Errorf("frame sums: %w", err)
	}
	if v.n == 0 {
		return out, nil
	}
	mod, err := d.loaded(&d.window, windowFile)
	if err != nil {
		return fail(err)
	}
	tmp := &temps{d: d}
	defer tmp.release()
	// The tree's levels (gpu.SegmentTree): level 0 is vals, each level
	// above a sixteenth of the one below, built by one launch each.
	levels := []uint64{v.data}
	for size := int64(v.n); size > 1; size = (size + gpu.TreeFanout - 1) / gpu.TreeFanout {
		next, err := tmp.get((size+gpu.TreeFanout-1)/gpu.TreeFanout*8, "frame sums tree level")
		if err != nil {
			return fail(err)
		}
		args := []uint64{uint64(size), levels[len(levels)-1], next}
		if err := d.timedLaunch(mod, "rg_tree_level_f64", d.gridFor(size/gpu.TreeFanout+1, blockThreads), blockThreads, 0, args); err != nil {
			return fail(err)
		}
		levels = append(levels, next)
	}
	if len(levels) > maxTreeLevels {
		return fail(fmt.Errorf("a tree of %d levels over %d rows (RG_TREE_MAX_LEVELS: %d): %w", len(levels), v.n, maxTreeLevels, gpu.ErrBeyondDevice))
	}
	args := append([]uint64{uint64(v.n), f.data, t.data, out.data, uint64(len(levels))}, levels...)
	if err := d.timedLaunch(mod, "rg_frame_sums_f64", d.gridFor(int64(v.n), blockThreads), blockThreads, 0, args); err != nil {
		return fail(err)
	}
	return out, nil
}
