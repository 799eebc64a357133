package gpu_test

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/devicetest"
)

// EvalRows over Arrow arrays: a literal among the arguments, nulls as each
// function treats them, integer and boolean results, and the bound on the
// characters it builds.
func TestEvalRows(t *testing.T) {
	d := gpu.Type{Kind: gpu.Dict, Nullable: true}
	a, b := devicetest.MakeArray(devicetest.String, "ab", nil, "x", ""), devicetest.MakeArray(devicetest.String, "1", "2", nil, "")
	defer a.Release()
	defer b.Release()
	lit := gpu.Const(gpu.Type{Kind: gpu.Dict}, gpu.Value{I64: 0}) // Str.List[0]
	cat := gpu.RowCall(&gpu.StrFunc{Kind: gpu.StrRowConcatIgnoreNulls, List: []string{"s-"}}, d, lit, gpu.Col(0, d), gpu.Col(1, d))
	got, err := gpu.EvalRows(cat, 4, []arrow.Array{nil, a, b}, 1<<20)
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
	strict := gpu.RowCall(&gpu.StrFunc{Kind: gpu.StrRowConcat}, d, gpu.Col(0, d), gpu.Col(1, d))
	got2, err := gpu.EvalRows(strict, 4, []arrow.Array{a, b}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer got2.Release()
	if !got2.IsNull(1) || !got2.IsNull(2) || got2.IsNull(0) {
		t.Errorf("concat with a null argument: %v, want null in rows 1 and 2 only", got2)
	}
	n := gpu.RowCall(&gpu.StrFunc{Kind: gpu.StrRowCharLength}, gpu.Type{Kind: gpu.Int64, Nullable: true}, gpu.Col(0, d))
	got3, err := gpu.EvalRows(n, 4, []arrow.Array{a}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer got3.Release()
	if l := got3.(*array.Int64); l.Value(0) != 2 || !l.IsNull(1) || l.Value(3) != 0 {
		t.Errorf("char_length: %v, want [2 null 1 0]", l)
	}
	sw := gpu.RowCall(&gpu.StrFunc{Kind: gpu.StrRowStartsWith}, gpu.Type{Kind: gpu.Bool, Nullable: true}, gpu.Col(0, d), gpu.Col(1, d))
	got4, err := gpu.EvalRows(sw, 4, []arrow.Array{a, b}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer got4.Release()
	if s := got4.(*array.Boolean); s.Value(0) || !s.IsNull(1) || !s.Value(3) {
		t.Errorf("starts_with: %v, want [false null null true]", s)
	}
	if _, err := gpu.EvalRows(cat, 4, []arrow.Array{nil, a, b}, 8); !errors.Is(err, gpu.ErrHostMemory) || !errors.Is(err, gpu.ErrOutOfMemory) {
		t.Errorf("results past the bound: %v, want gpu.ErrHostMemory", err)
	}
}
