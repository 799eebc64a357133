package cuda

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/rigel-db/rigel/gpu"
)

func nextPow2(n int) int {
	c := 1
	for c < n {
		c <<= 1
	}
	return c
}

func (d *Device) runAggregate(p *gpu.Pipeline, cols []*column, args []uint64, n int, dictLen []int, st *strTables) ([]*column, error) {
	ap, err := planAggregate(p, dictLen)
	if err != nil {
		return nil, err
	}
	ap.strs = st
	for _, k := range p.Keys {
		if e := p.Project[k]; e.Type.Kind == gpu.Dict && st.dictOf(e, cols) == nil {
			return nil, fmt.Errorf("dict group key %s reads no dict column: %w", e, gpu.ErrUnsupported)
		}
	}
	src, err := aggregateSource(ap)
	if err != nil {
		return nil, err
	}
	mod, err := d.moduleFor(src, "rigel_aggregate.cu")
	if err != nil {
		return nil, err
	}
	// Hash tables start at the hint (or a modest size) and grow by 8x when
	// the kernel reports them full; 2n slots always suffice.
	capacity := 0
	if ap.strat == stratHash {
		want := 2 * p.GroupHint
		if p.GroupHint <= 0 {
			want = 1 << 16
		}
		capacity = nextPow2(min(max(want, 64), 2*n+64))
	}
	for {
		tmp := &temps{d: d}
		out, full, err := d.aggregateOnce(ap, mod, cols, args, n, capacity, tmp)
		tmp.release()
		if err != nil || !full {
			return out, err
		}
		capacity *= 8
	}
}

func (d *Device) aggregateOnce(ap *aggPlan, mod *module, cols []*column, args []uint64, n, capacity int, tmp *temps) ([]*column, bool, error) {
	nslots := ap.groups
	if ap.strat == stratHash {
		nslots = capacity
	}
	tableBytes := int64(nslots) * int64(ap.slotWords) * 8
	table, err := tmp.get(tableBytes, fmt.Sprintf("aggregate table (%d slots)", nslots))
	if err != nil {
		return nil, false, err
	}
	var keys, fill, states uint64
	if ap.strat == stratHash {
		if states, err = tmp.get(int64(nslots)*4, "aggregate slot states"); err != nil {
			return nil, false, err
		}
		if keys, err = tmp.get(int64(nslots*ap.keyWords)*8, "aggregate keys"); err != nil {
			return nil, false, err
		}
		if fill, err = tmp.get(8, "aggregate fill counter"); err != nil {
			return nil, false, err
		}
		if err := d.cx.memset(fill, 0, 8, d.stream); err != nil {
			return nil, false, err
		}
	}
	if err := d.resetStatus(); err != nil {
		return nil, false, err
	}
	a := append(append([]uint64(nil), args...), table, uint64(nslots), keys, fill, uint64(capacity), uint64(capacity)*7/10, states)
	if err := d.timedLaunch(mod, "rg_agg_init", d.gridFor(int64(nslots), blockThreads), blockThreads, 0, a); err != nil {
		return nil, false, err
	}
	if n > 0 {
		grid := d.gridFor(int64(n), blockThreads)
		if ap.strat == stratDomain {
			grid = min(grid, d.sms*4)
		}
		if err := d.timedLaunch(mod, "rg_agg", grid, blockThreads, 0, a); err != nil {
			return nil, false, err
		}
	}
	full, err := d.checkStatus()
	if err != nil || full {
		return nil, full, err
	}
	tb := make([]byte, tableBytes)
	if err := d.copyOut(tb, table, "aggregate table"); err != nil {
		return nil, false, err
	}
	var kb []byte
	if ap.strat == stratHash {
		kb = make([]byte, nslots*ap.keyWords*8)
		if err := d.copyOut(kb, keys, "aggregate keys"); err != nil {
			return nil, false, err
		}
	}
	hosts, err := finalize(ap, cols, tb, kb, nslots)
	if err != nil {
		return nil, false, err
	}
	out, err := d.placeBatch(hosts)
	return out, false, err
}

