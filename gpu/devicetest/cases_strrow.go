package devicetest

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rigel-db/rigel/gpu"
)

// Row-wise string functions (OpStrRow, gpu/ir_strrow.go). A device that
// does not run them must refuse them with ErrUnsupported: the case then
// checks that and skips (the host and CUDA devices run them all). Expectations are
// written by hand from functions_string.yaml and its test cases.

func strRowCases() []testCase {
	return []testCase{
		{"strrow/concat_columns", testRowConcat},
		{"strrow/numeric_args", testRowNumericArgs},
		{"strrow/filtered_rows_never_fail", testRowFiltered},
		{"strrow/regexp", testRowRegexp},
		{"strrow/joined_and_grouped", testRowJoinedGrouped},
		{"strtable/row_kinds", testRowTables},
		{"time/parts", testTimeParts},
		{"time/add_months_days", testAddMonths},
	}
}

// runRow runs p, or skips when the device refuses OpStrRow cleanly.
func runRow(t *testing.T, dev gpu.Device, p *gpu.Pipeline, arrs []arrow.Array) []string {
	t.Helper()
	cols, _ := table(t, dev, arrs...)
	defer ReleaseCols(cols)
	if err := RunPipelineErr(dev, p, cols); err != nil {
		if errors.Is(err, gpu.ErrUnsupported) {
			t.Skipf("SKIP: the device refuses row-wise string functions: %v", err)
		}
		t.Fatal(err)
	}
	return RunPipeline(t, dev, p, cols)
}

// q is a string cell as rows render it.
func q(s string) string { return strconv.Quote(s) }

func row(k gpu.StrFuncKind, t gpu.Type, args ...*gpu.Expr) *gpu.Expr {
	return gpu.RowCall(&gpu.StrFunc{Kind: k}, t, args...)
}

func testRowConcat(t *testing.T, dev gpu.Device) {
	a := MakeArray(String, "ab", "", nil, "é", "x")
	b := MakeArray(String, "cd", "z", "q", nil, "x")
	ta, tb := inputType(a), inputType(b)
	x, y := gpu.Col(0, ta), gpu.Col(1, tb)
	str := gpu.Type{Kind: gpu.Dict, Nullable: true}
	cat := row(gpu.StrRowConcat, str, x, y)
	p := &gpu.Pipeline{Inputs: []gpu.Type{ta, tb}, Sink: gpu.SinkMaterialize, Project: []*gpu.Expr{
		cat,
		row(gpu.StrRowConcatIgnoreNulls, str, x, y),
		row(gpu.StrRowCharLength, gpu.Type{Kind: gpu.Int64, Nullable: true}, cat),
		row(gpu.StrRowStartsWith, gpu.Type{Kind: gpu.Bool, Nullable: true}, x, y),
		// A comparison of two OpStrRow results sharing one node: one dictionary.
		gpu.Call(gpu.OpEq, gpu.Type{Kind: gpu.Bool, Nullable: true}, cat, cat),
	}}
	got := runRow(t, dev, p, arrs(a, b))
	T, F, N := "true", "false", NullCell
	expectRows(t, got, []string{
		Row(q("abcd"), q("abcd"), "4", F, T),
		Row(q("z"), q("z"), "1", F, T),
		Row(N, q("q"), N, N, N),
		Row(N, q("é"), N, N, N),
		Row(q("xx"), q("xx"), "2", T, T),
	}, true)
}

func testRowNumericArgs(t *testing.T, dev gpu.Device) {
	s := MakeArray(String, "abcdef", "😔😄😔😄", "ab", nil, "abc")
	n := MakeArray(I64, 3, 2, 5, 1, nil)
	ts, tn := inputType(s), inputType(n)
	x, k := gpu.Col(0, ts), gpu.Col(1, tn)
	str := gpu.Type{Kind: gpu.Dict, Nullable: true}
	star := gpu.Const(TDict, gpu.Value{I64: 0}) // Str.List[0]
	lp := gpu.RowCall(&gpu.StrFunc{Kind: gpu.StrRowLpad, List: []string{"*-"}}, str, x, k, star)
	p := &gpu.Pipeline{Inputs: []gpu.Type{ts, tn}, Sink: gpu.SinkMaterialize, Project: []*gpu.Expr{
		row(gpu.StrRowLeft, str, x, k),
		row(gpu.StrRowRight, str, x, k),
		row(gpu.StrRowRepeat, str, x, k),
		lp,
		row(gpu.StrRowSubstring, str, x, k),
	}}
	got := runRow(t, dev, p, arrs(s, n))
	N := NullCell
	expectRows(t, got, []string{
		Row(q("abc"), q("def"), q("abcdefabcdefabcdef"), q("abc"), q("cdef")),
		Row(q("😔😄"), q("😔😄"), q("😔😄😔😄😔😄😔😄"), q("😔😄"), q("😄😔😄")),
		Row(q("ab"), q("ab"), q("ababababab"), q("*-*ab"), q("")),
		Row(N, N, N, N, N),
		Row(N, N, N, N, N),
	}, true)
}

