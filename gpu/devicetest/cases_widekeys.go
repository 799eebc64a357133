package devicetest

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rigel-db/rigel/gpu"
)

// Keys wider than a kernel's fixed part: TPC-DS groups by up to 15
// columns (q64: 15 key words and a null word) and sorts by up to 16 keys
// (q81), where CUDA's sort compares 8 keys a pass.

// smallKeyColumns makes n rows of k nullable int64 key columns, each of
// values 0 to 2 (and a null one row in seven), and an id column: few
// distinct values per column, so that rows tie on every prefix of keys.
func smallKeyColumns(rng *rand.Rand, n, k int) (keys [][]int64, in []arrow.Array) {
	keys = make([][]int64, n) // -1 is null
	vals := make([][]any, k+1)
	for c := range vals {
		vals[c] = make([]any, n)
	}
	for i := range n {
		keys[i] = make([]int64, k)
		for c := range k {
			keys[i][c] = -1
			if rng.IntN(7) > 0 {
				keys[i][c] = int64(rng.IntN(3))
				vals[c][i] = keys[i][c]
			}
		}
		vals[k][i] = int64(i)
	}
	for _, v := range vals {
		in = append(in, MakeArray(I64, v...))
	}
	return keys, in
}

func keyCell(v int64) string {
	if v < 0 {
		return NullCell
	}
	return I(v)
}

// testAggWideKeys groups by 15 nullable keys (16 words with their null
// flags) and counts and sums the ids of each group.
func testAggWideKeys(t *testing.T, dev gpu.Device) {
	const n, k = 20_000, 15
	rng := rand.New(rand.NewPCG(15, 16))
	keys, in := smallKeyColumns(rng, n, k)
	want := map[string][2]int64{}
	for i, row := range keys {
		cells := make([]string, k)
		for c, v := range row {
			cells[c] = keyCell(v)
		}
		key := Row(cells...)
		w := want[key]
		w[0]++
		w[1] += int64(i)
		want[key] = w
	}
	var rows []string
	for key, w := range want {
		rows = append(rows, Row(key, I(w[0]), I(w[1])))
	}
	keyIdx := make([]int, k)
	proj := make([]int, k+1)
	for c := range k {
		keyIdx[c], proj[c] = c, c
	}
	proj[k] = k
	got := aggRows(t, dev, in, nil, func(ty []gpu.Type) []*gpu.Expr { return cols(ty, proj...) }, keyIdx,
		[]gpu.Agg{countStar(), sumDec(k, 0)})
	expectRows(t, got, rows, false)
}

// testSortManyKeys sorts by 12 keys, ascending and descending, nulls first
// and last, whole and with a limit, against a stable sort of the same rows.
func testSortManyKeys(t *testing.T, dev gpu.Device) {
	const n, k = 50_000, 12
	rng := rand.New(rand.NewPCG(17, 18))
	keys, in := smallKeyColumns(rng, n, k)
	cols, _ := table(t, dev, in...)
	defer ReleaseCols(cols)
	var sk []gpu.SortKey
	for c := range k {
		sk = append(sk, gpu.SortKey{Col: c, Descending: c%3 == 1, NullsFirst: c%2 == 0})
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := keys[order[a]], keys[order[b]]
		for c, s := range sk {
			if x[c] == y[c] {
				continue
			}
			if x[c] < 0 || y[c] < 0 { // one null
				return (x[c] < 0) == s.NullsFirst
			}
			return (x[c] < y[c]) != s.Descending
		}
		return false
	})
	var want []string
	for _, i := range order {
		cells := make([]string, 0, k+1)
		for _, v := range keys[i] {
			cells = append(cells, keyCell(v))
		}
		want = append(want, Row(append(cells, I(int64(i)))...))
	}
	expectRows(t, sortRows(t, dev, cols, sk, 0), want, true)
	expectRows(t, sortRows(t, dev, cols, sk, 100), want[:100], true)
}
