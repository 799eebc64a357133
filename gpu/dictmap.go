package gpu

import (
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DictCodeMap maps the codes of dictionary from to the codes of the same
// strings in dictionary to: out[c] is the code in to of from's string c,
// or -1 where to does not hold it. A join whose Dict keys carry different
// dictionaries (two tables' string columns) compares the probe side's
// codes, mapped so, with the build side's: equal codes are then equal
// strings, and -1 equals no code.
func DictCodeMap(from, to *array.String) []int32 {
	codes := make(map[string]int32, to.Len())
	for i := 0; i < to.Len(); i++ {
		codes[to.Value(i)] = int32(i)
	}
	out := make([]int32, from.Len())
	for i := range out {
		c, ok := codes[from.Value(i)]
		if !ok {
			c = -1
		}
		out[i] = c
	}
	return out
}

// DictOrderMap maps the codes of dictionary from into the order of
// dictionary to, both sorted (EncodeDictionary's byte order): out[c] is 2i
// where to's string i is from's string c, and 2i-1 where from's string c
// falls between to's strings i-1 and i. Comparing out[a] with 2b then
// compares the strings of two Dict values of different dictionaries, for
// every comparison operator (TPC-DS q19: substr(ca_zip, 1, 5) <>
// substr(s_zip, 1, 5)).
func DictOrderMap(from, to *array.String) []int64 {
	out := make([]int64, from.Len())
	for c := range out {
		s := from.Value(c)
		i, found := sort.Find(to.Len(), func(j int) int { return strings.Compare(s, to.Value(j)) })
		out[c] = 2 * int64(i)
		if !found {
			out[c]--
		}
	}
	return out
}

// MergeDictionaries is the sorted union of dicts (nil ones hold no
// string), in EncodeDictionary's byte order: the dictionary under which
// Dict values of all of them can be mixed (a UNION's branches), each
// part's codes mapped into it by DictCodeMap. Where every non-empty
// dictionary holds the same strings, it is that one (nil when all are
// nil), and same is true: no code needs mapping. The caller releases a
// non-nil result.
func MergeDictionaries(dicts ...*array.String) (merged *array.String, same bool) {
	var first *array.String
	same = true
	for _, d := range dicts {
		switch {
		case d == nil:
		case first == nil || first.Len() == 0:
			first = d
		case d.Len() > 0 && !SameDictionary(first, d):
			same = false
		}
	}
	if same {
		if first != nil {
			first.Retain()
		}
		return first, true
	}
	seen := map[string]bool{}
	var all []string
	for _, d := range dicts {
		for i := 0; d != nil && i < d.Len(); i++ {
			if s := d.Value(i); !seen[s] {
				s = string([]byte(s)) // detach from the Arrow buffer
				seen[s] = true
				all = append(all, s)
			}
		}
	}
	slices.SortFunc(all, strings.Compare)
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(all, nil)
	return b.NewStringArray(), false
}

// SameDictionary reports whether two dictionaries hold the same strings in
// the same order, so that equal codes are equal strings (nil holds none,
// and equals only nil).
func SameDictionary(a, b *array.String) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.Len() != b.Len() {
		return false
	}
	for i := 0; i < a.Len(); i++ {
		if a.Value(i) != b.Value(i) {
			return false
		}
	}
	return true
}
