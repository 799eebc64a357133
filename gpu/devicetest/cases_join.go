package devicetest

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rigel-db/rigel/gpu"
)

// Cases for the join primitives (gpu/join.go): HashJoin, Gather, Unmatched,
// Concat. Expected pairs come from a nested loop (or, for the large case, a
// Go map) over the same Go values, compared as multisets since the pair
// order is free.
func joinCases() []testCase {
	return []testCase{
		{"join/key_kinds", testJoinKeyKinds},
		{"join/float_keys", testJoinFloatKeys},
		{"join/dict_keys", testJoinDictKeys},
		{"join/multi_key", testJoinMultiKey},
		{"join/many_to_many", testJoinManyToMany},
		{"join/empty_and_no_match", testJoinEmpty},
		{"join/random_large", testJoinRandomLarge},
		{"join/bad_input", testJoinBadInput},
		{"gather/kinds", testGatherKinds},
		{"gather/pad_nulls", testGatherPadNulls},
		{"gather/empty", testGatherEmpty},
		{"gather/bad_input", testGatherBadInput},
		{"unmatched/basic", testUnmatchedBasic},
		{"unmatched/random", testUnmatchedRandom},
		{"unmatched/bad_input", testUnmatchedBadInput},
		{"concat/mixed", testConcatMixed},
		{"concat/bad_input", testConcatBadInput},
	}
}

// keyEqual is SQL equality of two non-null Go test values as MakeArray takes
// them, with the IR's float rules (NaN = NaN, -0 = 0).
func keyEqual(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y := b.(float64)
		if math.IsNaN(x) || math.IsNaN(y) {
			return math.IsNaN(x) && math.IsNaN(y)
		}
		return x == y
	case *big.Int:
		return x.Cmp(b.(*big.Int)) == 0
	case int:
		return int64(x) == toI64(b)
	case int64:
		return x == toI64(b)
	}
	return a == b
}

func toI64(v any) int64 {
	if i, ok := v.(int); ok {
		return int64(i)
	}
	return v.(int64)
}

// naivePairs is the nested-loop join of key columns build[k] and probe[k].
func naivePairs(build, probe [][]any, nullsEqual []bool) []string {
	var out []string
	nb, np := len(build[0]), len(probe[0])
	for p := 0; p < np; p++ {
		for b := 0; b < nb; b++ {
			match := true
			for k := range build {
				bv, pv := build[k][b], probe[k][p]
				if bv == nil || pv == nil {
					match = bv == nil && pv == nil && nullsEqual != nil && nullsEqual[k]
				} else {
					match = keyEqual(bv, pv)
				}
				if !match {
					break
				}
			}
			if match {
				out = append(out, Row(I(int64(p)), I(int64(b))))
			}
		}
	}
	return out
}

// uploadKeys uploads one column per key.
func uploadKeys(t testing.TB, dev gpu.Device, types []arrow.DataType, vals [][]any) []gpu.Column {
	t.Helper()
	cols := make([]gpu.Column, len(vals))
	for k := range vals {
		cols[k] = Upload(t, dev, MakeArray(types[k], vals[k]...))
	}
	return cols
}

// joinRows runs HashJoin and returns its pairs as "probe\tbuild" rows,
// after checking the shape of the two index columns.
func joinRows(t testing.TB, dev gpu.Device, build, probe []gpu.Column, nullsEqual []bool) []string {
	t.Helper()
	p, b, err := dev.HashJoin(context.Background(), build, probe, nullsEqual)
	if err != nil {
		t.Fatalf("hash join: %v", err)
	}
	defer p.Release()
	defer b.Release()
	for _, c := range []gpu.Column{p, b} {
		if c.Type() != gpu.JoinIndexType {
			t.Fatalf("hash join: index column typed %s, want %s", c.Type(), gpu.JoinIndexType)
		}
	}
	if p.Len() != b.Len() {
		t.Fatalf("hash join: %d probe indexes and %d build indexes", p.Len(), b.Len())
	}
	return Rows(t, dev, []gpu.Column{p, b})
}

