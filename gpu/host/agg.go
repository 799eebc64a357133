package host

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
)

func checkAggregate(p *gpu.Pipeline) error {
	for i, k := range p.Keys {
		if k < 0 || k >= len(p.Project) {
			return fmt.Errorf("key %d refers to project %d of %d", i, k, len(p.Project))
		}
	}
	for i, a := range p.Aggs {
		if err := checkType(a.Type); err != nil {
			return fmt.Errorf("aggregate %d: %w", i, err)
		}
		if a.Kind == gpu.AggCountStar {
			if a.Type.Kind != gpu.Int64 {
				return fmt.Errorf("aggregate %d: count(*) gives int64, not %s", i, a.Type)
			}
			continue
		}
		if a.Arg < 0 || a.Arg >= len(p.Project) {
			return fmt.Errorf("aggregate %d (%s): argument %d of %d project columns", i, a.Kind, a.Arg, len(p.Project))
		}
		at := p.Project[a.Arg].Type
		if at.Kind == gpu.Str {
			// gpu/ext_strings.go: a Str projection is a group key only
			// (count(*) does not read its argument).
			return fmt.Errorf("aggregate %d (%s) of the str value %s: strings in Arrow layout are only group keys: %w", i, a.Kind, p.Project[a.Arg], gpu.ErrUnsupported)
		}
		switch a.Kind {
		case gpu.AggCount:
			if a.Type.Kind != gpu.Int64 {
				return fmt.Errorf("aggregate %d: count gives int64, not %s", i, a.Type)
			}
		case gpu.AggSum:
			switch {
			case at.Kind.IsFloat():
				if a.Type.Kind != gpu.Float64 {
					return fmt.Errorf("aggregate %d: sum of %s gives float64, not %s", i, at, a.Type)
				}
			case isIntClass(at.Kind) && at.Kind != gpu.Date32:
				if a.Type.Kind != gpu.Decimal128 || a.Type.Scale != scaleOf(at) {
					return fmt.Errorf("aggregate %d: sum of %s gives decimal128(38,%d), not %s", i, at, scaleOf(at), a.Type)
				}
			default:
				return fmt.Errorf("aggregate %d: sum of %s: %w", i, at, gpu.ErrUnsupported)
			}
		case gpu.AggMin, gpu.AggMax:
			if !sameType(a.Type, at) {
				return fmt.Errorf("aggregate %d: %s of %s gives %s, not %s", i, a.Kind, at, at.WithNullable(true), a.Type)
			}
		default:
			if a.Kind.IsStatAgg() {
				if err := checkStatAgg(i, a, at); err != nil {
					return err
				}
				continue
			}
			return fmt.Errorf("aggregate %d: unknown aggregate %s: %w", i, a.Kind, gpu.ErrUnsupported)
		}
	}
	return nil
}

// accum holds one aggregate's running values, one slot per group.
type accum struct {
	count []int64   // count(*)/count; number of non-null inputs otherwise
	s128  []int128  // integer/decimal sums; min/max of decimal128
	i64   []int64   // min/max of int64-stored kinds
	f64   []float64 // float sums and min/max; running mean of variances
	m2    []float64 // variances: sum of squared deviations (agg_stats.go)
}

// groupState is one worker's (or the merged) hash table and accumulators.
type groupState struct {
	ngroups int
	index   map[string]int32 // generic keys: encoded key -> group
	keys    []string         // generic: encoded key per group
	seen    []bool           // dense: group has a row
	accs    []accum
	// keyBytes is the length of the encoded keys, and reserved what the
	// state holds of the budget so far (reserveGrowth).
	keyBytes, reserved int64
}

// Per group, what a state holds besides its key's bytes: the accumulators
// (five 8- or 16-byte slots an aggregate) and, for generic keys, the map's
// entry and the key's string header (about 64 bytes).
const (
	accGroupBytes = 48
	mapGroupBytes = 64
)

// size estimates the state's bytes.
func (st *groupState) size() int64 {
	per := int64(accGroupBytes * len(st.accs))
	if st.index != nil {
		per += mapGroupBytes
	} else {
		per++ // seen
	}
	return int64(st.ngroups)*per + st.keyBytes
}

// reserveGrowth reserves in g what the state grew by since the last call.
func (st *groupState) reserveGrowth(g *grant) error {
	grown := st.size() - st.reserved
	if err := g.add(grown); err != nil {
		return err
	}
	st.reserved += max(grown, 0)
	return nil
}