// A row the filter drops is never evaluated: repeat's oversized result
// there must not fail the pipeline; on a kept row it must.
func testRowFiltered(t *testing.T, dev gpu.Device) {
	s := MakeArray(String, "abc", "xyz")
	n := MakeArray(I64, 2, 1<<40)
	ts, tn := inputType(s), inputType(n)
	x, k := gpu.Col(0, ts), gpu.Col(1, tn)
	rep := row(gpu.StrRowRepeat, gpu.Type{Kind: gpu.Dict}, x, k)
	small := gpu.Call(gpu.OpLt, TBool, k, gpu.Const(TI64, gpu.Value{I64: 100}))
	p := &gpu.Pipeline{Inputs: []gpu.Type{ts, tn}, Filter: small, Sink: gpu.SinkMaterialize, Project: []*gpu.Expr{rep}}
	expectRows(t, runRow(t, dev, p, arrs(s, n)), []string{Row(q("abcabc"))}, true)
	all := &gpu.Pipeline{Inputs: []gpu.Type{ts, tn}, Sink: gpu.SinkMaterialize, Project: []*gpu.Expr{rep}}
	cols, _ := table(t, dev, MakeArray(String, "abc", "xyz"), MakeArray(I64, 2, 1<<40))
	defer ReleaseCols(cols)
	expectError(t, RunPipelineErr(dev, all, cols), "repeat of 2^40 copies")
}

func testRowRegexp(t *testing.T, dev gpu.Device) {
	s := MakeArray(String, "foobarboopzoo", "abc1abc", "a٣b", "abcdefc", nil)
	p := MakeArray(String, "o{1,}", `\d`, `\d`, "(.*)c?", "x")
	ts, tp := inputType(s), inputType(p)
	x, re := gpu.Col(0, ts), gpu.Col(1, tp)
	str := gpu.Type{Kind: gpu.Dict, Nullable: true}
	// Occurrence 1: the first match (occurrence 0 with several matches is
	// refused, see gpu/regexp.go).
	one := gpu.Const(TI64, gpu.Value{I64: 1})
	rep := gpu.RowCall(&gpu.StrFunc{Kind: gpu.StrRowRegexpReplace, List: []string{`<\0>`}}, str, x, re, gpu.Const(TDict, gpu.Value{}), one, one)
	pl := &gpu.Pipeline{Inputs: []gpu.Type{ts, tp}, Sink: gpu.SinkMaterialize, Project: []*gpu.Expr{
		row(gpu.StrRowRegexpCount, gpu.Type{Kind: gpu.Int64, Nullable: true}, x, re),
		row(gpu.StrRowRegexpMatch, str, x, re),
		rep,
	}}
	got := runRow(t, dev, pl, arrs(s, p))
	N := NullCell
	expectRows(t, got, []string{
		Row("3", q("oo"), q("f<oo>barboopzoo")),
		Row("1", q("1"), q("abc<1>abc")),
		Row("1", q("٣"), q("a<٣>b")), // ICU's \d is every decimal digit
		Row("2", q("abcdefc"), q("<abcdefc>")),
		Row(N, N, N),
	}, true)
}

// runTime runs p, or skips when the device refuses the datetime ops
// (OpTimePart, OpAddMonths, OpAddDayInterval) cleanly.
func runTime(t *testing.T, dev gpu.Device, p *gpu.Pipeline, arrs []arrow.Array) []string {
	return runRow(t, dev, p, arrs)
}

func part(x *gpu.Expr, p gpu.TimePart, perSec int64) *gpu.Expr {
	return gpu.Call(gpu.OpTimePart, gpu.Type{Kind: gpu.Int64, Nullable: x.Type.Nullable}, x,
		gpu.Const(TI64, gpu.Value{I64: int64(p)}), gpu.Const(TI64, gpu.Value{I64: perSec}))
}