// checkJoin uploads the keys, joins them with nullsEqual all false, all
// true and (for several keys) mixed, and compares with naivePairs.
func checkJoin(t *testing.T, dev gpu.Device, types []arrow.DataType, build, probe [][]any) {
	t.Helper()
	bc := uploadKeys(t, dev, types, build)
	defer ReleaseCols(bc)
	pc := uploadKeys(t, dev, types, probe)
	defer ReleaseCols(pc)
	flags := [][]bool{nil, make([]bool, len(types)), make([]bool, len(types))}
	for k := range types {
		flags[2][k] = true
	}
	if len(types) > 1 {
		mixed := make([]bool, len(types))
		mixed[0] = true
		flags = append(flags, mixed)
	}
	for _, ne := range flags {
		got := joinRows(t, dev, bc, pc, ne)
		if err := EqualRows(got, naivePairs(build, probe, ne), false, 0); err != nil {
			t.Fatalf("keys %v, nullsEqual %v: %v", types, ne, err)
		}
	}
}

func bigPow2(e uint, plus int64) *big.Int {
	v := new(big.Int).Lsh(big.NewInt(1), e)
	return v.Add(v, big.NewInt(plus))
}

// testJoinKeyKinds: one key of each fixed-width kind, with duplicates on
// both sides, nulls on both sides, and a probe value absent from the build.
// Values that differ only in high bits (or the high word of a decimal128)
// must not match.
func testJoinKeyKinds(t *testing.T, dev gpu.Device) {
	neg30 := new(big.Int).Neg(pow10(30))
	for _, c := range []struct {
		name string
		dt   arrow.DataType
		v    [4]any
	}{
		{"bool", Bool, [4]any{true, false, true, false}},
		{"int8", I8, [4]any{int64(-128), int64(127), int64(0), int64(-1)}},
		{"int16", I16, [4]any{int64(-32768), int64(256), int64(1), int64(0)}},
		{"int32", I32, [4]any{int64(-7), int64(65536), int64(1), int64(1 << 30)}},
		{"int64", I64, [4]any{int64(1), int64(1 + 1<<32), int64(-1), int64(math.MinInt64)}},
		{"date32", Date, [4]any{"1995-03-15", "1970-01-01", "1969-12-31", "2024-02-29"}},
		{"decimal64", Dec(12, 2), [4]any{int64(-100), int64(12345678901), int64(100), int64(0)}},
		{"decimal128", Dec(38, 4), [4]any{bigPow2(64, 5), big.NewInt(5), neg30, bigPow2(100, -1)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := c.v
			build := [][]any{{v[0], v[1], v[1], nil, v[2], nil, v[0]}}
			probe := [][]any{{v[1], nil, v[0], v[3], v[2], v[1], nil}}
			checkJoin(t, dev, []arrow.DataType{c.dt}, build, probe)
		})
	}
}

// testJoinFloatKeys: NaN equals NaN and -0 equals 0, for both widths.
func testJoinFloatKeys(t *testing.T, dev gpu.Device) {
	nan, negZero := math.NaN(), math.Copysign(0, -1)
	build := [][]any{{0.0, nan, negZero, 1.5, nil, nan, -2.25, math.Inf(1)}}
	probe := [][]any{{negZero, nan, 1.5, 2.0, nil, 0.0, math.Inf(-1), math.Inf(1), -2.25}}
	for _, dt := range []arrow.DataType{F64, F32} {
		t.Run(dt.String(), func(t *testing.T) { checkJoin(t, dev, []arrow.DataType{dt}, build, probe) })
	}
}

