package gpu

import (
	"fmt"
	"math/rand"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// phoneDict is a sorted dictionary of n distinct TPC-H-like phone numbers
// ("cc-ddd-ddd-dddd", 25 country codes), c_phone's shape at SF10 with n =
// 1.5 M.
func phoneDict(n int) *array.String {
	rng := rand.New(rand.NewSource(1))
	seen := map[string]bool{}
	vals := make([]string, 0, n)
	for len(vals) < n {
		s := fmt.Sprintf("%d-%03d-%03d-%04d", 10+rng.Intn(25), rng.Intn(1000), rng.Intn(1000), rng.Intn(10000))
		if !seen[s] {
			seen[s] = true
			vals = append(vals, s)
		}
	}
	sort.Strings(vals)
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewStringArray()
}

// BenchmarkMapTableSubstring: TPC-H Q22's substring(c_phone, 1, 2) table
// at SF10, the host's share of that query's first run.
//
//	go test ./gpu -run XXX -bench MapTableSubstring -benchtime 5x
func BenchmarkMapTableSubstring(b *testing.B) {
	dict := phoneDict(1_500_000)
	defer dict.Release()
	f := &StrFunc{Kind: StrSubstring, From: 1, Length: 2, HasLength: true}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		codes, out := f.mapTable(dict)
		if len(codes) != dict.Len() || out.Len() != 25 {
			b.Fatalf("%d codes, %d distinct", len(codes), out.Len())
		}
		out.Release()
	}
}

// TestMapTableMatchesSortedResults: mapTable, numbering each part's
// results and sorting only the distinct ones, gives the table of the
// plain method (every result sorted, codes by binary search) for
// substrings of random strings, on one part and on several.
func TestMapTableMatchesSortedResults(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	alpha := []string{"a", "b", "é", "日", "c", "-"}
	seen := map[string]bool{}
	var vals []string
	for len(vals) < 200_000 {
		var b strings.Builder
		for k := rng.Intn(9); k > 0; k-- {
			b.WriteString(alpha[rng.Intn(len(alpha))])
		}
		if s := b.String(); !seen[s] {
			seen[s] = true
			vals = append(vals, s)
		}
		if len(seen) > 150_000 && len(vals) < 200_000 { // few long strings left: lengthen
			alpha = append(alpha, fmt.Sprint(len(vals)))
		}
	}
	sort.Strings(vals)
	bld := array.NewStringBuilder(memory.DefaultAllocator)
	bld.AppendValues(vals, nil)
	dict := bld.NewStringArray()
	bld.Release()
	defer dict.Release()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // several parts even on a small machine
	for _, f := range []*StrFunc{
		{Kind: StrSubstring, From: 1, Length: 2, HasLength: true},
		{Kind: StrSubstring, From: 2, Length: 3, HasLength: true},
		{Kind: StrSubstring, From: -3},
		{Kind: StrSubstring, From: 1}, // every entry its own result
	} {
		codes, out := f.mapTable(dict)
		results := make([]string, dict.Len())
		for i := range results {
			results[i] = f.Apply(dict.Value(i))
		}
		want := append([]string(nil), results...)
		sort.Strings(want)
		want = slices.Compact(want)
		if out.Len() != len(want) {
			t.Fatalf("%s: %d distinct results, want %d", f, out.Len(), len(want))
		}
		for i, w := range want {
			if out.Value(i) != w {
				t.Fatalf("%s: result %d is %q, want %q", f, i, out.Value(i), w)
			}
		}
		for i, r := range results {
			if w, _ := slices.BinarySearch(want, r); codes[i] != int32(w) {
				t.Fatalf("%s: entry %d (%q) has code %d, want %d", f, i, dict.Value(i), codes[i], w)
			}
		}
		out.Release()
	}
}
