package devicetest

import (
	"context"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

func sortCases() []testCase {
	return []testCase{
		{"sort/small_multi_key", testSortSmall},
		{"sort/random_stable", testSortRandom},
		{"sort/empty", testSortEmpty},
		{"sort/top_k_large", testSortTopKLarge},
		{"sort/full_large", testSortFullLarge},
		{"sort/twelve_keys", testSortManyKeys},
	}
}

// sortRows sorts cols on dev and returns the rows (columns released).
func sortRows(t testing.TB, dev gpu.Device, cols []gpu.Column, keys []gpu.SortKey, limit int) []string {
	t.Helper()
	out, err := dev.Sort(context.Background(), cols, keys, limit)
	if err != nil {
		t.Fatalf("sort %v limit %d: %v", keys, limit, err)
	}
	defer ReleaseCols(out)
	return Rows(t, dev, out)
}

func testSortSmall(t *testing.T, dev gpu.Device) {
	// rows: (3,x,0) (1,y,1) (null,z,2) (1,x,3) (2,y,4) (null,x,5) (3,a,6)
	cols, _ := table(t, dev,
		MakeArray(I32, int64(3), int64(1), nil, int64(1), int64(2), nil, int64(3)),
		MakeArray(String, "x", "y", "z", "x", "y", "x", "a"),
		MakeArray(I64, int64(0), int64(1), int64(2), int64(3), int64(4), int64(5), int64(6)))
	defer ReleaseCols(cols)
	ids := func(rows []string) []string {
		out := make([]string, len(rows))
		for i, r := range rows {
			out[i] = r[len(r)-1:]
		}
		return out
	}
	check := func(name string, keys []gpu.SortKey, limit int, want ...string) {
		t.Helper()
		if err := EqualRows(ids(sortRows(t, dev, cols, keys, limit)), want, true, 0); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	check("a asc nulls last, b desc", []gpu.SortKey{{Col: 0}, {Col: 1, Descending: true}}, 0, "1", "3", "4", "0", "6", "2", "5")
	check("a desc nulls first, b asc", []gpu.SortKey{{Col: 0, Descending: true, NullsFirst: true}, {Col: 1}}, 0, "5", "2", "6", "0", "4", "3", "1")
	check("a asc nulls first (stable)", []gpu.SortKey{{Col: 0, NullsFirst: true}}, 0, "2", "5", "1", "3", "4", "0", "6")
	check("a desc nulls last (stable)", []gpu.SortKey{{Col: 0, Descending: true}}, 0, "0", "6", "4", "1", "3", "2", "5")
	check("limit 3", []gpu.SortKey{{Col: 0, NullsFirst: true}}, 3, "2", "5", "1")
	check("limit beyond rows", []gpu.SortKey{{Col: 2, Descending: true}}, 100, "6", "5", "4", "3", "2", "1", "0")
	check("dict key", []gpu.SortKey{{Col: 1}}, 0, "6", "0", "3", "5", "1", "4", "2")
	check("no keys keeps order", nil, 0, "0", "1", "2", "3", "4", "5", "6")
	// Whole rows travel together.
	rows := sortRows(t, dev, cols, []gpu.SortKey{{Col: 1, Descending: true}}, 2)
	expectRows(t, rows, []string{Row(NullCell, S("z"), "2"), Row("1", S("y"), "1")}, true)
}

// testSortRandom compares with sort.SliceStable over the same rows.
func testSortRandom(t *testing.T, dev gpu.Device) {
	const n = 100_000
	rng := rand.New(rand.NewPCG(12, 13))
	type row struct {
		a     int64
		aNull bool
		b     *big.Int
		f     float64
		id    int64
	}
	rows := make([]row, n)
	av, bv, fv, idv := make([]any, n), make([]any, n), make([]any, n), make([]any, n)
	for i := range rows {
		r := row{a: int64(rng.IntN(50) - 25), aNull: rng.IntN(10) == 0, b: big.NewInt(rng.Int64N(40) - 20), f: float64(rng.IntN(5)), id: int64(i)}
		r.b.Mul(r.b, pow10(25))
		rows[i] = r
		if !r.aNull {
			av[i] = r.a
		}
		bv[i], fv[i], idv[i] = r.b, r.f, r.id
	}
	cols, _ := table(t, dev, MakeArray(I16, av...), MakeArray(Dec(38, 2), bv...), MakeArray(F64, fv...), MakeArray(I64, idv...))
	defer ReleaseCols(cols)
	// a desc nulls first, b asc, f desc; stable on id.
	sort.SliceStable(rows, func(i, j int) bool {
		x, y := rows[i], rows[j]
		if x.aNull != y.aNull {
			return x.aNull
		}
		if !x.aNull && x.a != y.a {
			return x.a > y.a
		}
		if c := x.b.Cmp(y.b); c != 0 {
			return c < 0
		}
		return x.f > y.f
	})
	const limit = 5000
	var want []string
	for _, r := range rows[:limit] {
		a := NullCell
		if !r.aNull {
			a = I(r.a)
		}
		want = append(want, Row(a, FormatDecimal(r.b, 2), F(r.f), I(r.id)))
	}
	got := sortRows(t, dev, cols, []gpu.SortKey{{Col: 0, Descending: true, NullsFirst: true}, {Col: 1}, {Col: 2, Descending: true}}, limit)
	expectRows(t, got, want, true)
}

func testSortEmpty(t *testing.T, dev gpu.Device) {
	cols, _ := table(t, dev, MakeArray(I64), MakeArray(String))
	defer ReleaseCols(cols)
	expectRows(t, sortRows(t, dev, cols, []gpu.SortKey{{Col: 1}, {Col: 0}}, 10), nil, true)
}

// testSortTopKLarge: ORDER BY ... LIMIT k over many rows (top-k's tiles),
// with many ties, nulls and a string key; the first k rows must be those of
// a stable sort.
func testSortTopKLarge(t *testing.T, dev gpu.Device) { sortLarge(t, dev, false) }

// sortLarge sorts random rows, keeping top-k prefixes or (full) all of them.
func sortLarge(t *testing.T, dev gpu.Device, full bool) {
	n := 393217 // 3 * 2^17 + 1
	if testing.Short() {
		n = 132073
	}
	rng := rand.New(rand.NewPCG(7, 8))
	type row struct {
		a     int64
		aNull bool
		s     string
		id    int64
	}
	words := []string{"delta", "alpha", "echo", "bravo", "charlie"}
	rows := make([]row, n)
	av, sv, idv := make([]any, n), make([]any, n), make([]any, n)
	for i := range rows {
		r := row{a: int64(rng.IntN(1000)), aNull: rng.IntN(50) == 0, s: words[rng.IntN(len(words))], id: int64(i)}
		rows[i] = r
		if !r.aNull {
			av[i] = r.a
		}
		sv[i], idv[i] = r.s, r.id
	}
	cols, _ := table(t, dev, MakeArray(I32, av...), MakeArray(String, sv...), MakeArray(I64, idv...))
	defer ReleaseCols(cols)
	// a desc nulls last, s asc; stable on id.
	sort.SliceStable(rows, func(i, j int) bool {
		x, y := rows[i], rows[j]
		if x.aNull != y.aNull {
			return !x.aNull
		}
		if !x.aNull && x.a != y.a {
			return x.a > y.a
		}
		return x.s < y.s
	})
	keys := []gpu.SortKey{{Col: 0, Descending: true}, {Col: 1}}
	limits := []int{1, 100, 256}
	if full {
		limits = []int{0, n - 3}
	}
	for _, limit := range limits {
		var want []string
		keep := rows
		if limit > 0 {
			keep = rows[:limit]
		}
		for _, r := range keep {
			a := NullCell
			if !r.aNull {
				a = I(r.a)
			}
			want = append(want, Row(a, S(r.s), I(r.id)))
		}
		expectRows(t, sortRows(t, dev, cols, keys, limit), want, true)
	}
}

// testSortFullLarge: a whole sort (and one with a limit above top-k's)
// over more rows than one power of two, with ties, nulls and a string key;
// the order must be that of a stable sort.
func testSortFullLarge(t *testing.T, dev gpu.Device) { sortLarge(t, dev, true) }