// testJoinDictKeys: string keys whose columns carry equal dictionaries
// (the same distinct strings), and keys gathered from one column, which
// share its dictionary while holding different subsets of it.
func testJoinDictKeys(t *testing.T, dev gpu.Device) {
	build := [][]any{{"b", "a", nil, "c", "a", "é", ""}}
	probe := [][]any{{"c", "a", "", "b", nil, "a", "é", "b"}}
	checkJoin(t, dev, []arrow.DataType{String}, build, probe)

	// Sides with different dictionaries (two tables' columns) compare their
	// strings: strings on one side only, nulls, and a second key.
	checkJoin(t, dev, []arrow.DataType{String},
		[][]any{{"b", "zz", nil, "a", "b", "only build", "é"}},
		[][]any{{"a", "q", nil, "b", "", "zz", "only probe", "b", "é"}})
	checkJoin(t, dev, []arrow.DataType{String, I64},
		[][]any{{"b", "zz", nil, "a", "b", "x"}, {int64(1), int64(2), int64(3), nil, int64(1), int64(5)}},
		[][]any{{"a", "b", nil, "b", "zz", "y", "x"}, {nil, int64(1), int64(3), int64(2), int64(2), int64(5), int64(5)}})
	checkJoin(t, dev, []arrow.DataType{String},
		[][]any{{"p", "q", "p"}}, [][]any{{nil, nil}}) // a probe side of nulls only

	all := []any{"x", "y", "z", nil, "w"}
	col := Upload(t, dev, MakeArray(String, all...))
	defer col.Release()
	pick := func(rows ...any) (gpu.Column, []any) {
		idx := Upload(t, dev, MakeArray(I32, rows...))
		defer idx.Release()
		out, err := dev.Gather(context.Background(), []gpu.Column{col}, idx, false)
		if err != nil {
			t.Fatalf("gather: %v", err)
		}
		vals := make([]any, len(rows))
		for i, r := range rows {
			vals[i] = all[toI64(r)]
		}
		return out[0], vals
	}
	bcol, bvals := pick(int64(0), int64(0), int64(3), int64(2))
	defer bcol.Release()
	pcol, pvals := pick(int64(4), int64(2), int64(0), int64(3), int64(1))
	defer pcol.Release()
	for _, ne := range [][]bool{nil, {true}} {
		got := joinRows(t, dev, []gpu.Column{bcol}, []gpu.Column{pcol}, ne)
		want := naivePairs([][]any{bvals}, [][]any{pvals}, ne)
		if err := EqualRows(got, want, false, 0); err != nil {
			t.Fatalf("gathered dict keys, nullsEqual %v: %v", ne, err)
		}
	}
}

// testJoinMultiKey: three keys of different kinds; a pair matches only
// when all three do.
func testJoinMultiKey(t *testing.T, dev gpu.Device) {
	big1, big2 := bigPow2(70, 3), bigPow2(70, 4)
	types := []arrow.DataType{I32, String, Dec(38, 2)}
	build := [][]any{
		{int64(1), int64(1), int64(2), nil, int64(1), int64(3), nil, int64(1)},
		{"a", "b", "a", "a", "a", nil, nil, "a"},
		{big1, big1, big2, big1, big2, big1, nil, big1},
	}
	probe := [][]any{
		{int64(1), int64(1), nil, int64(3), int64(2), nil, int64(1), int64(1), int64(9)},
		{"a", "a", "a", nil, "b", nil, "b", "b", "a"},
		{big1, big2, big1, big1, big2, nil, big1, big2, big1},
	}
	checkJoin(t, dev, types, build, probe)
}

// testJoinManyToMany: heavy duplicates on both sides (every pair of equal
// keys is an output pair).
func testJoinManyToMany(t *testing.T, dev gpu.Device) {
	var build, probe []any
	for i := 0; i < 300; i++ {
		build = append(build, int64(7))
	}
	for i := 0; i < 3; i++ {
		build = append(build, int64(8), nil)
	}
	for i := 0; i < 40; i++ {
		probe = append(probe, int64(7))
	}
	probe = append(probe, int64(8), int64(8), int64(9), nil, int64(-7))
	checkJoin(t, dev, []arrow.DataType{I64}, [][]any{build}, [][]any{probe})
}

// testJoinEmpty: empty sides, disjoint keys, all-null keys.
func testJoinEmpty(t *testing.T, dev gpu.Device) {
	some := []any{int64(1), int64(2), int64(2)}
	for _, c := range []struct {
		name         string
		build, probe []any
	}{
		{"empty build", nil, some},
		{"empty probe", some, nil},
		{"both empty", nil, nil},
		{"no matches", []any{int64(5), int64(6)}, []any{int64(7), int64(8), int64(-5)}},
		{"all null", []any{nil, nil}, []any{nil, int64(1), nil}},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkJoin(t, dev, []arrow.DataType{I64}, [][]any{c.build}, [][]any{c.probe})
		})
	}
}

