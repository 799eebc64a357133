package cuda

import (
	"context"
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rigel-db/rigel/gpu"
)

// The join primitives (semantics in gpu/join.go) run the hand-written
// kernels of kernels/join.cu; join_ops.go holds Gather, Unmatched, Concat.

//go:embed kernels/join.cu
var joinSrc string

// joinFindSrc (the key hashing and the table lookup) precedes join.cu and
// the generated probe kernels that look rows up themselves.
//
//go:embed kernels/join_find.cuh
var joinFindSrc string

// Args words of the join kernels (the JA_* constants of join.cu).
const (
	jaN, jaStatus, jaNKeys, jaSlots, jaMask, jaNext, jaClen, jaRep = 0, 1, 2, 3, 4, 5, 6, 7
	jaCounts, jaNTiles, jaOffsets, jaOutP, jaOutB, jaMulti, jaFast = 8, 9, 10, 11, 12, 13, 14
	jaKeys                                                         = 16
	jkWords                                                        = 5
	// joinMaxKeys is JK_MAX of join.cu (its shared-memory descriptor table).
	joinMaxKeys = 32
	// joinTile is JN_TILE: the probe rows of one count/write tile.
	joinTile    = 256 * 8
	joinThreads = 256
	jkFloat     = 0x100
	jkNullEq    = 0x200
	// statusBadIndex is RG_BAD_INDEX of join.cu.
	statusBadIndex = 16
)

// joinModule returns the join kernels (compiled in the background from
// Open; loaded on first use).
func (d *Device) joinModule() (*module, error) { return d.loaded(&d.join, joinFile) }

// HashJoin returns the (probe row, build row) pairs of equal keys: a hash
// table over the build side (rg_join_build), then two passes over the probe
// side, one counting each tile's pairs and one writing them at the scanned
// offsets, so the output is allocated once at its exact size.
func (d *Device) HashJoin(ctx context.Context, build, probe []gpu.Column, nullsEqual []bool) (gpu.Column, gpu.Column, error) {
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.watch(ctx)()
	if d.closed {
		return nil, nil, fmt.Errorf("hash join: CUDA device is closed")
	}
	bc, pc, release, err := d.joinKeys(build, probe, nullsEqual)
	if err != nil {
		return nil, nil, fmt.Errorf("hash join: %w", err)
	}
	defer release()
	nb, np := bc[0].n, pc[0].n
	if nb > math.MaxInt32 || np > math.MaxInt32 {
		return nil, nil, fmt.Errorf("hash join of %d build and %d probe rows: row indexes are int32: %w", nb, np, gpu.ErrUnsupported)
	}
	mod, err := d.joinModule()
	if err != nil {
		return nil, nil, fmt.Errorf("hash join: %w", err)
	}
	args := d.joinArgs(bc, pc, nullsEqual)
	tmp := &temps{d: d}
	defer tmp.release()
	pairs, err := d.hashJoin(ctx, mod, args, nb, np, tmp)
	if err != nil {
		return nil, nil, fmt.Errorf("hash join of %d probe and %d build rows: %w", np, nb, err)
	}
	return pairs[0], pairs[1], nil
}

// joinArgs is the Args block of join.cu's kernels with the status word and
// the key descriptors filled in (HashJoin, RunProbe).
func (d *Device) joinArgs(bc, pc []*column, nullsEqual []bool) []uint64 {
	args := make([]uint64, jaKeys+jkWords*len(bc))
	args[jaStatus], args[jaNKeys] = d.status, uint64(len(bc))
	for i := range bc {
		code := uint64(bc[i].t.Kind.Width())
		if bc[i].t.Kind.IsFloat() {
			code |= jkFloat
		}
		if nullsEqual != nil && nullsEqual[i] {
			code |= jkNullEq
		}
		w := args[jaKeys+jkWords*i:]
		w[0], w[1], w[2], w[3], w[4] = bc[i].data, bc[i].valid, pc[i].data, pc[i].valid, code
	}
	// One 8-byte integer key without nulls: rg_join_count's short lookup
	// (rg_jn_find8). The hash is the general one's, so the table is the same.
	if len(bc) == 1 && bc[0].t.Kind.Width() == 8 && !bc[0].t.Kind.IsFloat() && bc[0].valid == 0 && pc[0].valid == 0 {
		args[jaFast] = 1
	}
	return args
}

