package cuda

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
)

func nextPow2(n int) int {
	c := 1
	for c < n {
		c <<= 1
	}
	return c
}

// dictLens is each column's dictionary size (0 where it has none): the
// input planAggregate chooses a domain strategy by.
func dictLens(cols []*column) []int {
	n := make([]int, len(cols))
	for i, c := range cols {
		if c.dict != nil {
			n[i] = c.dict.Len()
		}
	}
	return n
}

func (d *Device) runAggregate(p *gpu.Pipeline, cols []*column, args []uint64, n int, dictLen []int, st *strTables) ([]*column, error) {
	ap, err := planAggregate(p, dictLen)
	if err != nil {
		return nil, err
	}
	ap.strs, ap.packed = st, packedOf(cols)
	for _, k := range p.Keys {
		if e := p.Project[k]; e.Type.Kind == gpu.Dict && st.dictOf(e, cols) == nil {
			return nil, fmt.Errorf("dict group key %s reads no dict column: %w", e, gpu.ErrUnsupported)
		}
	}
	src, err := d.memoEntry(srcKey{p: p, kind: "aggregate", extra: fmt.Sprint(dictLen), packed: ap.packed.key()}, func() (string, error) { return aggregateSource(ap) })
	if err != nil {
		return nil, err
	}
	if !d.fusedReady(src) {
		if pr, pa, err := programOf(p, ap); err == nil && d.programFits(pr) {
			d.compileLater(src, "rigel_aggregate.cu")
			d.onProgram("aggregate", p)
			out, err := d.runAggregateProgram(ap, pr, pa, cols, args, n)
			if !d.launchRefused(err) {
				return out, err
			}
		}
	}
	mod, err := d.entryModule(src, "rigel_aggregate.cu")
	if err != nil {
		return nil, err
	}
	return d.aggregateGrowing(ap, mod, cols, args, n, n)
}

// aggregateGrowing runs the aggregate kernels over n rows (or probe rows),
// growing a hash strategy's table while the kernel reports it full. Tables
// start at the hint (or a size from the units); 2*units+64 slots always suffice,
// units being the rows (or join pairs) that can each make a group.
func (d *Device) aggregateGrowing(ap *aggPlan, mod *module, cols []*column, args []uint64, n, units int) ([]*column, error) {
	capacity := 0
	if ap.strat == stratHash {
		capacity = firstCapacity(ap.p, units)
	}
	for {
		tmp := &temps{d: d}
		out, fill, err := d.aggregateOnce(ap, mod, cols, args, n, capacity, tmp)
		tmp.release()
		if err != nil || fill == nil {
			return out, err
		}
		next := grownCapacity(capacity, units, fill)
		if next <= capacity { // 2*units+64 slots hold every group: a kernel bug
			return nil, fmt.Errorf("aggregate table of %d slots reported full for %d rows or pairs", capacity, units)
		}
		capacity = next
	}
}

// firstCapacity is the first table size of a hash aggregate over units
// rows or pairs: twice the group hint, or without one half the units,
// from 64K to 1M slots. A table that fills up costs a pass up to where it
// filled: TPC-H Q3's 114K groups filled 64K slots after 0.30 ms, Q10's
// 381K groups 256K slots after 0.74 ms (SF10, H100); a table larger than
// needed costs only its initialization and the emit's scan over its
// slots.
func firstCapacity(p *gpu.Pipeline, units int) int {
	want := 2 * p.GroupHint
	if p.GroupHint <= 0 {
		want = min(max(units/2, 1<<16), 1<<20)
	}
	return nextPow2(min(max(want, 64), 2*units+64))
}

// tableFill is what a hash aggregate's kernel reports when its table filled
// up: the slots it claimed, and by then the rows it scanned, the rows that
// passed its filter, the runs of equal keys it added (hashAggLoop), the
// runs that started inside a warp and how many of those found their key in
// the table already.
type tableFill struct{ slots, scanned, added, runs, innerRuns, innerHits uint64 }