// testJoinRandomLarge: 200k probe rows against 50k build rows (fewer under
// -short) of int64 keys with duplicates and nulls, checked against a Go map;
// then two keys (int32, decimal128) against a map of both.
func testJoinRandomLarge(t *testing.T, dev gpu.Device) {
	np, nb := 200_000, 50_000
	if testing.Short() {
		np, nb = 20_000, 5_000
	}
	rng := rand.New(rand.NewPCG(31, 41))
	gen := func(n, domain int) []any {
		v := make([]any, n)
		for i := range v {
			if rng.IntN(20) != 0 {
				// Spread keys over the high bits too.
				v[i] = int64(rng.IntN(domain))*0x1_0000_0001 - 1<<40
			}
		}
		return v
	}
	build, probe := gen(nb, nb*4/5), gen(np, nb)
	rowsOf := map[int64][]int{}
	for b, v := range build {
		if v != nil {
			rowsOf[v.(int64)] = append(rowsOf[v.(int64)], b)
		}
	}
	var want []string
	for p, v := range probe {
		if v != nil {
			for _, b := range rowsOf[v.(int64)] {
				want = append(want, Row(I(int64(p)), I(int64(b))))
			}
		}
	}
	bc := uploadKeys(t, dev, []arrow.DataType{I64}, [][]any{build})
	defer ReleaseCols(bc)
	pc := uploadKeys(t, dev, []arrow.DataType{I64}, [][]any{probe})
	defer ReleaseCols(pc)
	if err := EqualRows(joinRows(t, dev, bc, pc, nil), want, false, 0); err != nil {
		t.Fatalf("int64 key, %d x %d: %v", np, nb, err)
	}

	// Two keys: a small int32 domain and a decimal128 one, so that many rows
	// share one key but not the other.
	np2, nb2 := np/4, nb/4
	gen2 := func(n int) ([]any, []any) {
		a, b := make([]any, n), make([]any, n)
		for i := 0; i < n; i++ {
			a[i] = int64(rng.IntN(50))
			if rng.IntN(30) != 0 {
				b[i] = bigPow2(90, int64(rng.IntN(nb2/40+1)))
			}
		}
		return a, b
	}
	b1, b2 := gen2(nb2)
	p1, p2 := gen2(np2)
	type key struct {
		a int64
		b string
	}
	rows2 := map[key][]int{}
	for i := range b1 {
		if b2[i] != nil {
			k := key{b1[i].(int64), b2[i].(*big.Int).String()}
			rows2[k] = append(rows2[k], i)
		}
	}
	want = want[:0]
	for p := range p1 {
		if p2[p] != nil {
			for _, b := range rows2[key{p1[p].(int64), p2[p].(*big.Int).String()}] {
				want = append(want, Row(I(int64(p)), I(int64(b))))
			}
		}
	}
	types := []arrow.DataType{I32, Dec(38, 0)}
	bc2 := uploadKeys(t, dev, types, [][]any{b1, b2})
	defer ReleaseCols(bc2)
	pc2 := uploadKeys(t, dev, types, [][]any{p1, p2})
	defer ReleaseCols(pc2)
	if err := EqualRows(joinRows(t, dev, bc2, pc2, nil), want, false, 0); err != nil {
		t.Fatalf("int32 + decimal128 keys, %d x %d: %v", np2, nb2, err)
	}
}

// callSafely turns a device panic into an error (the contract: bad input
// gives an error, never a panic).
func callSafely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{r}
		}
	}()
	return f()
}

func tryJoin(dev gpu.Device, build, probe []gpu.Column, ne []bool) error {
	return callSafely(func() error {
		p, b, err := dev.HashJoin(context.Background(), build, probe, ne)
		ReleaseCols([]gpu.Column{p, b})
		return err
	})
}