func testTimeParts(t *testing.T, dev gpu.Device) {
	// Microseconds since the epoch: 2016-12-31 13:30:15.22, 1969-12-31
	// 23:59:59.999999, 2016-01-01 00:00:00, null.
	ts := MakeArray(I64, 1483191015220000, -1, 1451606400000000, nil)
	x := gpu.Col(0, inputType(ts))
	parts := []gpu.TimePart{gpu.PartYear, gpu.PartISOYear, gpu.PartQuarter, gpu.PartMonth, gpu.PartDay,
		gpu.PartDayOfYear, gpu.PartMondayDOW, gpu.PartSundayDOW, gpu.PartISOWeek, gpu.PartHour,
		gpu.PartMinute, gpu.PartSecond, gpu.PartSubsecond, gpu.PartUnixTime}
	var proj []*gpu.Expr
	for _, p := range parts {
		proj = append(proj, part(x, p, 1_000_000))
	}
	p := &gpu.Pipeline{Inputs: []gpu.Type{inputType(ts)}, Project: proj, Sink: gpu.SinkMaterialize}
	N := NullCell
	expectRows(t, runTime(t, dev, p, arrs(ts)), []string{
		// 2016-12-31 is a Saturday in ISO week 52 of 2016.
		Row("2016", "2016", "4", "12", "31", "366", "6", "7", "52", "13", "30", "15", "220000", "1483191015"),
		// 1969-12-31 is a Wednesday in ISO week 1 of 1970.
		Row("1969", "1970", "4", "12", "31", "365", "3", "4", "1", "23", "59", "59", "999999", "-1"),
		// 2016-01-01 is a Friday in ISO week 53 of 2015.
		Row("2016", "2015", "1", "1", "1", "1", "5", "6", "53", "0", "0", "0", "0", "1451606400"),
		Row(N, N, N, N, N, N, N, N, N, N, N, N, N, N),
	}, true)
}

func testAddMonths(t *testing.T, dev gpu.Device) {
	d := MakeArray(Date, "2020-01-31", "2019-03-31", "2020-12-31", nil, "1900-03-15", "1970-01-01", "2000-02-29")
	m := MakeArray(I64, 1, -1, 5, 1, -2, -25, 12)
	td, tm := inputType(d), inputType(m)
	dt := gpu.Type{Kind: gpu.Date32, Nullable: true}
	days := gpu.Call(gpu.OpMul, TI64, gpu.Col(1, tm), gpu.Const(TI64, gpu.Value{I64: 86400}))
	p := &gpu.Pipeline{Inputs: []gpu.Type{td, tm}, Sink: gpu.SinkMaterialize, Project: []*gpu.Expr{
		gpu.Call(gpu.OpAddMonths, dt, gpu.Col(0, td), gpu.Col(1, tm)),
		gpu.Call(gpu.OpAddDayInterval, dt, gpu.Col(0, td), days, gpu.Const(TI64, gpu.Value{I64: 1})),
	}}
	N := NullCell
	expectRows(t, runTime(t, dev, p, arrs(d, m)), []string{
		Row("2020-02-29", "2020-02-01"),
		Row("2019-02-28", "2019-03-30"),
		Row("2021-05-31", "2021-01-05"),
		Row(N, N),
		Row("1900-01-15", "1900-03-13"),
		Row("1967-12-01", "1969-12-07"),
		Row("2001-02-28", "2000-03-12"),
	}, true)
	// Half a day cannot move a date.
	half := &gpu.Pipeline{Inputs: []gpu.Type{td, tm}, Sink: gpu.SinkMaterialize, Project: []*gpu.Expr{
		gpu.Call(gpu.OpAddDayInterval, dt, gpu.Col(0, td), gpu.Col(1, tm), gpu.Const(TI64, gpu.Value{I64: 1})),
	}}
	cols, _ := table(t, dev, MakeArray(Date, "2020-01-31"), MakeArray(I64, 43200))
	defer ReleaseCols(cols)
	expectError(t, RunPipelineErr(dev, half, cols), "adding half a day to a date")
}