// grownCapacity sizes the next table after one filled up, from an estimate
// of the number of groups (groupEstimate) with room for it to be off by
// half and the 70% fill limit: at least twice the last table, at most the
// 2n+64 slots that always suffice. An estimate far too high is not free: a
// table that outgrows the L2 cache makes every update a DRAM access.
func grownCapacity(capacity, n int, f *tableFill) int {
	next := capacity * 8
	if est, ok := f.groupEstimate(n); ok {
		next = max(capacity*2, nextPow2(int(est*1.5/0.7)+1))
	}
	return min(next, nextPow2(2*n+64))
}

// groupEstimate estimates the groups of the whole input with one of two
// models, chosen by how often a run that starts inside a warp (so after a
// row with another key) finds its key in the table:
//   - rarely: keys that keep arriving and do not come back (l_orderkey in
//     lineitem, in runs of about four). The groups seen so far, scaled to
//     all the rows that will pass the filter.
//   - otherwise: keys drawn at random from G groups. After r additions
//     (runs: a run adds one key), G(1-e^(-r/G)) distinct keys are expected;
//     solving for G gives the groups (never more than the first model).
func (f *tableFill) groupEstimate(n int) (float64, bool) {
	if f.scanned == 0 || f.added == 0 || f.runs == 0 || f.slots == 0 {
		return 0, false
	}
	total := float64(n) * float64(f.added) / float64(f.scanned) // rows that will pass
	d, r := float64(f.slots), float64(f.runs)
	steady := d * total / float64(f.added)
	if f.innerRuns == 0 || float64(f.innerHits) < 0.05*float64(f.innerRuns) || expectedDistinct(steady, r) < d {
		return steady, true
	}
	// expectedDistinct grows with G, and the G giving d distinct keys lies
	// in [d, steady]: bisect on a log scale.
	lo, hi := d, steady
	for i := 0; i < 60 && hi/lo > 1.01; i++ {
		mid := math.Sqrt(lo * hi)
		if expectedDistinct(mid, r) < d {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, true
}

// expectedDistinct is the expected number of distinct keys among r keys
// drawn uniformly at random from g groups.
func expectedDistinct(g, r float64) float64 { return g * -math.Expm1(-r/g) }

// aggregateOnce runs the aggregate with a table of the given capacity (hash
// strategy). It returns a non-nil tableFill, and no columns, when the table
// filled up before every row was added.
func (d *Device) aggregateOnce(ap *aggPlan, mod *module, cols []*column, args []uint64, n, capacity int, tmp *temps) ([]*column, *tableFill, error) {
	nslots := ap.groups
	if ap.strat == stratHash {
		nslots = capacity
	}
	tableBytes := int64(nslots) * int64(ap.slotWords) * 8
	table, err := tmp.get(tableBytes, fmt.Sprintf("aggregate table (%d slots)", nslots))
	if err != nil {
		return nil, nil, err
	}
	var keys, fill, states uint64
	if ap.strat == stratHash {
		if states, err = tmp.get(int64(nslots)*4, "aggregate slot states"); err != nil {
			return nil, nil, err
		}
		if keys, err = tmp.get(int64(nslots*ap.keyWords)*8, "aggregate keys"); err != nil {
			return nil, nil, err
		}
		// The fill counter (uint32) and five uint64 progress counters
		// from +8 (tableFill).
		if fill, err = tmp.get(48, "aggregate fill counter"); err != nil {
			return nil, nil, err
		}
		if err := d.cx.memset(fill, 0, 48, d.stream); err != nil {
			return nil, nil, err
		}
	}
	if err := d.resetStatus(); err != nil {
		return nil, nil, err
	}
	a := append(append([]uint64(nil), args...), table, uint64(nslots), keys, fill, uint64(capacity), uint64(capacity)*7/10, states)
	a = append(a, ap.probeArgs...) // a probe's rep, next, multi and selection (codegen_probe_agg.go)
	if err := d.timedLaunch(mod, "rg_agg_init", d.gridFor(int64(nslots), blockThreads), blockThreads, 0, a); err != nil {
		return nil, nil, err
	}
	if n > 0 {
		grid := d.gridFor(int64(n), ap.threads())
		switch {
		case ap.shared != nil:
			// One wave: every block flushes its partials once.
			grid = min(grid, d.sms*ap.shared.blocksPerSM())
		case ap.strat == stratDomain:
			grid = min(grid, d.sms*4)
		}
		if err := d.timedLaunch(mod, "rg_agg", grid, ap.threads(), 0, a); err != nil {
			return nil, nil, err
		}
	}
	full, err := d.checkStatus()
	if err != nil {
		return nil, nil, err
	}
	if full {
		f, err := d.readTableFill(fill)
		return nil, f, err
	}
	if ap.strat == stratHash {
		out, err := d.emitGroups(ap, mod, cols, table, keys, nslots)
		return out, nil, err
	}
	tb := make([]byte, tableBytes)
	if err := d.copyOut(tb, table, "aggregate table"); err != nil {
		return nil, nil, err
	}
	hosts, err := finalize(ap, cols, tb)
	if err != nil {
		return nil, nil, err
	}
	out, err := d.placeBatch(hosts)
	return out, nil, err
}

// readTableFill reads the fill counter of a hash aggregate's table that
// filled up (its 48 bytes: tableFill).
func (d *Device) readTableFill(fill uint64) (*tableFill, error) {
	var fb [48]byte
	if err := d.copyOut(fb[:], fill, "aggregate fill counter"); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	return &tableFill{slots: uint64(le.Uint32(fb[:])), scanned: le.Uint64(fb[8:]), added: le.Uint64(fb[16:]),
		runs: le.Uint64(fb[24:]), innerRuns: le.Uint64(fb[32:]), innerHits: le.Uint64(fb[40:])}, nil
}

// groupOutputs allocates a hash aggregate's output columns for groups
// rows: keys, then aggregates; a Str key shares its input's characters.
// On error it returns those made so far.
func (d *Device) groupOutputs(ap *aggPlan, cols []*column, groups int) (out []*column, err error) {
	p := ap.p
	for i, t := range p.OutputTypes() {
		c, err := d.newOutput(t, groups, outputDict(ap, cols, i), fmt.Sprintf("aggregate output #%d (%d groups)", i, groups))
		if err != nil {
			return out, err
		}
		if t.Kind == gpu.Str { // a group key (gpu.CheckStrUses): its input's characters
			c.shareStr(cols[p.Project[p.Keys[i]].Col])
		}
		out = append(out, c)
	}
	return out, nil
}

// emitGroups writes the used slots of a hash aggregate's table as output
// columns on the device (emitSource's kernels): only the group count comes
// back to the host.
func (d *Device) emitGroups(ap *aggPlan, mod *module, cols []*column, table, keys uint64, nslots int) (out []*column, err error) {
	tmp := &temps{d: d}
	defer tmp.release()
	defer d.freeOnError(&out, &err)
	ntiles := (nslots + tileRows - 1) / tileRows
	counts, err := tmp.get(int64(ntiles)*4, "aggregate tile counts")
	if err != nil {
		return nil, err
	}
	offsets, err := tmp.get(int64(ntiles+1)*8, "aggregate tile offsets")
	if err != nil {
		return nil, err
	}
	args := []uint64{uint64(nslots), d.status, table, keys, counts, uint64(ntiles)}
	grid := d.gridFor(int64(ntiles), 1)
	if err := d.timedLaunch(mod, "rg_agg_used", grid, blockThreads, 0, args); err != nil {
		return nil, err
	}
	groups, err := d.scanTileCounts(counts, offsets, ntiles, "group count")
	if err != nil {
		return nil, err
	}
	args[4] = offsets
	if out, err = d.groupOutputs(ap, cols, groups); err != nil {
		return out, err
	}
	for _, c := range out {
		args = append(args, c.data, c.valid)
	}
	if groups > 0 {
		if err := d.timedLaunch(mod, "rg_agg_emit", grid, blockThreads, 0, args); err != nil {
			return out, err
		}
	}
	_, err = d.checkStatus()
	return out, err
}

// outputDict is the dictionary of aggregate output column i when it is a
// string: that of its group key or of its min/max argument.
func outputDict(ap *aggPlan, cols []*column, i int) *array.String {
	p := ap.p
	if p.OutputTypes()[i].Kind != gpu.Dict {
		return nil
	}
	if i < len(p.Keys) {
		return ap.strs.dictOf(p.Project[p.Keys[i]], cols)
	}
	if l := ap.aggs[i-len(p.Keys)]; l.a.Kind != gpu.AggCountStar {
		return ap.strs.dictOf(p.Project[l.a.Arg], cols)
	}
	return nil
}

// finalize turns the downloaded table of a domain aggregate (at most
// maxDomainGroups slots) into output columns: one row per used slot (always
// one row without keys), keys then aggregates.
func finalize(ap *aggPlan, cols []*column, tb []byte) ([]*hostColumn, error) {
	p := ap.p
	W := ap.slotWords
	word := func(s, w int) uint64 { return binary.LittleEndian.Uint64(tb[(s*W+w)*8:]) }
	var slots []int
	for s := range ap.groups {
		used := word(s, 0) > 0 // every claimed slot counted its row
		if used || (len(p.Keys) == 0 && s == 0) {
			slots = append(slots, s)
		}
	}
	types := p.OutputTypes()
	out := make([]*hostColumn, len(types))
	for i, t := range types {
		h := &hostColumn{t: t, n: len(slots), data: make([]byte, len(slots)*t.Kind.Width()), dict: outputDict(ap, cols, i)}
		if t.Nullable {
			h.valid = make([]byte, len(slots))
		}
		out[i] = h
	}
	setNull := func(h *hostColumn, r int, null bool, what string) error {
		if h.valid != nil {
			if !null {
				h.valid[r] = 1
			}
			return nil
		}
		if null {
			return fmt.Errorf("%s is null but its type %s is not nullable", what, h.t)
		}
		return nil
	}
	for r, s := range slots {
		// Keys: the slot is the mixed-radix number of the keys' codes.
		for ki, k := range p.Keys {
			h := out[ki]
			code := (s / ap.strides[ki]) % ap.domains[ki]
			null := p.Project[k].Type.Nullable && code == ap.domains[ki]-1
			if err := setNull(h, r, null, "group key"); err != nil {
				return nil, err
			}
			if !null {
				putValue(h, r, uint64(code))
			}
		}
		// Aggregates.
		for j, l := range ap.aggs {
			h := out[len(p.Keys)+j]
			switch l.a.Kind {
			case gpu.AggCountStar:
				binary.LittleEndian.PutUint64(h.data[r*8:], word(s, 0))
				setNull(h, r, false, "")
				continue
			case gpu.AggCount:
				binary.LittleEndian.PutUint64(h.data[r*8:], word(s, l.val))
				setNull(h, r, false, "")
				continue
			}
			null := word(s, l.nn) == 0
			if err := setNull(h, r, null, l.a.Kind.String()); err != nil {
				return nil, err
			}
			if null {
				continue
			}
			switch {
			case l.a.Kind == gpu.AggSum && l.arg.Kind.IsFloat():
				binary.LittleEndian.PutUint64(h.data[r*8:], word(s, l.val))
			case l.a.Kind == gpu.AggSum:
				lo, mid, hi := word(s, l.val), word(s, l.val+1), word(s, l.val+2)
				if hi != uint64(int64(mid)>>63) {
					return nil, fmt.Errorf("sum does not fit 128 bits: %w", gpu.ErrOverflow)
				}
				binary.LittleEndian.PutUint64(h.data[r*16:], lo)
				binary.LittleEndian.PutUint64(h.data[r*16+8:], mid)
			case l.arg.Kind == gpu.Decimal128:
				binary.LittleEndian.PutUint64(h.data[r*16:], word(s, l.val))
				binary.LittleEndian.PutUint64(h.data[r*16+8:], word(s, l.val+1))
			case l.arg.Kind.IsFloat():
				k := word(s, l.val)
				var b uint64
				if k>>63 == 1 {
					b = k &^ (1 << 63)
				} else {
					b = ^k
				}
				if l.arg.Kind == gpu.Float32 {
					binary.LittleEndian.PutUint32(h.data[r*4:], math.Float32bits(float32(math.Float64frombits(b))))
				} else {
					binary.LittleEndian.PutUint64(h.data[r*8:], b)
				}
			default:
				putValue(h, r, word(s, l.val))
			}
		}
	}
	return out, nil
}

// putValue stores the low bytes of an integer into row r of h.
func putValue(h *hostColumn, r int, v uint64) {
	switch w := h.t.Kind.Width(); w {
	case 1:
		h.data[r] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(h.data[r*2:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(h.data[r*4:], uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(h.data[r*8:], v)
	}
}