func testJoinBadInput(t *testing.T, dev gpu.Device) {
	i64 := Upload(t, dev, MakeArray(I64, int64(1), int64(2)))
	defer i64.Release()
	i32 := Upload(t, dev, MakeArray(I32, int64(1), int64(2)))
	defer i32.Release()
	short := Upload(t, dev, MakeArray(I64, int64(1)))
	defer short.Release()
	d2 := Upload(t, dev, MakeArray(Dec(10, 2), int64(1), int64(2)))
	defer d2.Release()
	d3 := Upload(t, dev, MakeArray(Dec(10, 3), int64(1), int64(2)))
	defer d3.Release()
	one := []gpu.Column{i64}
	for _, c := range []struct {
		name         string
		build, probe []gpu.Column
		ne           []bool
	}{
		{"no keys", nil, nil, nil},
		{"key count mismatch", []gpu.Column{i64, i64}, one, nil},
		{"kind mismatch", []gpu.Column{i32}, one, nil},
		{"decimal scale mismatch", []gpu.Column{d2}, []gpu.Column{d3}, nil},
		{"unequal build key lengths", []gpu.Column{i64, short}, []gpu.Column{i64, i64}, nil},
		{"unequal probe key lengths", []gpu.Column{i64, i64}, []gpu.Column{i64, short}, nil},
		{"nullsEqual length", one, one, []bool{true, false}},
		{"nil column", []gpu.Column{nil}, one, nil},
	} {
		t.Run(c.name, func(t *testing.T) { expectError(t, tryJoin(dev, c.build, c.probe, c.ne), c.name) })
	}
}

// gatherCol is a test column: its Arrow type and Go values.
type gatherCol struct {
	dt   arrow.DataType
	vals []any
}

// gatherTable is one column of every kind (nullable, except the last).
func gatherTable() []gatherCol {
	return []gatherCol{
		{Bool, []any{true, nil, false, true, false}},
		{I8, []any{int64(-128), int64(5), nil, int64(127), int64(0)}},
		{I16, []any{int64(300), nil, int64(-300), int64(1), int64(2)}},
		{I32, []any{nil, int64(1 << 30), int64(-5), int64(6), int64(7)}},
		{I64, []any{int64(math.MinInt64), int64(1), int64(2), nil, int64(math.MaxInt64)}},
		{F32, []any{1.5, -0.25, nil, math.Inf(1), 3.0}},
		{F64, []any{math.Copysign(0, -1), 1e300, -2.5, 4.0, nil}},
		{Date, []any{"1992-01-01", nil, "1998-12-01", "1970-01-01", "2000-02-29"}},
		{Dec(15, 2), []any{int64(-12345), int64(99), nil, int64(0), int64(1)}},
		{Dec(38, 6), []any{bigPow2(100, 1), nil, new(big.Int).Neg(pow10(37)), big.NewInt(-1), big.NewInt(0)}},
		{String, []any{"apple", "pear", nil, "apple", "fig"}},
		{I64, []any{int64(10), int64(11), int64(12), int64(13), int64(14)}},
	}
}

// gatherExpect renders the rows idx selects (a negative index: all nulls).
func gatherExpect(cols []gatherCol, idx []int) []string {
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		vals := make([]any, len(idx))
		for j, r := range idx {
			if r >= 0 {
				vals[j] = c.vals[r]
			}
		}
		arrs[i] = MakeArray(c.dt, vals...)
	}
	defer ReleaseAll(arrs)
	return RowStrings(arrs)
}

// gatherRows uploads cols, gathers idx and returns the rows, checking the
// output types.
func gatherRows(t *testing.T, dev gpu.Device, cols []gatherCol, idx []int, pad bool) []string {
	t.Helper()
	in := make([]gpu.Column, len(cols))
	for i, c := range cols {
		in[i] = Upload(t, dev, MakeArray(c.dt, c.vals...))
	}
	defer ReleaseCols(in)
	iv := make([]any, len(idx))
	for j, r := range idx {
		iv[j] = int64(r)
	}
	ic := Upload(t, dev, MakeArray(I32, iv...))
	defer ic.Release()
	out, err := dev.Gather(context.Background(), in, ic, pad)
	if err != nil {
		t.Fatalf("gather %v (padNulls %v): %v", idx, pad, err)
	}
	defer ReleaseCols(out)
	if len(out) != len(in) {
		t.Fatalf("gather: %d columns out of %d", len(out), len(in))
	}
	for i, c := range out {
		got, want := c.Type(), in[i].Type()
		if got.Kind != want.Kind || got.Precision != want.Precision || got.Scale != want.Scale {
			t.Fatalf("gather: column %d typed %s, input is %s", i, got, want)
		}
		if pad && !got.Nullable {
			t.Fatalf("gather with padNulls: column %d typed %s, want nullable", i, got)
		}
		if c.Len() != len(idx) {
			t.Fatalf("gather: column %d has %d rows, want %d", i, c.Len(), len(idx))
		}
	}
	return Rows(t, dev, out)
}

