package devicetest

import (
	"context"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
)

// Strings in Arrow layout (gpu.Str, gpu/ext_strings.go): string predicates
// evaluated per row over offsets and characters. Expectations: a hand-made
// table (the dictionary cases' LIKE table, cases_strings.go) and, on random
// and adversarial strings, the same device's dictionary path, an
// independent algorithm (one evaluation per dictionary entry through
// gpu.StrFunc.Match, Like's backtracking). Devices without gpu.StrUploader
// skip these cases.

func strColCases() []testCase {
	return []testCase{
		{"strcol/like_table", testStrColLikeTable},
		{"strcol/predicates_equal_dictionary", testStrColEqualsDict},
		{"strcol/filter_aggregate", testStrColFilterAggregate},
		{"strcol/sliced_and_large_utf8", testStrColSlicedLarge},
		{"strcol/empty_and_all_null", testStrColEmpty},
		{"strcol/download", testStrColDownload},
		{"strcol/refused_elsewhere", testStrColRefused},
	}
}

// uploadStr uploads arr as a Str column, or skips the test.
func uploadStr(t testing.TB, dev gpu.Device, arr arrow.Array) gpu.Column {
	t.Helper()
	su, ok := dev.(gpu.StrUploader)
	if !ok {
		t.Skipf("SKIP: %s holds no strings in Arrow layout", dev.Info().Name)
	}
	c, err := su.UploadStr(context.Background(), arr)
	if err != nil {
		t.Fatalf("upload %s as str: %v", arr.DataType(), err)
	}
	if c.Type().Kind != gpu.Str || c.Len() != arr.Len() || c.Type().Nullable != (arr.NullN() > 0) {
		t.Fatalf("str upload of %d rows (%d nulls) gave %s of %d rows", arr.Len(), arr.NullN(), c.Type(), c.Len())
	}
	return c
}

func strColType(arr arrow.Array) gpu.Type {
	return gpu.Type{Kind: gpu.Str, Nullable: arr.NullN() > 0}
}

// projectStr materializes exprs over one Str column.
func projectStr(t testing.TB, dev gpu.Device, arr arrow.Array, exprs ...*gpu.Expr) []string {
	t.Helper()
	col := uploadStr(t, dev, arr)
	defer col.Release()
	p := &gpu.Pipeline{Inputs: []gpu.Type{strColType(arr)}, Project: exprs, Sink: gpu.SinkMaterialize}
	return RunPipeline(t, dev, p, []gpu.Column{col})
}

func testStrColLikeTable(t *testing.T, dev gpu.Device) {
	checkLikeTable(t, strColType, func(arr arrow.Array, exprs ...*gpu.Expr) []string {
		return projectStr(t, dev, arr, exprs...)
	})
}

// strColFuncs are the predicates compared between the two layouts.
func strColFuncs() []*gpu.StrFunc {
	var fs []*gpu.StrFunc
	for _, p := range []string{"%", "", "_", "%%", "a%", "%a", "%a%", "_a%", "%_é", "é_%", "%aa%aab%", "%aab",
		"a%%b", "%日%😀%", "__", "%b_", "%special%requests%", "a_b_c", "%_%_%"} {
		fs = append(fs, &gpu.StrFunc{Kind: gpu.StrLike, Pattern: p})
	}
	for _, p := range []string{"", "a", "ab", "é", "aab", "日"} {
		fs = append(fs, &gpu.StrFunc{Kind: gpu.StrContains, Pattern: p},
			&gpu.StrFunc{Kind: gpu.StrStartsWith, Pattern: p}, &gpu.StrFunc{Kind: gpu.StrEndsWith, Pattern: p})
		for _, op := range []gpu.Op{gpu.OpEq, gpu.OpNe, gpu.OpLt, gpu.OpLe, gpu.OpGt, gpu.OpGe} {
			fs = append(fs, &gpu.StrFunc{Kind: gpu.StrCompare, Op: op, Pattern: p})
		}
	}
	return append(fs, &gpu.StrFunc{Kind: gpu.StrIn, List: []string{"a", "é", "", "aab"}},
		&gpu.StrFunc{Kind: gpu.StrIn, List: []string{"b"}})
}

