package cuda

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rigel-db/rigel/gpu"
)

func dictOfStrings(t *testing.T, vals ...string) *array.String {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	a := b.NewStringArray()
	t.Cleanup(a.Release)
	return a
}

// A comparison of two dictionaries' values becomes one of places, both
// tables in the right side's order; one of a single dictionary stays as it
// was (the same pipeline). Runs without a GPU; the generated source
// compiles under NVRTC where it loads (the battery's str/two_dictionaries
// cases run it on a GPU).
func TestMixDictionariesCompares(t *testing.T) {
	nd := nul(tDict)
	left, right := dictOfStrings(t, "a", "c", "e"), dictOfStrings(t, "b", "c", "d")
	cols := []*column{{t: nd, dict: left}, {t: nd, dict: right}, {t: nd, dict: left}}
	b := nul(gpu.Type{Kind: gpu.Bool})
	same := &gpu.Pipeline{Inputs: []gpu.Type{nd, nd, nd}, Sink: gpu.SinkMaterialize,
		Project: []*gpu.Expr{call(gpu.OpLt, b, gpu.Col(0, nd), gpu.Col(2, nd))}}
	if got, err := mixDictionaries(same, cols, scanPipeline(same).dictMixes); err != nil || got != same {
		t.Fatalf("one dictionary: got %v, %v; want the pipeline itself", got, err)
	}
	first := &gpu.StrFunc{Kind: gpu.StrSubstring, From: 1, Length: 1, HasLength: true}
	sub := gpu.StrCall(first, nd, gpu.Col(1, nd))
	p := &gpu.Pipeline{Inputs: []gpu.Type{nd, nd, nd}, Sink: gpu.SinkMaterialize,
		Filter:  call(gpu.OpNe, b, gpu.Col(0, nd), sub),
		Project: []*gpu.Expr{call(gpu.OpLe, b, gpu.Col(0, nd), gpu.Col(1, nd)), call(gpu.OpEq, b, gpu.Col(0, nd), gpu.Col(2, nd))}}
	got, err := mixDictionaries(p, cols, scanPipeline(p).dictMixes)
	if err != nil {
		t.Fatal(err)
	}
	if got == p || p.Project[0].Args[0].Op != gpu.OpCol {
		t.Fatal("the pipeline was not copied, or the caller's was changed")
	}
	if a := got.Project[1].Args[0]; a.Op != gpu.OpCol {
		t.Errorf("a comparison of one dictionary was rewritten: %s", got.Project[1])
	}
	st, err := buildStrTables(got, cols)
	if err != nil {
		t.Fatal(err)
	}
	le := got.Project[0]
	if !isPlaceIn(le.Args[0]) || !isPlaceIn(le.Args[1]) {
		t.Fatalf("a <= b of two dictionaries: %s, want places on both sides", le)
	}
	// a, c, e among b, c, d: a before b (-1), c is string 1 (2), e after d (5).
	if l, r := st.codes[le.Args[0]], st.codes[le.Args[1]]; !slices.Equal(l, []int32{-1, 2, 5}) || !slices.Equal(r, []int32{0, 2, 4}) {
		t.Errorf("place tables %v and %v, want [-1 2 5] and [0 2 4]", l, r)
	}
	if err := st.checkDictMixing(got, cols); err != nil {
		t.Errorf("the rewritten pipeline still mixes dictionaries: %v", err)
	}
	if loadNVRTC() == nil {
		src, err := pipelineSource(got, []int{3, 3, 3})
		if err != nil {
			t.Fatal(err)
		}
		compileClean(t, "dict_order", src)
	}
}