// joinKeys checks the key columns: owned, live, one length per side, equal
// kinds and scales across sides. A Dict probe key whose dictionary differs
// from its build key's is mapped into the build key's (dictKeyIn): release
// frees such columns once the caller's kernels are queued (stream order).
func (d *Device) joinKeys(build, probe []gpu.Column, nullsEqual []bool) (bc, pc []*column, release func(), err error) {
	bc, pc, err = d.checkJoinKeys(build, probe, nullsEqual)
	if err != nil {
		return nil, nil, nil, err
	}
	var mapped []*column
	release = func() {
		for _, c := range mapped {
			d.freeColumn(c)
		}
	}
	pc = append([]*column(nil), pc...)
	for i := range bc {
		if bc[i].t.Kind != gpu.Dict || bc[i].dict == nil || pc[i].dict == nil || gpu.SameDictionary(bc[i].dict, pc[i].dict) {
			continue
		}
		m, err := d.dictKeyIn(pc[i], bc[i].dict)
		if err != nil {
			release()
			return nil, nil, nil, fmt.Errorf("key %d: %w", i, err)
		}
		mapped = append(mapped, m)
		pc[i] = m
	}
	return bc, pc, release, nil
}

// dictKeyIn is Dict column c with its codes mapped into dictionary to
// (gpu.DictCodeMap; -1 where to lacks the string, which equals no code):
// the map is made on the host and uploaded, rg_dict_map applies it.
func (d *Device) dictKeyIn(c *column, to *array.String) (*column, error) {
	m := gpu.DictCodeMap(c.dict, to)
	t := c.t
	t.Nullable = c.valid != 0
	out, err := d.newOutput(t, c.n, to, fmt.Sprintf("join key codes mapped between dictionaries (%d rows)", c.n))
	if err != nil {
		return nil, err
	}
	if c.n == 0 {
		return out, nil
	}
	if c.valid != 0 {
		if err := d.copyDtoD(out.valid, c.valid, int64(c.n)); err != nil {
			d.freeColumn(out)
			return nil, err
		}
	}
	tmp := &temps{d: d}
	defer tmp.release() // stream order: the kernel reads the map first
	mp, err := tmp.get(int64(max(len(m), 1))*4, "dictionary code map")
	if err != nil {
		d.freeColumn(out)
		return nil, err
	}
	if len(m) > 0 {
		if err := d.copyIn(mp, unsafe.Slice((*byte)(unsafe.Pointer(&m[0])), 4*len(m)), "dictionary code map"); err != nil {
			d.freeColumn(out)
			return nil, err
		}
	}
	args := []uint64{uint64(c.n), c.data, c.valid, mp, uint64(len(m)), out.data}
	if err := d.timedLaunch(d.util, "rg_dict_map", d.gridFor(int64(c.n), blockThreads), blockThreads, 0, args); err != nil {
		d.freeColumn(out)
		return nil, err
	}
	return out, nil
}

// checkJoinKeys checks joinKeys' columns.
func (d *Device) checkJoinKeys(build, probe []gpu.Column, nullsEqual []bool) (bc, pc []*column, err error) {
	if len(build) == 0 || len(build) != len(probe) {
		return nil, nil, fmt.Errorf("%d build keys and %d probe keys (want the same number, at least one)", len(build), len(probe))
	}
	if nullsEqual != nil && len(nullsEqual) != len(build) {
		return nil, nil, fmt.Errorf("%d nullsEqual flags for %d keys", len(nullsEqual), len(build))
	}
	if len(build) > joinMaxKeys {
		return nil, nil, fmt.Errorf("%d key columns (the CUDA join takes at most %d): %w", len(build), joinMaxKeys, gpu.ErrUnsupported)
	}
	if bc, err = d.sameLength(build, "build key", 0); err != nil {
		return nil, nil, err
	}
	if pc, err = d.sameLength(probe, "probe key", 0); err != nil {
		return nil, nil, err
	}
	for i := range bc {
		bt, pt := bc[i].t, pc[i].t
		if bt.Kind != pt.Kind || bt.Scale != pt.Scale {
			return nil, nil, fmt.Errorf("key %d is %s on the build side and %s on the probe side (the engine must cast them to one type)", i, bt, pt)
		}
		if bt.Kind.Width() == 0 {
			return nil, nil, fmt.Errorf("key %d has kind %s: %w", i, bt.Kind, gpu.ErrUnsupported)
		}
	}
	return bc, pc, nil
}

