package gpu

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A second run over the same dictionary reuses the tables, and the cached
// dictionary of a string function survives its callers' releases.
func TestStringTablesAreCachedPerDictionary(t *testing.T) {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	b.AppendValues([]string{"ab", "abc", "xbc"}, nil)
	dict := b.NewStringArray()
	b.Release()
	defer dict.Release()

	like := &StrFunc{Kind: StrLike, Pattern: "%bc"}
	p1, err := like.PredicateTable(dict)
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := like.PredicateTable(dict)
	if string(p1) != "\x00\x01\x01" || &p1[0] != &p2[0] {
		t.Fatalf("tables %v and %v: want [0 1 1], shared", p1, p2)
	}
	other, _ := (&StrFunc{Kind: StrLike, Pattern: "a%"}).PredicateTable(dict)
	if string(other) != "\x01\x01\x00" {
		t.Fatalf("another pattern got %v", other)
	}

	sub := &StrFunc{Kind: StrSubstring, From: 2, Length: 2, HasLength: true}
	for i := 0; i < 3; i++ {
		codes, out, err := sub.MapTable(dict)
		if err != nil {
			t.Fatal(err)
		}
		if out.Len() != 2 || out.Value(0) != "b" || out.Value(1) != "bc" || len(codes) != 3 || codes[2] != 1 {
			t.Fatalf("run %d: substring dictionary %v codes %v", i, out, codes)
		}
		out.Release()
	}
}