// keyLayout decides how group keys become group numbers. Dense layout maps
// small domains (bool, int8, dict codes, each plus a null slot) straight to
// an array index; anything else goes through a hash map of encoded keys.
type keyLayout struct {
	types   []gpu.Type
	dense   bool
	domain  []int64 // dense: values per key, including the null slot
	stride  []int64
	groups  int64 // dense: number of slots
	dictLen []int64
}

const maxDenseGroups = 1 << 16

func newKeyLayout(pl *plan) keyLayout {
	p := pl.p
	kl := keyLayout{dense: true, groups: 1}
	for _, k := range p.Keys {
		t := p.Project[k].Type
		kl.types = append(kl.types, t)
		var dom int64
		switch t.Kind {
		case gpu.Bool:
			dom = 3
		case gpu.Int8:
			dom = 257
		case gpu.Dict:
			dom = int64(pl.projDicts[k].Len()) + 1
		}
		kl.dictLen = append(kl.dictLen, dom-1)
		if dom == 0 || kl.groups*dom > maxDenseGroups {
			kl.dense = false
		} else {
			kl.stride = append(kl.stride, kl.groups)
			kl.domain = append(kl.domain, dom)
			kl.groups *= dom
		}
	}
	return kl
}

func newGroupState(kl *keyLayout, naggs int) *groupState {
	st := &groupState{accs: make([]accum, naggs)}
	if kl.dense {
		st.ngroups = int(kl.groups)
		st.seen = make([]bool, st.ngroups)
		for i := range st.accs {
			st.accs[i].grow(st.ngroups)
		}
	} else {
		st.index = make(map[string]int32)
	}
	if len(kl.types) == 0 {
		st.seen[0] = true // no keys: exactly one row, even over no input
	}
	return st
}

func (a *accum) grow(n int) {
	for len(a.count) < n {
		a.count = append(a.count, 0)
		a.s128 = append(a.s128, int128{})
		a.i64 = append(a.i64, 0)
		a.f64 = append(a.f64, 0)
		a.m2 = append(a.m2, 0)
	}
}

// assign returns the group number of each row, creating groups as needed.
func (st *groupState) assign(kl *keyLayout, keys []*vec, n int) ([]int32, error) {
	gids := make([]int32, n)
	if kl.dense {
		for k, v := range keys {
			t, stride, null := kl.types[k].Kind, kl.stride[k], kl.domain[k]-1
			for i := 0; i < n; i++ {
				var x int64
				switch {
				case !v.isValid(i):
					x = null
				case t == gpu.Int8:
					x = v.i64[i] + 128
				default:
					x = v.i64[i]
				}
				if x < 0 || x > null || (x == null && v.isValid(i)) {
					return nil, fmt.Errorf("group key %d: dict code %d outside its dictionary", k, v.i64[i])
				}
				gids[i] += int32(x * stride)
			}
		}
		for _, g := range gids {
			st.seen[g] = true
		}
		return gids, nil
	}
	buf := make([]byte, 0, 17*len(keys))
	for i := 0; i < n; i++ {
		buf = encodeKey(buf[:0], kl, keys, i)
		g, ok := st.index[string(buf)]
		if !ok {
			g = int32(st.ngroups)
			s := string(buf)
			st.index[s] = g
			st.keys = append(st.keys, s)
			st.keyBytes += int64(len(s))
			st.ngroups++
			for a := range st.accs {
				st.accs[a].grow(st.ngroups)
			}
		}
		gids[i] = g
	}
	return gids, nil
}

// encodeKey appends an encoding of row i's keys: per key a validity byte,
// then the value (zero when null), 8 or 16 bytes, or for Str a uint32
// length and the bytes (length 0 when null), so that equal strings and
// only they encode equally. Floats are normalized so that -0 groups with 0
// and every NaN with every other NaN.
func encodeKey(buf []byte, kl *keyLayout, keys []*vec, i int) []byte {
	for k, v := range keys {
		valid := v.isValid(i)
		if valid {
			buf = append(buf, 1)
		} else {
			buf = append(buf, 0)
		}
		if kl.types[k].Kind == gpu.Str {
			var b []byte
			if valid {
				b = v.str.value(i)
			}
			buf = binary.LittleEndian.AppendUint32(buf, uint32(len(b)))
			buf = append(buf, b...)
			continue
		}
		switch storageOf(kl.types[k].Kind) {
		case stInt:
			var x int64
			if valid {
				x = v.i64[i]
			}
			buf = binary.LittleEndian.AppendUint64(buf, uint64(x))
		case stFloat:
			var bitsv uint64
			if valid {
				f := v.f64[i]
				switch {
				case f == 0:
					bitsv = 0
				case math.IsNaN(f):
					bitsv = math.Float64bits(math.NaN())
				default:
					bitsv = math.Float64bits(f)
				}
			}
			buf = binary.LittleEndian.AppendUint64(buf, bitsv)
		case st128:
			var w int128
			if valid {
				w = v.i128[i]
			}
			buf = binary.LittleEndian.AppendUint64(buf, w.lo)
			buf = binary.LittleEndian.AppendUint64(buf, uint64(w.hi))
		}
	}
	return buf
}

