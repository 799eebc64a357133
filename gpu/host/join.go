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

// The join primitives (gpu/join.go states their semantics). The host
// versions are written to be plainly right: a Go map from an encoding of
// the whole key to the build rows that carry it.

// HashJoin returns the (probe row, build row) pairs whose keys are equal,
// in probe order and, for one probe row, in build order.
func (d *Device) HashJoin(ctx context.Context, build, probe []gpu.Column, nullsEqual []bool) (gpu.Column, gpu.Column, error) {
	if err := d.checkOpen("hash join"); err != nil {
		return nil, nil, err
	}
	if len(build) == 0 || len(build) != len(probe) {
		return nil, nil, fmt.Errorf("hash join: %d build keys and %d probe keys (want the same number, at least one)", len(build), len(probe))
	}
	if nullsEqual != nil && len(nullsEqual) != len(build) {
		return nil, nil, fmt.Errorf("hash join: %d nullsEqual flags for %d keys", len(nullsEqual), len(build))
	}
	bc, err := d.ownAll(build, "hash join: build key")
	if err != nil {
		return nil, nil, err
	}
	pc, err := d.ownAll(probe, "hash join: probe key")
	if err != nil {
		return nil, nil, err
	}
	nb, np := bc[0].n, pc[0].n
	// The hash table first; the pairs reserve their room as they grow.
	g, err := d.reserve(fmt.Sprintf("hash join of %d build rows and %d probe rows", nb, np), times(int64(nb), joinTableRowBytes(len(bc))))
	if err != nil {
		return nil, nil, err
	}
	defer g.done()
	for i := range bc {
		bt, pt := bc[i].typ, pc[i].typ
		if bt.Kind == gpu.Str || pt.Kind == gpu.Str {
			// The contract (gpu/ext_strings.go): the engine keeps a join
			// key dictionary-encoded, whose codes hash and compare.
			return nil, nil, fmt.Errorf("hash join: key %d is %s on the build side and %s on the probe side: strings in Arrow layout are no join keys: %w", i, bt, pt, gpu.ErrUnsupported)
		}
		if bt.Kind != pt.Kind || bt.Scale != pt.Scale {
			return nil, nil, fmt.Errorf("hash join: key %d is %s on the build side and %s on the probe side (the engine must cast them to one type)", i, bt, pt)
		}
		if bt.Kind == gpu.Dict && bc[i].dict != nil && pc[i].dict != nil {
			if _, err := sameDict(bc[i].dict, pc[i].dict); err != nil {
				if err := g.add(times(int64(np), 8)); err != nil {
					return nil, nil, err
				}
				pc[i] = inDictionary(pc[i], bc[i].dict)
			}
		}
	}
	d.count(func(s *gpu.Stats) { s.KernelLaunches += 2 })
	eqNull := func(i int) bool { return nullsEqual != nil && nullsEqual[i] }

	tick := newTicker(ctx)
	table := make(map[string][]int32, nb)
	var key []byte
	for r := 0; r < nb; r++ {
		if err := tick.tick(1); err != nil {
			return nil, nil, err
		}
		var ok bool
		if key, ok = encodeJoinKey(key[:0], bc, r, eqNull); ok {
			table[string(key)] = append(table[string(key)], int32(r))
		}
	}
	var pIdx, bIdx []int64
	for r := 0; r < np; r++ {
		if err := tick.tick(1); err != nil {
			return nil, nil, err
		}
		var ok bool
		if key, ok = encodeJoinKey(key[:0], pc, r, eqNull); !ok {
			continue
		}
		match := table[string(key)]
		if need := len(pIdx) + len(match); need > cap(pIdx) {
			// Keys that repeat on both sides multiply: the pairs are
			// reserved before the room for them is allocated.
			grown := max(need, cap(pIdx)+cap(pIdx)/2, 1024)
			if err := g.add(times(int64(grown-cap(pIdx)), 16)); err != nil {
				return nil, nil, err
			}
			pIdx = slices.Grow(pIdx, grown-len(pIdx))
			bIdx = slices.Grow(bIdx, grown-len(bIdx))
		}
		for _, b := range match {
			pIdx = append(pIdx, int64(r))
			bIdx = append(bIdx, int64(b))
		}
		if err := tick.tick(len(match)); err != nil {
			return nil, nil, err
		}
	}
	return d.indexColumn(pIdx), d.indexColumn(bIdx), nil
}