// strColStrings: random strings over an alphabet that makes matchers
// trip (repeated letters, multi-byte code points), nulls, and edge cases.
func strColStrings(n int, seed int64) []any {
	rng := rand.New(rand.NewSource(seed))
	alpha := []string{"a", "b", "a", "é", "日", "😀", " ", "c"}
	vals := []any{"", "a", "aab", "aaab", "aaaab", "é", "éé", "日本", nil, "special requests", "ab\x00c"}
	for len(vals) < n {
		if rng.Intn(13) == 0 {
			vals = append(vals, nil)
			continue
		}
		var b strings.Builder
		for k := rng.Intn(12); k > 0; k-- {
			b.WriteString(alpha[rng.Intn(len(alpha))])
		}
		vals = append(vals, b.String())
	}
	return vals
}

func testStrColEqualsDict(t *testing.T, dev gpu.Device) {
	// More rows than one tile of a GPU block, so that several blocks run.
	arr := MakeArray(String, strColStrings(3000, 7)...)
	defer arr.Release()
	var strExprs, dictExprs []*gpu.Expr
	sx, dx := gpu.Col(0, strColType(arr)), gpu.Col(0, inputType(arr))
	for _, f := range strColFuncs() {
		strExprs = append(strExprs, pred(f, sx))
		dictExprs = append(dictExprs, pred(f, dx))
	}
	got := projectStr(t, dev, arr, strExprs...)
	arr.Retain() // project releases its arrays
	want := project(t, dev, arrs(arr), dictExprs...)
	if err := EqualRows(got, want, true, 0); err != nil {
		t.Fatalf("str layout differs from the dictionary path: %v", err)
	}
}

// A filter over a Str column feeding an aggregate grouped by another
// column (TPC-H Q13's shape: o_comment NOT LIKE ... per customer).
func testStrColFilterAggregate(t *testing.T, dev gpu.Device) {
	vals := strColStrings(5000, 11)
	keys := make([]any, len(vals))
	for i := range keys {
		keys[i] = int64(i % 7)
	}
	s := MakeArray(String, vals...)
	k := MakeArray(I64, keys...)
	defer s.Release()
	defer k.Release()
	f := &gpu.StrFunc{Kind: gpu.StrLike, Pattern: "%a%b%"}
	run := func(col gpu.Column, st gpu.Type) []string {
		k.Retain() // Upload releases its array
		kc := Upload(t, dev, k)
		defer kc.Release()
		x := gpu.Col(0, st)
		notLike := gpu.Call(gpu.OpNot, gpu.Type{Kind: gpu.Bool, Nullable: st.Nullable}, pred(f, x))
		p := &gpu.Pipeline{Inputs: []gpu.Type{st, TI64}, Filter: notLike,
			Project: []*gpu.Expr{gpu.Col(1, TI64)}, Sink: gpu.SinkAggregate,
			Keys: []int{0}, Aggs: []gpu.Agg{{Kind: gpu.AggCountStar, Type: TCount}}}
		return RunPipeline(t, dev, p, []gpu.Column{col, kc})
	}
	sc := uploadStr(t, dev, s)
	defer sc.Release()
	s.Retain()
	dc := Upload(t, dev, s)
	defer dc.Release()
	got, want := run(sc, strColType(s)), run(dc, inputType(s))
	if err := EqualRows(got, want, false, 0); err != nil {
		t.Fatalf("str layout differs from the dictionary path: %v", err)
	}
	if len(got) != 7 {
		t.Fatalf("%d groups, want 7", len(got))
	}
}

// A sliced array's offsets do not start at 0, and large_utf8 has int64
// offsets: both are rebased to int32 from 0 at upload.
func testStrColSlicedLarge(t *testing.T, dev gpu.Device) {
	full := MakeArray(String, "skip me", "x", "forest", nil, "green forest", "é")
	defer full.Release()
	sliced := array.NewSlice(full, 2, 6)
	defer sliced.Release()
	large := MakeArray(LString, "forest", nil, "green forest", "é")
	defer large.Release()
	for _, arr := range []arrow.Array{sliced, large} {
		x := gpu.Col(0, strColType(arr))
		got := projectStr(t, dev, arr, pred(&gpu.StrFunc{Kind: gpu.StrLike, Pattern: "%forest"}, x),
			pred(&gpu.StrFunc{Kind: gpu.StrCompare, Op: gpu.OpEq, Pattern: "é"}, x))
		expectRows(t, got, []string{Row("true", "false"), Row(NullCell, NullCell), Row("true", "false"), Row("false", "true")}, true)
	}
}