// update folds one batch's argument values into the accumulators.
func (st *groupState) update(p *gpu.Pipeline, args []*vec, gids []int32) error {
	for a, ag := range p.Aggs {
		acc := &st.accs[a]
		if ag.Kind == gpu.AggCountStar {
			for _, g := range gids {
				acc.count[g]++
			}
			continue
		}
		x := args[a]
		at := p.Project[ag.Arg].Type
		if ag.Kind.IsStatAgg() {
			updateStat(acc, x, gids)
			continue
		}
		switch ag.Kind {
		case gpu.AggCount:
			for i, g := range gids {
				if x.isValid(i) {
					acc.count[g]++
				}
			}
		case gpu.AggSum:
			switch storageOf(at.Kind) {
			case stFloat:
				for i, g := range gids {
					if x.isValid(i) {
						acc.f64[g] += x.f64[i]
						acc.count[g]++
					}
				}
			case stInt:
				for i, g := range gids {
					if x.isValid(i) {
						s, ok := addI64(acc.s128[g], x.i64[i])
						if !ok {
							return sumOverflow(ag, at)
						}
						acc.s128[g] = s
						acc.count[g]++
					}
				}
			case st128:
				for i, g := range gids {
					if x.isValid(i) {
						s, ok := add128(acc.s128[g], x.i128[i])
						if !ok {
							return sumOverflow(ag, at)
						}
						acc.s128[g] = s
						acc.count[g]++
					}
				}
			}
		case gpu.AggMin, gpu.AggMax:
			isMax := ag.Kind == gpu.AggMax
			for i, g := range gids {
				if !x.isValid(i) {
					continue
				}
				first := acc.count[g] == 0
				acc.count[g]++
				switch storageOf(at.Kind) {
				case stInt:
					if v := x.i64[i]; first || (v > acc.i64[g]) == isMax && v != acc.i64[g] {
						acc.i64[g] = v
					}
				case st128:
					if v := x.i128[i]; first || cmp128(v, acc.s128[g]) == sign(isMax) {
						acc.s128[g] = v
					}
				case stFloat:
					if v := x.f64[i]; first || gpu.FloatOrder(v, acc.f64[g]) == sign(isMax) {
						acc.f64[g] = v
					}
				}
			}
		}
	}
	return nil
}

func sign(isMax bool) int {
	if isMax {
		return 1
	}
	return -1
}

func sumOverflow(ag gpu.Agg, at gpu.Type) error {
	return fmt.Errorf("sum(#%d) of %s beyond 128 bits: %w", ag.Arg, at, gpu.ErrOverflow)
}

// mergeInto folds src group sg into dst group dg.
func mergeGroup(p *gpu.Pipeline, dst *groupState, dg int32, src *groupState, sg int32) error {
	for a, ag := range p.Aggs {
		d, s := &dst.accs[a], &src.accs[a]
		if s.count[sg] == 0 && ag.Kind != gpu.AggCountStar && ag.Kind != gpu.AggCount {
			continue
		}
		first := d.count[dg] == 0
		before := d.count[dg]
		d.count[dg] += s.count[sg]
		if ag.Kind == gpu.AggCountStar || ag.Kind == gpu.AggCount {
			continue
		}
		if ag.Kind.IsStatAgg() {
			mergeStat(d, dg, s, sg, before)
			continue
		}
		at := p.Project[ag.Arg].Type
		st := storageOf(at.Kind)
		isMax := ag.Kind == gpu.AggMax
		switch ag.Kind {
		case gpu.AggSum:
			if st == stFloat {
				d.f64[dg] += s.f64[sg]
			} else {
				v, ok := add128(d.s128[dg], s.s128[sg])
				if !ok {
					return sumOverflow(ag, at)
				}
				d.s128[dg] = v
			}
		case gpu.AggMin, gpu.AggMax:
			switch st {
			case stInt:
				if v := s.i64[sg]; first || (v > d.i64[dg]) == isMax && v != d.i64[dg] {
					d.i64[dg] = v
				}
			case st128:
				if v := s.s128[sg]; first || cmp128(v, d.s128[dg]) == sign(isMax) {
					d.s128[dg] = v
				}
			case stFloat:
				if v := s.f64[sg]; first || gpu.FloatOrder(v, d.f64[dg]) == sign(isMax) {
					d.f64[dg] = v
				}
			}
		}
	}
	return nil
}

