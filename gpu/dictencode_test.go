package gpu

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
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

// A dictionary array of strings encodes as its strings do: its indices
// taken as they are when its dictionary is distinct and in byte order, the
// strings encoded again when it is not (unsorted, repeated).
func TestEncodeDictionaryArray(t *testing.T) {
	arr := randomStrings(1<<17+5, 300, 9)
	defer arr.Release()
	want, err := EncodeDictionary(arr)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Values.Release()
	dictOf := func(vals []string, index func(s string) int32) *array.Dictionary {
		vb := array.NewStringBuilder(memory.DefaultAllocator)
		defer vb.Release()
		vb.AppendValues(vals, nil)
		values := vb.NewStringArray()
		defer values.Release()
		ib := array.NewInt32Builder(memory.DefaultAllocator)
		defer ib.Release()
		for i := range arr.Len() {
			if arr.IsNull(i) {
				ib.AppendNull()
			} else {
				ib.Append(index(arr.Value(i)))
			}
		}
		idx := ib.NewInt32Array()
		defer idx.Release()
		return array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, idx, values)
	}
	sorted := make([]string, want.Values.Len())
	for i := range sorted {
		sorted[i] = want.Values.Value(i)
	}
	reversed := slices.Clone(sorted)
	slices.Reverse(reversed)
	repeated := append(slices.Clone(sorted), sorted...)
	for name, da := range map[string]*array.Dictionary{
		"sorted": dictOf(sorted, func(s string) int32 { i, _ := slices.BinarySearch(sorted, s); return int32(i) }),
		"reversed": dictOf(reversed, func(s string) int32 {
			return int32(slices.Index(reversed, s))
		}),
		"repeated": dictOf(repeated, func(s string) int32 { i, _ := slices.BinarySearch(sorted, s); return int32(i + len(sorted)) }),
	} {
		if typ, err := TypeOf(da.DataType(), true); err != nil || typ.Kind != Dict {
			t.Fatalf("%s: TypeOf %v, %v", name, typ, err)
		}
		got, err := EncodeDictionary(da)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !array.Equal(got.Values, want.Values) || !slices.Equal(got.Codes, want.Codes) || !slices.Equal(got.Valid, want.Valid) {
			t.Fatalf("%s: the encoding differs from the strings'", name)
		}
		got.Values.Release()
		da.Release()
	}
}