func testGatherKinds(t *testing.T, dev gpu.Device) {
	cols := gatherTable()
	idx := []int{4, 0, 0, 2, 3, 1, 4, 2}
	for _, pad := range []bool{false, true} {
		expectRows(t, gatherRows(t, dev, cols, idx, pad), gatherExpect(cols, idx), true)
	}
}

func testGatherPadNulls(t *testing.T, dev gpu.Device) {
	cols := gatherTable()
	idx := []int{-1, 3, -1, 0, -7, 4, 1}
	expectRows(t, gatherRows(t, dev, cols, idx, true), gatherExpect(cols, idx), true)
	// Columns of no rows: every (negative) index pads.
	empty := make([]gatherCol, len(cols))
	for i, c := range cols {
		empty[i] = gatherCol{dt: c.dt}
	}
	idx = []int{-1, -2, -1}
	expectRows(t, gatherRows(t, dev, empty, idx, true), gatherExpect(empty, idx), true)
}

func testGatherEmpty(t *testing.T, dev gpu.Device) {
	cols := gatherTable()
	for _, pad := range []bool{false, true} {
		expectRows(t, gatherRows(t, dev, cols, nil, pad), nil, true)
	}
}

func tryGather(dev gpu.Device, cols []gpu.Column, idx gpu.Column, pad bool) error {
	return callSafely(func() error {
		out, err := dev.Gather(context.Background(), cols, idx, pad)
		ReleaseCols(out)
		return err
	})
}

func testGatherBadInput(t *testing.T, dev gpu.Device) {
	cols := []gpu.Column{
		Upload(t, dev, MakeArray(I64, int64(1), int64(2), nil)),
		Upload(t, dev, MakeArray(String, "a", "b", "c")),
	}
	defer ReleaseCols(cols)
	short := Upload(t, dev, MakeArray(I64, int64(1)))
	defer short.Release()
	idx := func(dt arrow.DataType, v ...any) gpu.Column { return Upload(t, dev, MakeArray(dt, v...)) }
	ok := idx(I32, int64(0), int64(2))
	neg := idx(I32, int64(0), int64(-1))
	past := idx(I32, int64(1), int64(3))
	wide := idx(I64, int64(0), int64(1))
	nullable := idx(I32, int64(0), nil)
	defer ReleaseCols([]gpu.Column{ok, neg, past, wide, nullable})
	for _, c := range []struct {
		name string
		cols []gpu.Column
		idx  gpu.Column
		pad  bool
	}{
		{"negative index without padNulls", cols, neg, false},
		{"index past the end", cols, past, false},
		{"index past the end with padNulls", cols, past, true},
		{"int64 index column", cols, wide, false},
		{"nullable index column", cols, nullable, false},
		{"nil index column", cols, nil, false},
		{"unequal column lengths", []gpu.Column{cols[0], short}, ok, false},
		{"nil column", []gpu.Column{cols[0], nil}, ok, false},
	} {
		t.Run(c.name, func(t *testing.T) { expectError(t, tryGather(dev, c.cols, c.idx, c.pad), c.name) })
	}
}

// unmatchedRows runs Unmatched and returns the rows in their order.
func unmatchedRows(t testing.TB, dev gpu.Device, idx []any, n int) []string {
	t.Helper()
	ic := Upload(t, dev, MakeArray(I32, idx...))
	defer ic.Release()
	out, err := dev.Unmatched(context.Background(), ic, n)
	if err != nil {
		t.Fatalf("unmatched(%d indexes, %d): %v", len(idx), n, err)
	}
	defer out.Release()
	if out.Type() != gpu.JoinIndexType {
		t.Fatalf("unmatched: typed %s, want %s", out.Type(), gpu.JoinIndexType)
	}
	return Rows(t, dev, []gpu.Column{out})
}

func ints(v ...int64) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = I(x)
	}
	return out
}