// joinTableRowBytes estimates what a build row costs HashJoin's table: its
// encoded key (a validity byte and 8 bytes a key; a 16-byte decimal128 is
// rare), the map's entry and the row list's header and element.
func joinTableRowBytes(keys int) int64 { return int64(9*keys) + 80 }

// inDictionary is Dict column c with its codes mapped into dictionary to
// (gpu.DictCodeMap; -1 where to lacks the string), for comparing them with
// codes of to. The result is the join's own and never leaves it.
func inDictionary(c *column, to *array.String) *column {
	m := gpu.DictCodeMap(c.dict, to)
	codes := make([]int64, c.n)
	for r := range codes {
		if c.data.isValid(r) {
			codes[r] = int64(m[c.data.i64[r]])
		}
	}
	return &column{dev: c.dev, typ: c.typ, n: c.n, data: &vec{i64: codes, valid: c.data.valid}, dict: to}
}

// encodeJoinKey appends row r's key to b; false when a key is null and nulls
// do not match. Floats are normalized (one NaN, -0 as 0) so that equal
// values encode equally.
func encodeJoinKey(b []byte, cols []*column, r int, nullsEqual func(int) bool) ([]byte, bool) {
	for i, c := range cols {
		v := c.data
		if !v.isValid(r) {
			if !nullsEqual(i) {
				return b, false
			}
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		switch {
		case v.i64 != nil:
			b = binary.LittleEndian.AppendUint64(b, uint64(v.i64[r]))
		case v.f64 != nil:
			f := v.f64[r]
			if math.IsNaN(f) {
				f = math.NaN()
			} else if f == 0 {
				f = 0
			}
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
		default:
			w := v.i128[r]
			b = binary.LittleEndian.AppendUint64(b, w.lo)
			b = binary.LittleEndian.AppendUint64(b, uint64(w.hi))
		}
	}
	return b, true
}

// Gather builds columns from the rows idx holds.
func (d *Device) Gather(ctx context.Context, cols []gpu.Column, idx gpu.Column, padNulls bool) ([]gpu.Column, error) {
	if err := d.checkOpen("gather"); err != nil {
		return nil, err
	}
	ic, err := d.indexOf(idx, "gather")
	if err != nil {
		return nil, err
	}
	hc, err := d.ownAll(cols, "gather: column")
	if err != nil {
		return nil, err
	}
	d.count(func(s *gpu.Stats) { s.KernelLaunches++ })
	var rowOut int64 = 4 // the row list each column is gathered through
	for _, c := range hc {
		rowOut += rowBytes(c.typ.WithNullable(c.typ.Nullable || padNulls))
	}
	g, err := d.reserve(fmt.Sprintf("gather of %d rows of %d columns", len(ic), len(hc)), times(int64(len(ic)), rowOut))
	if err != nil {
		return nil, err
	}
	defer g.done()
	out := make([]gpu.Column, 0, len(hc))
	fail := func(err error) ([]gpu.Column, error) {
		releaseAll(out)
		return nil, err
	}
	for i, c := range hc {
		rows := make([]int32, len(ic))
		var valid []bool
		if padNulls {
			valid = make([]bool, len(ic))
		}
		err := inRanges(ctx, len(ic), func(lo, hi int) error {
			for j := lo; j < hi; j++ {
				switch r := ic[j]; {
				case r >= 0 && int(r) < c.n:
					rows[j] = int32(r)
					if valid != nil {
						valid[j] = c.data.isValid(int(r))
					}
				case r < 0 && padNulls:
					// rows[j] = 0 reads a real row (when there is one), whose
					// value is masked below.
				default:
					return fmt.Errorf("gather: index %d at row %d outside column %d's %d rows", r, j, i, c.n)
				}
			}
			return nil
		})
		if err != nil {
			return fail(err)
		}
		var v *vec
		if c.n == 0 {
			// Every index is negative here: all nulls.
			v = newVec(c.typ.Kind, len(ic), true)
		} else if v, err = c.data.gatherCtx(ctx, rows); err != nil {
			return fail(err)
		}
		t := c.typ
		if padNulls {
			t.Nullable = true
			v.valid = valid
			for j, ok := range valid {
				if !ok {
					zeroAt(v, j)
				}
			}
		}
		out = append(out, d.newColumn(t, len(ic), v, c.dict))
	}
	return out, nil
}

// Unmatched returns the rows of [0, n) that idx does not hold.
func (d *Device) Unmatched(ctx context.Context, idx gpu.Column, n int) (gpu.Column, error) {
	if err := d.checkOpen("unmatched"); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("unmatched: negative row count %d", n)
	}
	ic, err := d.indexOf(idx, "unmatched")
	if err != nil {
		return nil, err
	}
	d.count(func(s *gpu.Stats) { s.KernelLaunches++ })
	g, err := d.reserve(fmt.Sprintf("unmatched rows of %d", n), int64(n))
	if err != nil {
		return nil, err
	}
	defer g.done()
	seen := make([]bool, n)
	left := n
	tick := newTicker(ctx)
	for j, r := range ic {
		if err := tick.tick(1); err != nil {
			return nil, err
		}
		if r >= int64(n) {
			return nil, fmt.Errorf("unmatched: index %d at row %d outside [0, %d)", r, j, n)
		}
		if r >= 0 && !seen[r] {
			seen[r] = true
			left--
		}
	}
	if err := g.add(times(int64(left), 8)); err != nil {
		return nil, err
	}
	rows := make([]int64, 0, left)
	for r, s := range seen {
		if err := tick.tick(1); err != nil {
			return nil, err
		}
		if !s {
			rows = append(rows, int64(r))
		}
	}
	return d.indexColumn(rows), nil
}

