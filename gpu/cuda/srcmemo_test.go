package cuda

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

func TestMemoSourceReusesAndEvicts(t *testing.T) {
	d := &Device{}
	calls := 0
	gen := func(s string) func() (string, error) {
		return func() (string, error) { calls++; return s, nil }
	}
	memoSource := func(k srcKey, gen func() (string, error)) (string, error) {
		e, err := d.memoEntry(k, gen)
		if err != nil {
			return "", err
		}
		return e.src, nil
	}
	i64 := gpu.Type{Kind: gpu.Int64}
	p := &gpu.Pipeline{Inputs: []gpu.Type{i64}, Project: []*gpu.Expr{gpu.Col(0, i64)}, Sink: gpu.SinkMaterialize}
	for i := 0; i < 3; i++ {
		if s, _ := memoSource(srcKey{p: p, kind: "materialize"}, gen("a")); s != "a" {
			t.Fatalf("got %q", s)
		}
	}
	if calls != 1 {
		t.Fatalf("generated %d times for one pipeline, want 1", calls)
	}
	// A pipeline changed in place is generated again.
	p.Filter = gpu.Call(gpu.OpGt, gpu.Type{Kind: gpu.Bool}, gpu.Col(0, i64), gpu.Const(i64, gpu.Value{I64: 3}))
	if s, _ := memoSource(srcKey{p: p, kind: "materialize"}, gen("a2")); s != "a2" || calls != 2 {
		t.Fatalf("after a change: got %q after %d generations", s, calls)
	}
	p.Filter.Args[1].Const.I64 = 4
	if s, _ := memoSource(srcKey{p: p, kind: "materialize"}, gen("a3")); s != "a3" || calls != 3 {
		t.Fatalf("after a constant changed: got %q after %d generations", s, calls)
	}
	// Other inputs of the generator are part of the key.
	if s, _ := memoSource(srcKey{p: p, kind: "aggregate", extra: "[3]"}, gen("b")); s != "b" || calls != 4 {
		t.Fatalf("got %q after %d generations", s, calls)
	}
	// A failed generation is not remembered.
	if _, err := memoSource(srcKey{p: p, kind: "bad"}, func() (string, error) { return "", fmt.Errorf("no") }); err == nil {
		t.Fatal("no error")
	}
	if _, ok := d.srcs.src[srcKey{p: p, kind: "bad"}]; ok {
		t.Fatal("a failed generation was memoized")
	}
	for i := 0; i < srcMemoEntries; i++ {
		memoSource(srcKey{p: &gpu.Pipeline{}, kind: "materialize"}, gen("x"))
	}
	if len(d.srcs.src) != srcMemoEntries || len(d.srcs.order) != srcMemoEntries {
		t.Fatalf("memo holds %d entries (%d in order), bound %d", len(d.srcs.src), len(d.srcs.order), srcMemoEntries)
	}
	if _, ok := d.srcs.src[srcKey{p: p, kind: "materialize"}]; ok {
		t.Fatal("the oldest entry was not evicted")
	}
}

// Every sample pipeline equals its clone, and no longer does once any
// field is changed; the clone shares nothing that a change could reach.
func TestClonePipelineIsDeep(t *testing.T) {
	for _, s := range samplePipelines() {
		c := clonePipeline(s.p)
		if !samePipeline(c, s.p) {
			t.Errorf("%s: clone differs", s.name)
		}
	}
	d := gpu.Type{Kind: gpu.Decimal128, Precision: 38, Scale: 2}
	s := gpu.Type{Kind: gpu.Dict}
	p := &gpu.Pipeline{Inputs: []gpu.Type{d, s}, Sink: gpu.SinkAggregate, Keys: []int{1},
		Filter:  gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrIn, List: []string{"a", "b"}}, gpu.Type{Kind: gpu.Bool}, gpu.Col(1, s)),
		Project: []*gpu.Expr{gpu.Const(d, gpu.Value{I128: big.NewInt(7)}), gpu.Col(1, s)},
		Aggs:    []gpu.Agg{{Kind: gpu.AggSum, Arg: 0, Type: d}}}
	changes := []func(p *gpu.Pipeline){
		func(p *gpu.Pipeline) { p.Filter.Str.List[1] = "c" },
		func(p *gpu.Pipeline) { p.Project[0].Const.I128.SetInt64(8) },
		func(p *gpu.Pipeline) { p.Aggs[0].Kind = gpu.AggMax },
		func(p *gpu.Pipeline) { p.Keys[0] = 0 },
		func(p *gpu.Pipeline) { p.Inputs[0].Nullable = true },
		func(p *gpu.Pipeline) { p.GroupHint = 9 },
		func(p *gpu.Pipeline) { p.Project[1].Type.Nullable = true },
	}
	for i, change := range changes {
		c := clonePipeline(p)
		change(p)
		if samePipeline(c, p) {
			t.Errorf("change %d: the clone still equals the changed pipeline", i)
		}
		change2 := clonePipeline(c) // undo: restore p from the clone
		*p = *change2
	}
}

// TestMemoCoversEveryField pins the fields that clonePipeline and
// samePipeline know: a field added to one of these types must be added
// there too (a change to it would otherwise reuse a stale kernel).
func TestMemoCoversEveryField(t *testing.T) {
	want := map[reflect.Type][]string{
		reflect.TypeOf(gpu.Pipeline{}): {"Inputs", "Filter", "Project", "Sink", "Keys", "Aggs", "GroupHint"},
		reflect.TypeOf(gpu.Expr{}):     {"Op", "Type", "Args", "Col", "Const", "Str"},
		reflect.TypeOf(gpu.Value{}):    {"Null", "I64", "F64", "I128"},
		reflect.TypeOf(gpu.Agg{}):      {"Kind", "Arg", "Type"},
		reflect.TypeOf(gpu.Type{}):     {"Kind", "Precision", "Scale", "Nullable"},
		reflect.TypeOf(gpu.StrFunc{}):  {"Kind", "Pattern", "Op", "List", "From", "Length", "HasLength"},
	}
	for typ, fields := range want {
		var got []string
		for i := 0; i < typ.NumField(); i++ {
			got = append(got, typ.Field(i).Name)
		}
		if !slices.Equal(got, fields) {
			t.Errorf("%s has fields %v; srcmemo.go compares %v: update clonePipeline and samePipeline", typ, got, fields)
		}
	}
}

// With RIGEL_DUMP_CUDA set, a source the memo generates is written there,
// named by its kind and hash, as it is compiled.
func TestMemoDumpsSources(t *testing.T) {
	defer func(dir string) { dumpDir = dir }(dumpDir)
	dumpDir = filepath.Join(t.TempDir(), "kernels")
	d := &Device{}
	i64 := gpu.Type{Kind: gpu.Int64}
	p := &gpu.Pipeline{Inputs: []gpu.Type{i64}, Project: []*gpu.Expr{gpu.Col(0, i64)}, Sink: gpu.SinkMaterialize}
	e, err := d.memoEntry(srcKey{p: p, kind: "probe find"}, func() (string, error) { return "// kernel\n", nil })
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dumpDir, "probe-find-*.cu"))
	if len(files) != 1 {
		t.Fatalf("dumped %v, want one probe-find-<hash>.cu", files)
	}
	if b, err := os.ReadFile(files[0]); err != nil || string(b) != e.src {
		t.Fatalf("dumped %q (%v), want the memo's source %q", b, err, e.src)
	}
}