// Row functions whose only column is their first string run through the
// dictionary tables (gpu/strrow_tables.go): every device runs them.
func testRowTables(t *testing.T, dev gpu.Device) {
	arr := MakeArray(String, "abc", "bb", "abc", nil, "été")
	x := gpu.Col(0, inputType(arr))
	str := gpu.Type{Kind: gpu.Dict, Nullable: true}
	b := gpu.Type{Kind: gpu.Bool, Nullable: true}
	lp := gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrRowLpad, List: []string{"5", "*"}}, str, x)
	up := gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrRowUpper}, str, x)
	ci := gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrRowContainsFold, List: []string{"B"}}, b, x)
	// A table over a table: lpad of upper, compared with a constant.
	eq := gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrCompare, Op: gpu.OpEq, Pattern: "**ABC"}, b,
		gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrRowLpad, List: []string{"5", "*"}}, str, up))
	got := project(t, dev, arrs(arr), lp, up, ci, eq)
	T, F, N := "true", "false", NullCell
	expectRows(t, got, []string{
		Row(q("**abc"), q("ABC"), T, T),
		Row(q("***bb"), q("BB"), T, F),
		Row(q("**abc"), q("ABC"), T, T),
		Row(N, N, N, N),
		Row(q("**été"), q("ÉTÉ"), F, F),
	}, true)
	// An entry the function refuses (ICU's \w on non-ASCII text) refuses
	// the whole table: the row path decides per row.
	re := gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrRowRegexpReplace, List: []string{`\w`, "x", "1", "1"}}, str, x)
	err := projectErr(t, dev, arrs(MakeArray(String, "abc", "été")), re)
	if !errors.Is(err, gpu.ErrUnsupported) {
		t.Fatalf("regexp table over a non-ASCII entry: %v, want ErrUnsupported", err)
	}
}

// Row functions over a join's pairs (a projection of both sides: TPC-DS
// q84's names) and as a group key (q05's concat('store', id) under its
// rollup), with nulls and a filter that keeps some pairs.
func testRowJoinedGrouped(t *testing.T, dev gpu.Device) {
	str := gpu.Type{Kind: gpu.Dict, Nullable: true}
	ids := MakeArray(String, "s1", nil, "s2", "s1", "s3")
	vals := MakeArray(I64, 1, 2, 3, 4, 5)
	ti, tv := inputType(ids), inputType(vals)
	store := gpu.Const(TDict, gpu.Value{I64: 0}) // Str.List[0]
	cat := gpu.RowCall(&gpu.StrFunc{Kind: gpu.StrRowConcatIgnoreNulls, List: []string{"store"}}, str, store, gpu.Col(0, ti))
	agg := &gpu.Pipeline{Inputs: []gpu.Type{ti, tv}, Sink: gpu.SinkAggregate, Keys: []int{0},
		Project: []*gpu.Expr{cat, gpu.Col(1, tv)}, Aggs: []gpu.Agg{sumDec(1, 0), countStar()}}
	expectRows(t, runRow(t, dev, agg, arrs(ids, vals)), []string{
		Row(q("store"), "2", "1"), Row(q("stores1"), "5", "2"), Row(q("stores2"), "3", "1"), Row(q("stores3"), "5", "1"),
	}, false)

	pr, ok := dev.(gpu.ProbeRunner)
	if !ok {
		return
	}
	last := []any{"Ng", nil, "Smith", "Ada"}
	first := []any{"Li", "Bo", nil, "A"}
	probe := []gpu.Column{Upload(t, dev, MakeArray(I64, 1, 2, 3, 4, 1)), Upload(t, dev, MakeArray(String, append([]any(nil), append(last, "Ng")...)...))}
	defer ReleaseCols(probe)
	build := []gpu.Column{Upload(t, dev, MakeArray(I64, 1, 2, 3, 4)), Upload(t, dev, MakeArray(String, first...))}
	defer ReleaseCols(build)
	in := []gpu.Type{probe[0].Type(), probe[1].Type(), build[0].Type(), build[1].Type()}
	empty := gpu.Const(TDict, gpu.Value{I64: 0})
	coal := func(c int) *gpu.Expr {
		return gpu.RowCall(&gpu.StrFunc{Kind: gpu.StrRowCoalesce, List: []string{""}}, str, gpu.Col(c, in[c]), empty)
	}
	name := gpu.RowCall(&gpu.StrFunc{Kind: gpu.StrRowConcat, List: []string{", "}}, str, coal(1), gpu.Const(TDict, gpu.Value{I64: 0}), coal(3))
	p := &gpu.Pipeline{Inputs: in, Sink: gpu.SinkMaterialize,
		Filter:  gpu.Call(gpu.OpNe, TBool, gpu.Col(0, in[0]), gpu.Const(TI64, gpu.Value{I64: 4})),
		Project: []*gpu.Expr{gpu.Col(0, in[0]), name}}
	out, err := pr.RunProbe(context.Background(), p, probe, build, []int{0}, []int{0}, nil)
	if err != nil {
		t.Fatalf("run probe with a row function: %v", err)
	}
	got := Rows(t, dev, out)
	ReleaseCols(out)
	if err := EqualRows(got, []string{Row("1", q("Ng, Li")), Row("2", q(", Bo")), Row("3", q("Smith, ")), Row("1", q("Ng, Li"))}, false, 0); err != nil {
		t.Fatalf("row function over a join's pairs: %v", err)
	}
}