// A left join's condition is rewritten with its pipeline: places in the
// condition, the projections as they were.
func TestMixDictionariesLeft(t *testing.T) {
	nd := nul(tDict)
	left, right := dictOfStrings(t, "a", "c"), dictOfStrings(t, "b", "c")
	cols := []*column{{t: nd, dict: left}, {t: nd, dict: right}}
	b := nul(gpu.Type{Kind: gpu.Bool})
	p := &gpu.Pipeline{Inputs: []gpu.Type{nd, nd}, Sink: gpu.SinkMaterialize, Project: []*gpu.Expr{gpu.Col(0, nd), gpu.Col(1, nd)}}
	cond := call(gpu.OpNe, b, gpu.Col(0, nd), gpu.Col(1, nd))
	q, c, err := mixDictionariesLeft(p, cond, cols)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Project) != 2 || q.Project[0].Op != gpu.OpCol || c == cond || !isPlaceIn(c.Args[0]) || !isPlaceIn(c.Args[1]) {
		t.Fatalf("got %s with condition %s: want the projections kept and places in the condition", q, c)
	}
	same := call(gpu.OpNe, b, gpu.Col(0, nd), gpu.Col(0, nd))
	if q, c, err := mixDictionariesLeft(p, same, cols); err != nil || q != p || c != same {
		t.Fatalf("one dictionary: got %v, %v, %v; want p and the condition themselves", q, c, err)
	}
}

// A CASE whose values have two dictionaries gives codes of the merged
// dictionary: each value's codes looked up in a table into it, one merged
// array for all values (so the CASE's result has one dictionary), a
// substring's dictionary among them. Runs without a GPU; the generated
// source compiles under NVRTC where it loads (the battery's
// str/two_dictionaries case runs it on a GPU).
func TestMixDictionariesCase(t *testing.T) {
	nd := nul(tDict)
	left, right := dictOfStrings(t, "a", "c", "e"), dictOfStrings(t, "b", "c", "d")
	b := nul(gpu.Type{Kind: gpu.Bool})
	cols := []*column{{t: nd, dict: left}, {t: nd, dict: right}, {t: b}}
	first := &gpu.StrFunc{Kind: gpu.StrSubstring, From: 1, Length: 1, HasLength: true}
	sub := gpu.StrCall(first, nd, gpu.Col(1, nd))
	p := &gpu.Pipeline{Inputs: []gpu.Type{nd, nd, b}, Sink: gpu.SinkMaterialize,
		Project: []*gpu.Expr{call(gpu.OpCase, nd, gpu.Col(2, b), gpu.Col(0, nd), sub), call(gpu.OpCase, nd, gpu.Col(2, b), gpu.Col(0, nd), gpu.Col(0, nd))}}
	got, err := mixDictionaries(p, cols, scanPipeline(p).dictMixes)
	if err != nil {
		t.Fatal(err)
	}
	if got == p || p.Project[0].Args[1].Op != gpu.OpCol {
		t.Fatal("the pipeline was not copied, or the caller's was changed")
	}
	if c := got.Project[1]; c.Args[1].Op != gpu.OpCol || c.Args[2].Op != gpu.OpCol {
		t.Errorf("a CASE of one dictionary was rewritten: %s", c)
	}
	c := got.Project[0]
	if !isCodeIn(c.Args[1]) || !isCodeIn(c.Args[2]) || c.Args[0].Op != gpu.OpCol {
		t.Fatalf("CASE over two dictionaries: %s, want codes in the merged dictionary for both values", c)
	}
	st, err := buildStrTables(got, cols)
	if err != nil {
		t.Fatal(err)
	}
	merged := st.dictOf(c, cols)
	if merged == nil || merged != st.dicts[c.Args[1]] || merged != st.dicts[c.Args[2]] {
		t.Fatal("the CASE's values do not share one merged dictionary")
	}
	var strs []string
	for i := 0; i < merged.Len(); i++ {
		strs = append(strs, merged.Value(i))
	}
	// a, c, e merged with the substrings b, c, d: a b c d e.
	if !slices.Equal(strs, []string{"a", "b", "c", "d", "e"}) {
		t.Fatalf("merged dictionary %v, want [a b c d e]", strs)
	}
	if l, r := st.codes[c.Args[1]], st.codes[c.Args[2]]; !slices.Equal(l, []int32{0, 2, 4}) || !slices.Equal(r, []int32{1, 2, 3}) {
		t.Errorf("code tables %v and %v, want [0 2 4] and [1 2 3]", l, r)
	}
	if err := st.checkDictMixing(got, cols); err != nil {
		t.Errorf("the rewritten pipeline still mixes dictionaries: %v", err)
	}
	if loadNVRTC() == nil {
		src, err := pipelineSource(got, []int{3, 3, 0})
		if err != nil {
			t.Fatal(err)
		}
		compileClean(t, "dict_case", src)
	}
}
