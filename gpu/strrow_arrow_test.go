package gpu

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func stringArray(vals ...any) arrow.Array {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(v.(string))
		}
	}
	return b.NewArray()
}

// EvalRows over Arrow arrays: a literal among the arguments, nulls as each
// function treats them, integer and boolean results, and the bound on the
// characters it builds.
func TestEvalRows(t *testing.T) {
	d := Type{Kind: Dict, Nullable: true}
	a, b := stringArray("ab", nil, "x", ""), stringArray("1", "2", nil, "")
	defer a.Release()
	defer b.Release()
	lit := Const(Type{Kind: Dict}, Value{I64: 0}) // Str.List[0]
	cat := RowCall(&StrFunc{Kind: StrRowConcatIgnoreNulls, List: []string{"s-"}}, d, lit, Col(0, d), Col(1, d))
	got, err := EvalRows(cat, 4, []arrow.Array{nil, a, b}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	want := []string{"s-ab1", "s-2", "s-x", "s-"}
	for i, w := range want {
		if s := got.(*array.String); s.IsNull(i) || s.Value(i) != w {
			t.Errorf("concat row %d: %q (null %v), want %q", i, s.Value(i), s.IsNull(i), w)
		}
	}
	strict := RowCall(&StrFunc{Kind: StrRowConcat}, d, Col(0, d), Col(1, d))
	got2, err := EvalRows(strict, 4, []arrow.Array{a, b}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer got2.Release()
	if !got2.IsNull(1) || !got2.IsNull(2) || got2.IsNull(0) {
		t.Errorf("concat with a null argument: %v, want null in rows 1 and 2 only", got2)
	}
	n := RowCall(&StrFunc{Kind: StrRowCharLength}, Type{Kind: Int64, Nullable: true}, Col(0, d))
	got3, err := EvalRows(n, 4, []arrow.Array{a}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer got3.Release()
	if l := got3.(*array.Int64); l.Value(0) != 2 || !l.IsNull(1) || l.Value(3) != 0 {
		t.Errorf("char_length: %v, want [2 null 1 0]", l)
	}
	sw := RowCall(&StrFunc{Kind: StrRowStartsWith}, Type{Kind: Bool, Nullable: true}, Col(0, d), Col(1, d))
	got4, err := EvalRows(sw, 4, []arrow.Array{a, b}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer got4.Release()
	if s := got4.(*array.Boolean); s.Value(0) || !s.IsNull(1) || !s.Value(3) {
		t.Errorf("starts_with: %v, want [false null null true]", s)
	}
	if _, err := EvalRows(cat, 4, []arrow.Array{nil, a, b}, 8); !errors.Is(err, ErrHostMemory) || !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("results past the bound: %v, want ErrHostMemory", err)
	}
}