// sameLength checks that cols belong to d and are equally long (Str and
// packed columns as checkColumns takes them).
func (d *Device) sameLength(cols []gpu.Column, what string, takes accepts) ([]*column, error) {
	cs, err := d.checkColumns(cols, takes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	for i, c := range cs {
		if c.n != cs[0].n {
			return nil, fmt.Errorf("%s %d has %d rows, %s 0 has %d", what, i, c.n, what, cs[0].n)
		}
	}
	return cs, nil
}

func dictLen(a *array.String) int {
	if a == nil {
		return 0
	}
	return a.Len()
}

// hashJoin runs the kernels; args holds the status word and key descriptors.
func (d *Device) hashJoin(ctx context.Context, mod *module, args []uint64, nb, np int, tmp *temps) (out [2]*column, err error) {
	if nb == 0 || np == 0 {
		return d.indexPair(0)
	}
	ntiles, err := d.joinTable(ctx, mod, args, nb, np, tmp, nil)
	if err != nil {
		return out, err
	}
	tileGrid := d.gridFor(ntiles, 1)
	total, err := d.scanTiles(mod, args[jaCounts], args[jaOffsets], ntiles)
	if err != nil {
		return out, err
	}
	if err := gpu.CtxErr(ctx); err != nil {
		return out, err
	}
	if out, err = d.indexPair(total); err != nil {
		return out, err
	}
	if total > 0 {
		args[jaOutP], args[jaOutB] = out[0].data, out[1].data
		if err := d.timedLaunch(mod, "rg_join_write", tileGrid, joinThreads, 0, args); err != nil {
			d.freeColumn(out[0])
			d.freeColumn(out[1])
			return [2]*column{}, err
		}
	}
	return out, nil
}

// joinTable builds the hash table over the nb build rows (rg_join_build)
// and looks every one of the np probe rows up (rg_join_count), with
// buffers from tmp: afterwards args holds the table (slots, next, clen),
// each probe row's representative build row (rep, -1 for none) and the
// pairs per tile of joinTile probe rows (counts; offsets is allocated for
// their scan). It returns the number of tiles. HashJoin writes the pairs
// from there; RunProbe feeds them to a generated pipeline. A non-nil
// lookup takes rg_join_count's place (the same outputs, from args and the
// number of tiles): RunProbe's rg_probe_find, which filters first.
func (d *Device) joinTable(ctx context.Context, mod *module, args []uint64, nb, np int, tmp *temps, lookup func(args []uint64, ntiles int64) error) (int64, error) {
	// Capacity: a power of two of at least twice the build rows, so that at
	// least half the slots stay empty and every probe walk ends soon; four
	// times while the table stays within 16 MB (of the H100's 50 MB L2): a
	// missing key then walks 1.4 slots on average instead of 2.5, and the
	// lanes of a warp wait less for each other's walks.
	capacity := int64(16)
	for capacity < 2*int64(nb) || (capacity < 4*int64(nb) && 4*int64(nb)*8 <= 16<<20) {
		capacity <<= 1
	}
	slots, err := tmp.get(capacity*8, fmt.Sprintf("hash table (%d slots)", capacity))
	if err != nil {
		return 0, err
	}
	next, err := tmp.get(int64(nb)*4, "hash chains")
	if err != nil {
		return 0, err
	}
	clen, err := tmp.get(int64(nb)*4, "hash chain lengths")
	if err != nil {
		return 0, err
	}
	ntiles := (int64(np) + joinTile - 1) / joinTile
	rep, err := tmp.get(int64(np)*4, "probe matches")
	if err != nil {
		return 0, err
	}
	counts, err := tmp.get(ntiles*8, "join tile counts")
	if err != nil {
		return 0, err
	}
	offsets, err := tmp.get((ntiles+1)*8, "join tile offsets")
	if err != nil {
		return 0, err
	}
	multi, err := tmp.get(8, "join duplicate-key flag")
	if err != nil {
		return 0, err
	}
	if err := firstErr(d.cx.memset(slots, 0xff, capacity*8, d.stream),
		d.cx.memset(next, 0xff, int64(nb)*4, d.stream),
		d.cx.memset(clen, 0, int64(nb)*4, d.stream),
		d.cx.memset(multi, 0, 8, d.stream)); err != nil {
		return 0, err
	}
	args[jaMulti] = multi
	args[jaSlots], args[jaMask], args[jaNext], args[jaClen] = slots, uint64(capacity-1), next, clen
	args[jaRep], args[jaCounts], args[jaNTiles], args[jaOffsets] = rep, counts, uint64(ntiles), offsets
	args[jaN] = uint64(nb)
	if err := d.timedLaunch(mod, "rg_join_build", d.gridFor(int64(nb), joinThreads), joinThreads, 0, args); err != nil {
		return 0, err
	}
	if err := gpu.CtxErr(ctx); err != nil {
		return 0, err
	}
	args[jaN] = uint64(np)
	if lookup != nil {
		return ntiles, lookup(args, ntiles)
	}
	if err := d.timedLaunch(mod, "rg_join_count", d.gridFor(ntiles, 1), joinThreads, 0, args); err != nil {
		return 0, err
	}
	return ntiles, nil
}

// indexPair allocates the two output index columns of n rows.
func (d *Device) indexPair(n int) (out [2]*column, err error) {
	if out[0], err = d.newOutput(gpu.JoinIndexType, n, nil, fmt.Sprintf("probe row indexes (%d pairs)", n)); err != nil {
		return out, err
	}
	if out[1], err = d.newOutput(gpu.JoinIndexType, n, nil, fmt.Sprintf("build row indexes (%d pairs)", n)); err != nil {
		d.freeColumn(out[0])
		return [2]*column{}, err
	}
	return out, nil
}

// scanTiles turns per-tile uint64 counts into offsets and returns the total
// (which waits for the kernels before it).
func (d *Device) scanTiles(mod *module, counts, offsets uint64, ntiles int64) (int, error) {
	if err := d.timedLaunch(mod, "rg_jn_scan", 1, 1024, 0, []uint64{uint64(ntiles), counts, offsets}); err != nil {
		return 0, err
	}
	return d.scanTotal(offsets, ntiles)
}

// scanTilesTwo is scanTiles of two arrays of ntiles counts at once (a
// block each): a probe aggregate's pairs and its matched rows, whose
// scans of 60M rows' tiles took 0.025 ms each, one after the other.
func (d *Device) scanTilesTwo(mod *module, counts, offsets, counts2, offsets2 uint64, ntiles int64) (int, int, error) {
	if err := d.timedLaunch(mod, "rg_jn_scan", 2, 1024, 0, []uint64{uint64(ntiles), counts, offsets, counts2, offsets2}); err != nil {
		return 0, 0, err
	}
	t, err := d.scanTotal(offsets, ntiles)
	if err != nil {
		return 0, 0, err
	}
	t2, err := d.scanTotal(offsets2, ntiles)
	return t, t2, err
}

// scanTotal reads a scan's total, offsets[ntiles].
func (d *Device) scanTotal(offsets uint64, ntiles int64) (int, error) {
	var b [8]byte
	if err := d.copyOut(b[:], offsets+uint64(ntiles)*8, "join row count"); err != nil {
		return 0, err
	}
	total := binary.LittleEndian.Uint64(b[:])
	if total > math.MaxInt64/16 {
		return 0, fmt.Errorf("%d output rows: %w", total, gpu.ErrOutOfMemory)
	}
	return int(total), nil
}

// readFlags returns the status word (after the kernels before it finish).
func (d *Device) readFlags(what string) (uint32, error) {
	var b [4]byte
	if err := d.copyOut(b[:], d.status, what+" status"); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b[:]), nil
}