func testUnmatchedBasic(t *testing.T, dev gpu.Device) {
	expectRows(t, unmatchedRows(t, dev, []any{int64(3), int64(1), int64(3), int64(-1), int64(7)}, 9), ints(0, 2, 4, 5, 6, 8), true)
	expectRows(t, unmatchedRows(t, dev, nil, 4), ints(0, 1, 2, 3), true)
	expectRows(t, unmatchedRows(t, dev, nil, 0), nil, true)
	expectRows(t, unmatchedRows(t, dev, []any{int64(-1), int64(-5)}, 0), nil, true)
	expectRows(t, unmatchedRows(t, dev, []any{int64(2), int64(0), int64(1), int64(1)}, 3), nil, true)
	// A semi join's rows: the unmatched rows of the unmatched rows.
	first := Upload(t, dev, MakeArray(I32, int64(4), int64(1), int64(4)))
	defer first.Release()
	un, err := dev.Unmatched(context.Background(), first, 6)
	if err != nil {
		t.Fatal(err)
	}
	defer un.Release()
	semi, err := dev.Unmatched(context.Background(), un, 6)
	if err != nil {
		t.Fatal(err)
	}
	defer semi.Release()
	expectRows(t, Rows(t, dev, []gpu.Column{semi}), ints(1, 4), true)
}

// testUnmatchedRandom spans many tiles; the output must be ascending.
func testUnmatchedRandom(t *testing.T, dev gpu.Device) {
	n := 300_000
	if testing.Short() {
		n = 30_000
	}
	rng := rand.New(rand.NewPCG(5, 9))
	seen := make([]bool, n)
	idx := make([]any, n/2)
	for i := range idx {
		r := rng.IntN(n+n/10) - n/10 // some negatives
		idx[i] = int64(r)
		if r >= 0 {
			seen[r] = true
		}
	}
	var want []string
	for r, s := range seen {
		if !s {
			want = append(want, I(int64(r)))
		}
	}
	expectRows(t, unmatchedRows(t, dev, idx, n), want, true)
}

func testUnmatchedBadInput(t *testing.T, dev gpu.Device) {
	try := func(name string, idx gpu.Column, n int) {
		t.Helper()
		err := callSafely(func() error {
			out, err := dev.Unmatched(context.Background(), idx, n)
			if out != nil {
				out.Release()
			}
			return err
		})
		expectError(t, err, name)
	}
	past := Upload(t, dev, MakeArray(I32, int64(0), int64(5)))
	defer past.Release()
	wide := Upload(t, dev, MakeArray(I64, int64(0)))
	defer wide.Release()
	try("index past n", past, 5)
	try("index with n = 0", past, 0)
	try("negative n", past, -1)
	try("int64 index column", wide, 3)
	try("nil index column", nil, 3)
}

