package gpu

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// randomStrings is n strings of about distinct values, every nullEvery-th
// null (none when 0).
func randomStrings(n, distinct, nullEvery int) *array.String {
	r := rand.New(rand.NewPCG(7, uint64(n)))
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	for i := range n {
		if nullEvery > 0 && i%nullEvery == 0 {
			b.AppendNull()
			continue
		}
		b.Append(fmt.Sprintf("v%0*d", r.IntN(4)+1, r.IntN(distinct)))
	}
	return b.NewStringArray()
}

// The codes and the dictionary do not depend on how the rows are split:
// every split gives the one-part encoding, which is sorted, without
// duplicates, and decodes back to the input.
func TestEncodeDictionarySplits(t *testing.T) {
	for _, c := range []struct{ n, distinct, nullEvery int }{
		{0, 1, 0}, {5, 3, 0}, {1 << 18, 3, 0}, {1<<18 + 17, 5000, 7}, {3 << 16, 1 << 20, 0}, {1 << 17, 10, 1},
	} {
		arr := randomStrings(c.n, c.distinct, c.nullEvery)
		one, err := encodeDictionary(arr, 1, make([]int32, arr.Len()))
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]string, one.Values.Len())
		for i := range vals {
			vals[i] = one.Values.Value(i)
		}
		if !slices.IsSorted(vals) || len(slices.Compact(slices.Clone(vals))) != len(vals) {
			t.Fatalf("%+v: the dictionary is not sorted and distinct", c)
		}
		for i := range c.n {
			if arr.IsNull(i) != (one.Valid != nil && !one.Valid[i]) {
				t.Fatalf("%+v: row %d null %v, valid %v", c, i, arr.IsNull(i), one.Valid != nil && one.Valid[i])
			}
			if arr.IsValid(i) && vals[one.Codes[i]] != arr.Value(i) {
				t.Fatalf("%+v: row %d decodes to %q, was %q", c, i, vals[one.Codes[i]], arr.Value(i))
			}
		}
		for _, parts := range []int{2, 3, 16} {
			got, err := encodeDictionary(arr, parts, make([]int32, arr.Len()))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Codes, one.Codes) || !slices.Equal(got.Valid, one.Valid) || !array.Equal(got.Values, one.Values) {
				t.Fatalf("%+v: %d parts encode otherwise than one", c, parts)
			}
			got.Values.Release()
		}
		one.Values.Release()
		arr.Release()
	}
}

// go test ./gpu -run XXX -bench EncodeDictionary: 6M rows of 3 values
// (TPC-H SF1's l_returnflag), one part against all cores.
func BenchmarkEncodeDictionary(b *testing.B) {
	arr := randomStrings(6_000_000, 3, 0)
	defer arr.Release()
	for _, parts := range []int{1, 0} {
		name := "parts=1"
		if parts == 0 {
			name = "parts=GOMAXPROCS"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				var d *Dictionary
				var err error
				if parts == 0 {
					d, err = EncodeDictionary(arr)
				} else {
					d, err = encodeDictionary(arr, parts, make([]int32, arr.Len()))
				}
				if err != nil {
					b.Fatal(err)
				}
				d.Values.Release()
			}
		})
	}
}