func testStrColEmpty(t *testing.T, dev gpu.Device) {
	empty := MakeArray(String)
	defer empty.Release()
	got := projectStr(t, dev, empty, pred(&gpu.StrFunc{Kind: gpu.StrLike, Pattern: "%a%"}, gpu.Col(0, strColType(empty))))
	expectRows(t, got, nil, true)
	nulls := MakeArray(String, nil, nil, nil)
	defer nulls.Release()
	got = projectStr(t, dev, nulls, pred(&gpu.StrFunc{Kind: gpu.StrLike, Pattern: "%"}, gpu.Col(0, strColType(nulls))))
	expectRows(t, got, []string{Row(NullCell), Row(NullCell), Row(NullCell)}, true)
}

func testStrColDownload(t *testing.T, dev gpu.Device) {
	arr := MakeArray(String, strColStrings(500, 3)...)
	defer arr.Release()
	col := uploadStr(t, dev, arr)
	defer col.Release()
	got := Download(t, dev, []gpu.Column{col})
	defer ReleaseAll(got)
	if !array.Equal(got[0], arr) {
		t.Fatalf("downloaded str column differs from the upload")
	}
}

// What gpu/ext_strings.go does not list is refused with ErrUnsupported
// (the engine never plans it), never run wrongly or with a panic: an
// expression over a Str value other than a string predicate (a
// comparison, is null, a string function, a case giving str), a Str
// value as an aggregate's argument (min, count; a group key is fine), and
// Str join keys.
func testStrColRefused(t *testing.T, dev gpu.Device) {
	arr := MakeArray(String, "b", "a", nil)
	defer arr.Release()
	col := uploadStr(t, dev, arr)
	defer col.Release()
	st := strColType(arr)
	x := gpu.Col(0, st)
	run := func(p *gpu.Pipeline) error { return RunPipelineErr(dev, p, []gpu.Column{col}) }
	project := func(e *gpu.Expr) error {
		return run(&gpu.Pipeline{Inputs: []gpu.Type{st}, Project: []*gpu.Expr{e}, Sink: gpu.SinkMaterialize})
	}
	nb := N(TBool)
	expectUnsupported(t, project(gpu.Call(gpu.OpIsNull, TBool, x)), "is null of a str column")
	expectUnsupported(t, project(gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrSubstring, From: 1, Length: 1, HasLength: true}, N(TDict), x)), "substring of a str column")
	expectUnsupported(t, project(gpu.Call(gpu.OpEq, nb, x, x)), "str = str")
	expectUnsupported(t, project(gpu.Call(gpu.OpLt, nb, x, x)), "str < str")
	expectUnsupported(t, project(gpu.Call(gpu.OpCase, st, gpu.Const(TBool, gpu.Value{I64: 1}), x, x)), "case giving str")
	expectUnsupported(t, run(&gpu.Pipeline{Inputs: []gpu.Type{st}, Filter: gpu.Call(gpu.OpNe, nb, x, x),
		Project: []*gpu.Expr{x}, Sink: gpu.SinkMaterialize}), "filter comparing str values")
	agg := func(keys []int, a gpu.Agg) error {
		return run(&gpu.Pipeline{Inputs: []gpu.Type{st}, Project: []*gpu.Expr{x}, Sink: gpu.SinkAggregate, Keys: keys, Aggs: []gpu.Agg{a}})
	}
	expectUnsupported(t, agg(nil, minOf(0, st)), "min of a str column")
	expectUnsupported(t, agg(nil, count(0)), "count of a str column")
	expectUnsupported(t, agg([]int{0}, count(0)), "count of a str group key")
	i64 := Upload(t, dev, MakeArray(I64, int64(1), int64(2), int64(3)))
	defer i64.Release()
	expectUnsupported(t, tryJoin(dev, []gpu.Column{col}, []gpu.Column{col}, nil), "join on a str column")
	expectUnsupported(t, tryJoin(dev, []gpu.Column{i64, col}, []gpu.Column{i64, col}, []bool{false, true}), "join on an int and a str column")
}
