package gpu

import "github.com/apache/arrow-go/v18/arrow/array"

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