// Concat appends the parts' columns.
func (d *Device) Concat(ctx context.Context, parts [][]gpu.Column) ([]gpu.Column, error) {
	if err := d.checkOpen("concat"); err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("concat: no parts")
	}
	hp := make([][]*column, len(parts))
	for k, p := range parts {
		var err error
		if hp[k], err = d.ownAll(p, fmt.Sprintf("concat: part %d column", k)); err != nil {
			return nil, err
		}
		if len(p) != len(parts[0]) {
			return nil, fmt.Errorf("concat: part %d has %d columns, part 0 has %d", k, len(p), len(parts[0]))
		}
	}
	d.count(func(s *gpu.Stats) { s.KernelLaunches++ })
	// Every output column, with the characters of Str parts that concatStr
	// copies into fresh buffers (parts of different uploads).
	var need int64
	for i := range parts[0] {
		t := hp[0][i].typ
		var rows, chars int64
		strs := make([]*vec, 0, len(hp))
		for _, p := range hp {
			t.Nullable = t.Nullable || p[i].typ.Nullable
			rows += int64(p[i].n)
			chars += p[i].CharBytes()
			strs = append(strs, p[i].data)
		}
		need += times(rows, rowBytes(t))
		if t.Kind == gpu.Str && !sameUpload(strs) {
			need += chars
		}
	}
	g, err := d.reserve(fmt.Sprintf("concat of %d parts", len(parts)), need)
	if err != nil {
		return nil, err
	}
	defer g.done()
	out := make([]gpu.Column, 0, len(parts[0]))
	fail := func(err error) ([]gpu.Column, error) {
		releaseAll(out)
		return nil, err
	}
	tick := newTicker(ctx)
	for i := range parts[0] {
		t := hp[0][i].typ
		total := 0
		for k, p := range hp {
			c := p[i]
			if c.typ.Kind != t.Kind || c.typ.Scale != t.Scale {
				return fail(fmt.Errorf("concat: column %d is %s in part %d and %s in part 0", i, c.typ, k, t))
			}
			t.Nullable = t.Nullable || c.typ.Nullable
			total += c.n
		}
		// Dict parts of different dictionaries (a UNION of two tables'
		// strings) go under their merged dictionary, codes mapped.
		var dict *array.String
		var codeMaps [][]int32
		if t.Kind == gpu.Dict {
			dicts := make([]*array.String, len(hp))
			for k, p := range hp {
				dicts[k] = p[i].dict
			}
			merged, same := gpu.MergeDictionaries(dicts...)
			if merged != nil {
				defer merged.Release()
			}
			if merged != nil && merged.Len() > gpu.MaxDictionary {
				return fail(fmt.Errorf("concat: column %d: %d distinct strings over the parts (at most %d): %w", i, merged.Len(), gpu.MaxDictionary, gpu.ErrUnsupported))
			}
			dict = merged
			if !same {
				codeMaps = make([][]int32, len(hp))
				for k, d := range dicts {
					if d != nil && d.Len() > 0 {
						codeMaps[k] = gpu.DictCodeMap(d, merged)
					}
				}
			}
		}
		var v *vec
		if t.Kind == gpu.Str {
			strs, ns := make([]*vec, len(hp)), make([]int, len(hp))
			for k, p := range hp {
				strs[k], ns[k] = p[i].data, p[i].n
			}
			s, err := concatStr(strs, ns)
			if err != nil {
				return fail(fmt.Errorf("concat: column %d: %w", i, err))
			}
			v = &vec{str: s}
			if t.Nullable {
				v.valid = make([]bool, total)
			}
		} else {
			v = newVec(t.Kind, total, t.Nullable)
		}
		at := 0
		for k, p := range hp {
			c := p[i]
			if err := tick.tick(c.n); err != nil {
				return fail(err)
			}
			switch {
			case v.str != nil: // above
			case codeMaps != nil && codeMaps[k] != nil:
				m := codeMaps[k]
				for r := 0; r < c.n; r++ {
					if c.data.isValid(r) {
						v.i64[at+r] = int64(m[c.data.i64[r]])
					}
				}
			case v.i64 != nil:
				copy(v.i64[at:], c.data.i64[:c.n])
			case v.f64 != nil:
				copy(v.f64[at:], c.data.f64[:c.n])
			default:
				copy(v.i128[at:], c.data.i128[:c.n])
			}
			if v.valid != nil {
				for r := 0; r < c.n; r++ {
					v.valid[at+r] = c.data.isValid(r)
				}
			}
			at += c.n
		}
		out = append(out, d.newColumn(t, total, v, dict))
	}
	return out, nil
}

func (d *Device) ownAll(cols []gpu.Column, what string) ([]*column, error) {
	out := make([]*column, len(cols))
	for i, c := range cols {
		var err error
		if out[i], err = d.own(c, fmt.Sprintf("%s %d", what, i)); err != nil {
			return nil, err
		}
		if out[i].n != out[0].n {
			return nil, fmt.Errorf("%s %d has %d rows, %s 0 has %d", what, i, out[i].n, what, out[0].n)
		}
	}
	return out, nil
}

// indexOf checks that idx is a row-index column and returns its values.
func (d *Device) indexOf(idx gpu.Column, what string) ([]int64, error) {
	c, err := d.own(idx, what+": index column")
	if err != nil {
		return nil, err
	}
	if c.typ.Kind != gpu.JoinIndexType.Kind || c.typ.Nullable {
		return nil, fmt.Errorf("%s: the index column is %s, want non-nullable %s", what, c.typ, gpu.JoinIndexType)
	}
	return c.data.i64[:c.n], nil
}

func (d *Device) indexColumn(rows []int64) *column {
	if rows == nil {
		rows = []int64{}
	}
	return d.newColumn(gpu.JoinIndexType, len(rows), &vec{i64: rows}, nil)
}