func (d *Device) aggregate(ctx context.Context, pl *plan) ([]gpu.Column, error) {
	p := pl.p
	kl := newKeyLayout(pl)
	// The workers' states grow a chunk at a time (a chunk makes at most
	// chunkRows groups) and reserve their growth after each; the merged
	// state and the output reserve theirs as they go.
	res, err := d.reserve(fmt.Sprintf("an aggregate of %d rows by %d keys", pl.n, len(p.Keys)), 0)
	if err != nil {
		return nil, err
	}
	defer res.done()
	states := make([]*groupState, d.workers)
	err = d.parallel(ctx, numChunks(pl.n), func(w, c int) error {
		b, err := pl.filtered(c)
		if err != nil {
			return err
		}
		if states[w] == nil {
			states[w] = newGroupState(&kl, len(p.Aggs))
		}
		st := states[w]
		// Evaluate each needed projection once.
		proj := make([]*vec, len(p.Project))
		get := func(i int) (*vec, error) {
			if proj[i] == nil {
				v, err := eval(p.Project[i], b)
				if err != nil {
					return nil, err
				}
				proj[i] = v
			}
			return proj[i], nil
		}
		keys := make([]*vec, len(p.Keys))
		for k, i := range p.Keys {
			if keys[k], err = get(i); err != nil {
				return err
			}
		}
		args := make([]*vec, len(p.Aggs))
		for a, ag := range p.Aggs {
			if ag.Kind != gpu.AggCountStar {
				if args[a], err = get(ag.Arg); err != nil {
					return err
				}
			}
		}
		gids, err := st.assign(&kl, keys, b.n)
		if err != nil {
			return err
		}
		if err := st.reserveGrowth(res); err != nil {
			return err
		}
		return st.update(p, args, gids)
	})
	if err != nil {
		return nil, err
	}
	// Merge the workers' partial states.
	global := newGroupState(&kl, len(p.Aggs))
	tick := newTicker(ctx)
	for _, st := range states {
		if st == nil {
			continue
		}
		for g := 0; g < st.ngroups; g++ {
			if err := tick.tick(1); err != nil {
				return nil, err
			}
			if g%chunkRows == 0 {
				if err := global.reserveGrowth(res); err != nil {
					return nil, err
				}
			}
			dg := int32(g)
			if kl.dense {
				if !st.seen[g] {
					continue
				}
				global.seen[g] = true
			} else {
				var ok bool
				if dg, ok = global.index[st.keys[g]]; !ok {
					dg = int32(global.ngroups)
					global.index[st.keys[g]] = dg
					global.keys = append(global.keys, st.keys[g])
					global.ngroups++
					for a := range global.accs {
						global.accs[a].grow(global.ngroups)
					}
				}
			}
			if err := mergeGroup(p, global, dg, st, int32(g)); err != nil {
				return nil, err
			}
		}
	}
	// The output: every group's row, and the characters of Str keys (no
	// more than the workers' encoded keys hold).
	var rowOut, chars int64
	for _, t := range p.OutputTypes() {
		rowOut += rowBytes(t.WithNullable(true))
	}
	if slices.ContainsFunc(kl.types, func(t gpu.Type) bool { return t.Kind == gpu.Str }) {
		for _, st := range states {
			if st != nil {
				chars += st.keyBytes
			}
		}
	}
	if err := res.add(times(int64(global.ngroups), rowOut) + chars); err != nil {
		return nil, err
	}
	return d.emitGroups(pl, &kl, global)
}

