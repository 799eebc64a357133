package gpu

import (
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func strArray(vals ...string) *array.String {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewStringArray()
}

func values(a *array.String) []string {
	var out []string
	for i := 0; a != nil && i < a.Len(); i++ {
		out = append(out, a.Value(i))
	}
	return out
}

// MergeDictionaries: the sorted union, each input's codes mapped into it
// by DictCodeMap; one of the inputs itself where they hold the same
// strings (empty and nil ones aside).
func TestMergeDictionaries(t *testing.T) {
	ab, b, ab2, empty := strArray("a", "b"), strArray("b", "c", "é"), strArray("a", "b"), strArray()
	defer ab.Release()
	defer b.Release()
	defer ab2.Release()
	defer empty.Release()

	m, same := MergeDictionaries(ab, nil, b, empty)
	if same || !reflect.DeepEqual(values(m), []string{"a", "b", "c", "é"}) {
		t.Fatalf("merged %v (same %v), want [a b c é]", values(m), same)
	}
	if got := DictCodeMap(b, m); !reflect.DeepEqual(got, []int32{1, 2, 3}) {
		t.Fatalf("codes of [b c é] in the merged dictionary: %v", got)
	}
	m.Release()

	m, same = MergeDictionaries(empty, ab, nil, ab2)
	if !same || m != ab {
		t.Fatalf("equal dictionaries: got %v (same %v), want the first non-empty one", values(m), same)
	}
	m.Release()

	if m, same = MergeDictionaries(nil, nil); m != nil || !same {
		t.Fatalf("no dictionary: got %v, %v", m, same)
	}
}

// DictOrderMap puts a dictionary's codes in another's order: equal
// strings map to twice the other's code, missing ones between.
func TestDictOrderMap(t *testing.T) {
	from := strArray("a", "bb", "c", "zz")
	to := strArray("b", "bb", "d")
	got := DictOrderMap(from, to)
	want := []int64{-1, 2, 3, 5} // a < b; bb = bb (code 1); bb < c < d; zz > d
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DictOrderMap = %v, want %v", got, want)
	}
}