// finalize turns the downloaded table into output columns: one row per
// used slot (always one row without keys), keys then aggregates.
func finalize(ap *aggPlan, cols []*column, tb, kb []byte, nslots int) ([]*hostColumn, error) {
	p := ap.p
	W := ap.slotWords
	word := func(s, w int) uint64 { return binary.LittleEndian.Uint64(tb[(s*W+w)*8:]) }
	// A table of millions of slots (a grouping on an order key) takes
	// seconds in one goroutine: the slots are split into chunks, each
	// found and converted by its own goroutine.
	chunks := max(1, min(runtime.GOMAXPROCS(0), nslots/(1<<16)))
	per := (nslots + chunks - 1) / chunks
	chunkSlots := make([][]int, chunks)
	var wg sync.WaitGroup
	for c := range chunks {
		wg.Go(func() {
			for s := c * per; s < min(nslots, (c+1)*per); s++ {
				used := word(s, 0) > 0 // every claimed slot counted its row
				if used || (len(p.Keys) == 0 && s == 0) {
					chunkSlots[c] = append(chunkSlots[c], s)
				}
			}
		})
	}
	wg.Wait()
	rows := 0
	firstRow := make([]int, chunks)
	for c, cs := range chunkSlots {
		firstRow[c] = rows
		rows += len(cs)
	}
	types := p.OutputTypes()
	out := make([]*hostColumn, len(types))
	for i, t := range types {
		h := &hostColumn{t: t, n: rows, data: make([]byte, rows*t.Kind.Width())}
		if t.Nullable {
			h.valid = make([]byte, rows)
		}
		if t.Kind == gpu.Dict {
			if i < len(p.Keys) {
				h.dict = ap.strs.dictOf(p.Project[p.Keys[i]], cols)
			} else if l := ap.aggs[i-len(p.Keys)]; l.a.Kind != gpu.AggCountStar {
				h.dict = ap.strs.dictOf(p.Project[l.a.Arg], cols)
			}
		}
		out[i] = h
	}
	errs := make([]error, chunks)
	for c := range chunks {
		wg.Go(func() { errs[c] = finalizeRows(ap, out, word, kb, chunkSlots[c], firstRow[c]) })
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// finalizeRows converts slots into output rows first, first+1, ...
func finalizeRows(ap *aggPlan, out []*hostColumn, word func(s, w int) uint64, kb []byte, slots []int, first int) error {
	p := ap.p
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
	for i, s := range slots {
		r := first + i
		// Keys.
		for ki, k := range p.Keys {
			t := p.Project[k].Type
			h := out[ki]
			var v uint64
			null := false
			if ap.strat == stratDomain {
				code := (s / ap.strides[ki]) % ap.domains[ki]
				if t.Nullable && code == ap.domains[ki]-1 {
					null = true
				}
				v = uint64(code)
			} else {
				kw := func(i int) uint64 { return binary.LittleEndian.Uint64(kb[(s*ap.keyWords+i)*8:]) }
				if ap.nullBit[ki] >= 0 {
					null = kw(ap.nullWord)>>ap.nullBit[ki]&1 == 1
				}
				v = kw(ap.keyWord[ki])
				if t.Kind == gpu.Decimal128 && !null {
					binary.LittleEndian.PutUint64(h.data[r*16:], v)
					binary.LittleEndian.PutUint64(h.data[r*16+8:], kw(ap.keyWord[ki]+1))
					setNull(h, r, false, "")
					continue
				}
			}
			if err := setNull(h, r, null, "group key"); err != nil {
				return err
			}
			if !null {
				putValue(h, r, v)
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
				return err
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
					return fmt.Errorf("sum does not fit 128 bits: %w", gpu.ErrOverflow)
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
	return nil
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