// emitGroups turns the merged state into output columns.
func (d *Device) emitGroups(pl *plan, kl *keyLayout, st *groupState) ([]gpu.Column, error) {
	p := pl.p
	var groups []int32
	for g := 0; g < st.ngroups; g++ {
		if !kl.dense || st.seen[g] {
			groups = append(groups, int32(g))
		}
	}
	n := len(groups)
	out := make([]gpu.Column, 0, len(p.Keys)+len(p.Aggs))
	fail := func(err error) ([]gpu.Column, error) {
		for _, c := range out {
			c.Release()
		}
		return nil, err
	}
	for k, pi := range p.Keys {
		if err := gpu.CtxErr(pl.ctx); err != nil {
			return fail(err)
		}
		t := kl.types[k]
		v := newVec(t.Kind, n, true)
		for j, g := range groups {
			if kl.dense {
				x := (int64(g) / kl.stride[k]) % kl.domain[k]
				if x == kl.domain[k]-1 {
					continue // the null slot
				}
				if t.Kind == gpu.Int8 {
					x -= 128
				}
				v.valid[j], v.i64[j] = true, x
				continue
			}
			decodeKey(st.keys[g], kl, k, v, j)
		}
		if v.str != nil && len(v.str.chars) > gpu.MaxStrChars {
			return fail(fmt.Errorf("group key %d: the groups' strings hold more than %d bytes (int32 offsets): %w", k, int64(gpu.MaxStrChars), gpu.ErrUnsupported))
		}
		c, err := d.output(t, n, v, pl.projDicts[pi], fmt.Sprintf("group key %d", k))
		if err != nil {
			return fail(err)
		}
		out = append(out, c)
	}
	for a, ag := range p.Aggs {
		if err := gpu.CtxErr(pl.ctx); err != nil {
			return fail(err)
		}
		acc := &st.accs[a]
		v := newVec(ag.Type.Kind, n, true)
		for j, g := range groups {
			switch ag.Kind {
			case gpu.AggCountStar, gpu.AggCount:
				v.i64[j], v.valid[j] = acc.count[g], true
				continue
			}
			if ag.Kind.IsStatAgg() {
				v.f64[j], v.valid[j] = statValue(ag.Kind, acc, g)
				continue
			}
			if acc.count[g] == 0 {
				continue // no non-null input: null
			}
			v.valid[j] = true
			switch {
			case v.i128 != nil:
				v.i128[j] = acc.s128[g]
			case v.f64 != nil:
				v.f64[j] = acc.f64[g]
			default:
				v.i64[j] = acc.i64[g]
			}
		}
		c, err := d.output(ag.Type, n, v, aggDict(pl, ag), fmt.Sprintf("aggregate %d (%s)", a, ag.Kind))
		if err != nil {
			return fail(err)
		}
		out = append(out, c)
	}
	return out, nil
}

func aggDict(pl *plan, ag gpu.Agg) *array.String {
	if ag.Kind == gpu.AggMin || ag.Kind == gpu.AggMax {
		return pl.projDicts[ag.Arg]
	}
	return nil
}

// decodeKey writes key k of an encoded group key into v[j]; a Str key's
// bytes are appended to v.str's characters (groups are decoded in order j).
func decodeKey(s string, kl *keyLayout, k int, v *vec, j int) {
	off := 0
	for i := 0; i < k; i++ {
		off += 1 + keyWidth(kl.types[i].Kind, s[off+1:])
	}
	if kl.types[k].Kind == gpu.Str {
		w := keyWidth(gpu.Str, s[off+1:])
		v.str.chars = append(v.str.chars, s[off+1+4:off+1+w]...)
		v.str.offs[j+1] = int32(len(v.str.chars))
	}
	if s[off] == 0 {
		return // null
	}
	v.valid[j] = true
	if kl.types[k].Kind == gpu.Str {
		return
	}
	b := []byte(s[off+1:])
	switch storageOf(kl.types[k].Kind) {
	case stInt:
		v.i64[j] = int64(binary.LittleEndian.Uint64(b))
	case stFloat:
		v.f64[j] = math.Float64frombits(binary.LittleEndian.Uint64(b))
	case st128:
		v.i128[j] = int128{lo: binary.LittleEndian.Uint64(b), hi: int64(binary.LittleEndian.Uint64(b[8:]))}
	}
}

// keyWidth is the size of one encoded key value of kind k (after its
// validity byte) at the start of s.
func keyWidth(k gpu.Kind, s string) int {
	if k == gpu.Str {
		return 4 + int(binary.LittleEndian.Uint32([]byte(s[:4])))
	}
	return storageOf(k).width()
}

func (s storage) width() int {
	if s == st128 {
		return 16
	}
	return 8
}