// testConcatMixed: nullable and non-nullable parts, an empty part, Dict
// parts with equal dictionaries and with different ones, decimal128 and
// floats.
func testConcatMixed(t *testing.T, dev gpu.Device) {
	types := []arrow.DataType{I64, String, Dec(38, 3), F64, I16}
	parts := [][][]any{
		{{int64(1), int64(2)}, {"a", "b"}, {bigPow2(80, 0), nil}, {1.5, math.NaN()}, {int64(1), int64(2)}},
		{{nil, int64(3), int64(4)}, {"b", "a", nil}, {big.NewInt(-7), big.NewInt(8), big.NewInt(9)}, {-0.5, 2.0, 3.0}, {int64(3), int64(4), int64(5)}},
		{{}, {}, {}, {}, {}},
		{{int64(5)}, {"a"}, {big.NewInt(1)}, {nil}, {int64(6)}},
	}
	// Part 2 is empty: gathered from part 0 with no index, so that its Dict
	// column keeps part 0's dictionary (an uploaded empty string column has
	// an empty one). The last part's dictionary {"a"} differs from
	// {"a","b"}: it is concatenated in a third call below.
	in := make([][]gpu.Column, len(parts))
	for k, p := range parts {
		if k == 2 {
			none := Upload(t, dev, MakeArray(I32))
			var err error
			in[k], err = dev.Gather(context.Background(), in[0], none, false)
			none.Release()
			if err != nil {
				t.Fatalf("gather of no rows: %v", err)
			}
		} else {
			in[k] = uploadKeys(t, dev, types, p)
		}
		defer ReleaseCols(in[k])
	}
	out, err := dev.Concat(context.Background(), in[:3])
	if err != nil {
		t.Fatalf("concat: %v", err)
	}
	defer ReleaseCols(out)
	wantNull := []bool{true, true, true, false, false}
	for i, c := range out {
		if c.Type().Nullable != wantNull[i] {
			t.Fatalf("concat: column %d typed %s, nullable should be %v", i, c.Type(), wantNull[i])
		}
	}
	expected := make([]arrow.Array, len(types))
	for i, dt := range types {
		var vals []any
		for _, p := range parts[:3] {
			vals = append(vals, p[i]...)
		}
		expected[i] = MakeArray(dt, vals...)
	}
	defer ReleaseAll(expected)
	expectRows(t, Rows(t, dev, out), RowStrings(expected), true)

	// One part is a copy.
	single, err := dev.Concat(context.Background(), in[1:2])
	if err != nil {
		t.Fatalf("concat of one part: %v", err)
	}
	defer ReleaseCols(single)
	expectRows(t, Rows(t, dev, single), Rows(t, dev, in[1]), true)

	// Different dictionaries: the strings of both, under their merged
	// dictionary.
	var mixed []gpu.Column
	err = callSafely(func() error {
		var err error
		mixed, err = dev.Concat(context.Background(), [][]gpu.Column{in[0], in[3]})
		return err
	})
	if err != nil {
		t.Fatalf("concat of different dictionaries: %v", err)
	}
	defer ReleaseCols(mixed)
	both := make([]arrow.Array, len(types))
	for i, dt := range types {
		both[i] = MakeArray(dt, append(append([]any(nil), parts[0][i]...), parts[3][i]...)...)
	}
	defer ReleaseAll(both)
	expectRows(t, Rows(t, dev, mixed), RowStrings(both), true)

	// Neither part's dictionary is the merged one ({b, c} and {a, c} make
	// {a, b, c}): both parts' codes are mapped.
	bc := Upload(t, dev, MakeArray(String, "c", nil, "b"))
	defer bc.Release()
	ac := Upload(t, dev, MakeArray(String, "a", "c"))
	defer ac.Release()
	merged, err := dev.Concat(context.Background(), [][]gpu.Column{{bc}, {ac}})
	if err != nil {
		t.Fatalf("concat of dictionaries {b, c} and {a, c}: %v", err)
	}
	defer ReleaseCols(merged)
	expectRows(t, Rows(t, dev, merged), []string{S("c"), NullCell, S("b"), S("a"), S("c")}, true)
	if d := merged[0].Dictionary(); d == nil || d.Len() != 3 {
		t.Errorf("concat of dictionaries {b, c} and {a, c}: dictionary %v, want {a, b, c}", d)
	}

	// A first part without strings (all nulls: an empty dictionary) takes
	// the other part's dictionary.
	nulls := Upload(t, dev, MakeArray(String, nil, nil))
	defer nulls.Release()
	withNulls, err := dev.Concat(context.Background(), [][]gpu.Column{{nulls}, {bc}})
	if err != nil {
		t.Fatalf("concat of a column of nulls and {b, c}: %v", err)
	}
	defer ReleaseCols(withNulls)
	expectRows(t, Rows(t, dev, withNulls), []string{NullCell, NullCell, S("c"), NullCell, S("b")}, true)
}

func testConcatBadInput(t *testing.T, dev gpu.Device) {
	a := Upload(t, dev, MakeArray(I64, int64(1), int64(2)))
	defer a.Release()
	b := Upload(t, dev, MakeArray(I32, int64(1)))
	defer b.Release()
	d2 := Upload(t, dev, MakeArray(Dec(10, 2), int64(1)))
	defer d2.Release()
	d3 := Upload(t, dev, MakeArray(Dec(10, 3), int64(1)))
	defer d3.Release()
	for _, c := range []struct {
		name  string
		parts [][]gpu.Column
	}{
		{"no parts", nil},
		{"column count mismatch", [][]gpu.Column{{a, a}, {a}}},
		{"kind mismatch", [][]gpu.Column{{a}, {b}}},
		{"scale mismatch", [][]gpu.Column{{d2}, {d3}}},
		{"unequal lengths within a part", [][]gpu.Column{{a, b}, {a, b}}},
		{"nil column", [][]gpu.Column{{a}, {nil}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := callSafely(func() error {
				o, err := dev.Concat(context.Background(), c.parts)
				ReleaseCols(o)
				return err
			})
			expectError(t, err, c.name)
		})
	}
}
