package devicetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rigel-db/rigel/gpu"
)

// String predicates and functions (OpStrPred, OpStrMap) and date parts
// (OpYear, OpMonth, OpDay). Expectations are written out by hand from
// DuckDB's semantics (checked with DuckDB 1.5.3), not computed with
// gpu/strfunc.go.

func stringCases() []testCase {
	return []testCase{
		{"str/compare_constant", testStrCompare},
		{"str/like", testStrLike},
		{"str/contains_prefix_suffix", testStrContains},
		{"str/in_list", testStrIn},
		{"str/substring", testStrSubstring},
		{"str/substring_group_by", testStrSubstringGroupBy},
		{"str/filter_aggregate", testStrFilterAggregate},
		{"date/parts", testDateParts},
		{"str/two_dictionaries", testStrTwoDictionaries},
		{"str/two_dictionaries_joined", testStrCompareAcrossJoin},
		{"str/large_dictionary_twice", testStrLargeDictionaryTwice},
	}
}

func pred(f *gpu.StrFunc, arg *gpu.Expr) *gpu.Expr {
	return gpu.StrCall(f, gpu.Type{Kind: gpu.Bool, Nullable: arg.Type.Nullable}, arg)
}

func testStrCompare(t *testing.T, dev gpu.Device) {
	arr := MakeArray(String, "MAIL", "SHIP", "", "é", nil, "AIR", "MAILS")
	ta := inputType(arr)
	x := gpu.Col(0, ta)
	cmp := func(op gpu.Op, s string) *gpu.Expr {
		return pred(&gpu.StrFunc{Kind: gpu.StrCompare, Op: op, Pattern: s}, x)
	}
	got := project(t, dev, arrs(arr),
		cmp(gpu.OpEq, "MAIL"), cmp(gpu.OpNe, "MAIL"), cmp(gpu.OpLt, "MAIL"),
		cmp(gpu.OpLe, "MAIL"), cmp(gpu.OpGt, "MAIL"), cmp(gpu.OpGe, "MAIL"),
		cmp(gpu.OpEq, ""), cmp(gpu.OpGt, "z"), cmp(gpu.OpEq, "NOPE"))
	T, F, N := "true", "false", NullCell
	expectRows(t, got, []string{
		Row(T, F, F, T, F, T, F, F, F), // MAIL
		Row(F, T, F, F, T, T, F, F, F), // SHIP
		Row(F, T, T, T, F, F, T, F, F), // ""
		Row(F, T, F, F, T, T, F, T, F), // é (0xC3 0xA9 sorts after ASCII)
		Row(N, N, N, N, N, N, N, N, N),
		Row(F, T, T, T, F, F, F, F, F), // AIR
		Row(F, T, F, F, T, T, F, F, F), // MAILS
	}, true)
}

func testStrLike(t *testing.T, dev gpu.Device) {
	checkLikeTable(t, inputType, func(arr arrow.Array, exprs ...*gpu.Expr) []string {
		return project(t, dev, arrs(arr), exprs...)
	})
}

// checkLikeTable runs the LIKE table through run, which projects exprs
// over arr in one string layout (colType gives arr's column type there):
// dictionary codes (testStrLike) and Arrow layout (testStrColLikeTable)
// must give the same cells.
func checkLikeTable(t *testing.T, colType func(arrow.Array) gpu.Type, run func(arr arrow.Array, exprs ...*gpu.Expr) []string) {
	t.Helper()
	arr := MakeArray(String,
		"forest green metallic",     // 0
		"PROMO BRUSHED BRASS",       // 1
		"special packages requests", // 2
		"",                          // 3
		"é",                         // 4
		nil,                         // 5
		"a_c",                       // 6
		"abc",                       // 7
		`a\b`,                       // 8
		"MEDIUM POLISHED TIN",       // 9
	)
	defer arr.Release()
	x := gpu.Col(0, colType(arr))
	like := func(p string) *gpu.Expr { return pred(&gpu.StrFunc{Kind: gpu.StrLike, Pattern: p}, x) }
	notLike := func(p string) *gpu.Expr {
		return gpu.Call(gpu.OpNot, gpu.Type{Kind: gpu.Bool, Nullable: true}, like(p))
	}
	got := run(arr,
		like("%green%"), like("PROMO%"), like("%BRASS"), like("%special%requests%"),
		like("_"), like("a_c"), like("%"), like(""), like(`a\b`), like("MEDIUM POLISHED%"),
		notLike("%e%"), like("%x%x%"))
	T, F, N := "true", "false", NullCell
	expectRows(t, got, []string{
		Row(T, F, F, F, F, F, T, F, F, F, F, F),
		Row(F, T, T, F, F, F, T, F, F, F, T, F),
		Row(F, F, F, T, F, F, T, F, F, F, F, F),
		Row(F, F, F, F, F, F, T, T, F, F, T, F),
		Row(F, F, F, F, T, F, T, F, F, F, T, F), // '_' is one code point
		Row(N, N, N, N, N, N, N, N, N, N, N, N),
		Row(F, F, F, F, F, T, T, F, F, F, T, F),
		Row(F, F, F, F, F, T, T, F, F, F, T, F),
		Row(F, F, F, F, F, F, T, F, T, F, T, F), // no escape character
		Row(F, F, F, F, F, F, T, F, F, T, T, F),
	}, true)
}

func testStrContains(t *testing.T, dev gpu.Device) {
	arr := MakeArray(String, "Brand#12", "brand#12", "", nil, "déjà vu")
	x := gpu.Col(0, inputType(arr))
	f := func(k gpu.StrFuncKind, p string) *gpu.Expr { return pred(&gpu.StrFunc{Kind: k, Pattern: p}, x) }
	got := project(t, dev, arrs(arr),
		f(gpu.StrContains, "#1"), f(gpu.StrStartsWith, "Brand"), f(gpu.StrEndsWith, "12"),
		f(gpu.StrContains, ""), f(gpu.StrContains, "jà"), f(gpu.StrEndsWith, "vu"))
	T, F, N := "true", "false", NullCell
	expectRows(t, got, []string{
		Row(T, T, T, T, F, F),
		Row(T, F, T, T, F, F),
		Row(F, F, F, T, F, F),
		Row(N, N, N, N, N, N),
		Row(F, F, F, T, T, T),
	}, true)
}

func testStrIn(t *testing.T, dev gpu.Device) {
	arr := MakeArray(String, "MAIL", "SHIP", "AIR", nil, "", "TRUCK")
	x := gpu.Col(0, inputType(arr))
	in := func(list ...string) *gpu.Expr { return pred(&gpu.StrFunc{Kind: gpu.StrIn, List: list}, x) }
	nb := gpu.Type{Kind: gpu.Bool, Nullable: true}
	got := project(t, dev, arrs(arr),
		in("MAIL", "SHIP"),
		gpu.Call(gpu.OpNot, nb, in("MAIL", "SHIP")),
		in("nothing", "at all"),
		in("MAIL", "SHIP", "AIR", "", "TRUCK"),
		in(""),
		// IN with a null option: an OR with a null bool.
		gpu.Call(gpu.OpOr, nb, in("AIR"), gpu.Const(nb, gpu.Value{Null: true})))
	T, F, N := "true", "false", NullCell
	expectRows(t, got, []string{
		Row(T, F, F, T, F, N),
		Row(T, F, F, T, F, N),
		Row(F, T, F, T, F, T),
		Row(N, N, N, N, N, N),
		Row(F, T, F, T, T, N),
		Row(F, T, F, T, F, N),
	}, true)
}

func testStrSubstring(t *testing.T, dev gpu.Device) {
	arr := MakeArray(String, "13-555-1", "hello", "héllo", "", nil, "31")
	x := gpu.Col(0, inputType(arr))
	nd := gpu.Type{Kind: gpu.Dict, Nullable: true}
	sub := func(from, length int64, has bool) *gpu.Expr {
		return gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrSubstring, From: from, Length: length, HasLength: has}, nd, x)
	}
	got := project(t, dev, arrs(arr),
		sub(1, 2, true), sub(2, 2, true), sub(-2, 2, true), sub(0, 2, true), sub(3, -2, true),
		sub(-3, 0, false), sub(2, 100, true), sub(-10, 12, true))
	N := NullCell
	expectRows(t, got, []string{
		Row(S("13"), S("3-"), S("-1"), S("1"), S("13"), S("5-1"), S("3-555-1"), S("13-555-1")),
		Row(S("he"), S("el"), S("lo"), S("h"), S("he"), S("llo"), S("ello"), S("hello")),
		Row(S("hé"), S("él"), S("lo"), S("h"), S("hé"), S("llo"), S("éllo"), S("héllo")),
		Row(S(""), S(""), S(""), S(""), S(""), S(""), S(""), S("")),
		Row(N, N, N, N, N, N, N, N),
		Row(S("31"), S("1"), S("31"), S("3"), S("31"), S("31"), S("1"), S("31")),
	}, true)
}

// substring(phone, 1, 2) IN ('13', '31') as the filter, grouped by the
// substring: Q22's shape. The predicate reads the substring's new
// dictionary.
func testStrSubstringGroupBy(t *testing.T, dev gpu.Device) {
	phones := MakeArray(String, "13-111", "31-222", "13-333", "20-444", nil, "31-555", "13-666", "1")
	bal := MakeArray(I64, 1, 2, 3, 4, 5, 6, 7, 8)
	cols, types := table(t, dev, phones, bal)
	defer ReleaseCols(cols)
	nd := gpu.Type{Kind: gpu.Dict, Nullable: true}
	cc := gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrSubstring, From: 1, Length: 2, HasLength: true}, nd, gpu.Col(0, types[0]))
	p := &gpu.Pipeline{
		Inputs:  types,
		Filter:  pred(&gpu.StrFunc{Kind: gpu.StrIn, List: []string{"13", "31"}}, cc),
		Project: []*gpu.Expr{cc, gpu.Col(1, types[1])},
		Sink:    gpu.SinkAggregate,
		Keys:    []int{0},
		Aggs: []gpu.Agg{
			{Kind: gpu.AggCountStar, Type: TCount},
			{Kind: gpu.AggSum, Arg: 1, Type: N(TDec128(38, 0))},
		},
	}
	got := RunPipeline(t, dev, p, cols)
	expectRows(t, got, []string{
		Row(S("13"), "3", "11"),
		Row(S("31"), "2", "8"),
	}, false)
}

// A TPC-H-like filter mixing string tests with numbers, into a global
// aggregate (Q14/Q19 shapes).
func testStrFilterAggregate(t *testing.T, dev gpu.Device) {
	mode := MakeArray(String, "MAIL", "SHIP", "AIR", "MAIL", "REG AIR", nil, "SHIP")
	typ := MakeArray(String, "PROMO A", "PROMO B", "STD", "STD", "PROMO C", "PROMO D", "SMALL PROMO")
	qty := MakeArray(I64, 1, 2, 3, 4, 5, 6, 7)
	cols, types := table(t, dev, mode, typ, qty)
	defer ReleaseCols(cols)
	in := pred(&gpu.StrFunc{Kind: gpu.StrIn, List: []string{"AIR", "REG AIR", "MAIL"}}, gpu.Col(0, types[0]))
	promo := pred(&gpu.StrFunc{Kind: gpu.StrStartsWith, Pattern: "PROMO"}, gpu.Col(1, types[1]))
	q := gpu.Col(2, types[2])
	p := &gpu.Pipeline{
		Inputs:  types,
		Filter:  in,
		Project: []*gpu.Expr{gpu.Call(gpu.OpCase, TI64, promo, q, gpu.Const(TI64, gpu.Value{I64: 0})), q},
		Sink:    gpu.SinkAggregate,
		Aggs: []gpu.Agg{
			{Kind: gpu.AggSum, Arg: 0, Type: N(TDec128(38, 0))},
			{Kind: gpu.AggSum, Arg: 1, Type: N(TDec128(38, 0))},
			{Kind: gpu.AggCountStar, Type: TCount},
		},
	}
	got := RunPipeline(t, dev, p, cols)
	// Rows 0 (MAIL, PROMO, 1), 2 (AIR, STD, 3), 3 (MAIL, STD, 4), 4 (REG AIR, PROMO, 5).
	expectRows(t, got, []string{Row("6", "13", "4")}, true)
}

func testDateParts(t *testing.T, dev gpu.Device) {
	arr := MakeArray(Date, "1995-03-15", "2000-02-29", "1970-01-01", "1969-12-31", nil,
		"1600-03-01", "1998-12-31", "0001-01-01")
	x := gpu.Col(0, inputType(arr))
	ni := gpu.Type{Kind: gpu.Int64, Nullable: true}
	got := project(t, dev, arrs(arr),
		gpu.Call(gpu.OpYear, ni, x), gpu.Call(gpu.OpMonth, ni, x), gpu.Call(gpu.OpDay, ni, x))
	N := NullCell
	expectRows(t, got, []string{
		Row("1995", "3", "15"),
		Row("2000", "2", "29"),
		Row("1970", "1", "1"),
		Row("1969", "12", "31"),
		Row(N, N, N),
		Row("1600", "3", "1"),
		Row("1998", "12", "31"),
		Row("1", "1", "1"),
	}, true)
}

// testStrTwoDictionaries: codes of two string columns with different
// dictionaries mean different strings: comparing them compares the strings
// (every operator, also of string functions' results over each), and
// mixing them in one CASE is refused (the engine then runs it on DuckDB),
// never answered from the codes; a CASE whose condition reads another
// string column takes its result's dictionary from its branches.
func testStrTwoDictionaries(t *testing.T, dev gpu.Device) {
	// Fresh arrays for each run: uploading takes them over.
	in := func() []arrow.Array {
		return arrs(MakeArray(String, "apple", "cherry", nil, "banana"),
			MakeArray(String, "e", "d", "c", nil),
			MakeArray(Bool, true, false, nil, false))
	}
	first := in()
	ts, tg := inputType(first[0]), inputType(first[1])
	str := gpu.Type{Kind: gpu.Dict, Nullable: true}
	testStrCompareAcross(t, dev)
	testStrCaseAcross(t, dev, in)
	N := NullCell

	isCherry := pred(&gpu.StrFunc{Kind: gpu.StrCompare, Op: gpu.OpEq, Pattern: "cherry"}, gpu.Col(0, ts))
	got := project(t, dev, first,
		gpu.Call(gpu.OpCase, str, isCherry, gpu.Col(1, tg), gpu.Const(str, gpu.Value{Null: true})),
		gpu.Call(gpu.OpEq, gpu.Type{Kind: gpu.Bool, Nullable: true}, gpu.Col(1, tg), gpu.Col(1, tg)))
	expectRows(t, got, []string{
		Row(N, "true"),
		Row(S("d"), "true"),
		Row(N, "true"),
		Row(N, N),
	}, true)
}

// testStrCaseAcross: a CASE whose values are two tables' strings (two
// dictionaries) gives their strings, in one dictionary that a string
// function, a comparison and a grouping then read.
func testStrCaseAcross(t *testing.T, dev gpu.Device, in func() []arrow.Array) {
	first := in()
	ts, tg, tb := inputType(first[0]), inputType(first[1]), inputType(first[2])
	str := gpu.Type{Kind: gpu.Dict, Nullable: true}
	bt := gpu.Type{Kind: gpu.Bool, Nullable: true}
	s, g, b := gpu.Col(0, ts), gpu.Col(1, tg), gpu.Col(2, tb)
	sOrG := gpu.Call(gpu.OpCase, str, b, s, g) // if(b, s, g)
	initial := gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrSubstring, From: 1, Length: 1, HasLength: true}, str, s)
	three := gpu.Call(gpu.OpCase, str, gpu.Call(gpu.OpIsNull, gpu.Type{Kind: gpu.Bool}, b), initial, b, g, s)
	isD := pred(&gpu.StrFunc{Kind: gpu.StrCompare, Op: gpu.OpEq, Pattern: "d"}, sOrG)
	N := NullCell
	got := project(t, dev, first, sOrG, three, isD, gpu.Call(gpu.OpLt, bt, sOrG, g))
	expectRows(t, got, []string{
		Row(S("apple"), S("e"), "false", "true"),
		Row(S("d"), S("cherry"), "true", "false"),
		Row(S("c"), N, "false", "false"),
		Row(N, S("banana"), N, N),
	}, true)
	cols, types := table(t, dev, in()...)
	defer ReleaseCols(cols)
	grouped := RunPipeline(t, dev, &gpu.Pipeline{Inputs: types, Project: []*gpu.Expr{gpu.Call(gpu.OpCase, str, gpu.Col(2, types[2]), gpu.Col(1, types[1]), gpu.Col(0, types[0]))},
		Sink: gpu.SinkAggregate, Keys: []int{0}, Aggs: []gpu.Agg{countStar()}}, cols)
	expectRows(t, grouped, []string{Row(S("e"), I(1)), Row(S("cherry"), I(1)), Row(N, I(1)), Row(S("banana"), I(1))}, false)
}

// testStrLargeDictionaryTwice: devices may keep the tables of string
// functions over large dictionaries between runs (gpu/cuda keeps them on
// the device from 16,384 entries). The same columns run twice, then with
// another pattern over the same dictionary, must give each run's own answer.
func testStrLargeDictionaryTwice(t *testing.T, dev gpu.Device) {
	const n = 20000
	vals := make([]any, n)
	for i := range vals {
		vals[i] = fmt.Sprintf("s%05d", i)
	}
	cols, types := table(t, dev, MakeArray(String, vals...))
	defer ReleaseCols(cols)
	x := gpu.Col(0, types[0])
	str := gpu.Type{Kind: gpu.Dict, Nullable: types[0].Nullable}
	endsWith := func(s string) *gpu.Expr { return pred(&gpu.StrFunc{Kind: gpu.StrLike, Pattern: "%" + s}, x) }
	lastDigit := gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrSubstring, From: 6, Length: 1, HasLength: true}, str, x)
	run := func(digit string) {
		p := &gpu.Pipeline{Inputs: types, Project: []*gpu.Expr{endsWith(digit), lastDigit}, Sink: gpu.SinkMaterialize}
		got := RunPipeline(t, dev, p, cols)
		want := make([]string, n)
		for i := range want {
			want[i] = Row(fmt.Sprint(i%10 == int(digit[0]-'0')), S(fmt.Sprint(i%10)))
		}
		expectRows(t, got, want, true)
	}
	run("7")
	run("7")
	run("3")
}

// strOps are the comparisons, with Go's answer on two strings.
var strOps = []struct {
	op gpu.Op
	f  func(a, b string) bool
}{
	{gpu.OpEq, func(a, b string) bool { return a == b }},
	{gpu.OpNe, func(a, b string) bool { return a != b }},
	{gpu.OpLt, func(a, b string) bool { return a < b }},
	{gpu.OpLe, func(a, b string) bool { return a <= b }},
	{gpu.OpGt, func(a, b string) bool { return a > b }},
	{gpu.OpGe, func(a, b string) bool { return a >= b }},
}

// twoDictionaryStrings are two string columns of one length whose
// dictionaries overlap in part: strings on one side only, before, between
// and after the other's, empty strings and nulls.
func twoDictionaryStrings(r *rand.Rand, n int) (a, b []any) {
	words := []string{"", "a", "ab", "abc", "b", "ba", "zz", "é", "m", "mm", "q"}
	pick := func(from []string) any {
		if r.IntN(9) == 0 {
			return nil
		}
		return from[r.IntN(len(from))] + strings.Repeat("x", r.IntN(2))
	}
	for i := 0; i < n; i++ {
		a = append(a, pick(words[:8]))
		b = append(b, pick(words[3:]))
	}
	return a, b
}

func cmpCell(a, b any, f func(a, b string) bool) string {
	if a == nil || b == nil {
		return NullCell
	}
	return fmt.Sprint(f(a.(string), b.(string)))
}

// testStrCompareAcross: s CMP g and substr(s, 1, 1) CMP substr(g, 1, 1)
// for two columns of two dictionaries, every operator, against Go's
// comparison of the strings.
func testStrCompareAcross(t *testing.T, dev gpu.Device) {
	r := rand.New(rand.NewPCG(19, 24))
	a, b := twoDictionaryStrings(r, 300)
	cols, types := table(t, dev, MakeArray(String, a...), MakeArray(String, b...))
	defer ReleaseCols(cols)
	sa, sb := gpu.Col(0, types[0]), gpu.Col(1, types[1])
	first := &gpu.StrFunc{Kind: gpu.StrSubstring, From: 1, Length: 1, HasLength: true}
	fa := gpu.StrCall(first, types[0], sa)
	fb := gpu.StrCall(first, types[1], sb)
	bt := gpu.Type{Kind: gpu.Bool, Nullable: true}
	var project []*gpu.Expr
	for _, o := range strOps {
		project = append(project, gpu.Call(o.op, bt, sa, sb), gpu.Call(o.op, bt, fa, fb))
	}
	got := RunPipeline(t, dev, &gpu.Pipeline{Inputs: types, Project: project, Sink: gpu.SinkMaterialize}, cols)
	firstRune := func(v any) any {
		if v == nil {
			return nil
		}
		rs := []rune(v.(string))
		if len(rs) == 0 {
			return ""
		}
		return string(rs[0])
	}
	var want []string
	for i := range a {
		var cells []string
		for _, o := range strOps {
			cells = append(cells, cmpCell(a[i], b[i], o.f), cmpCell(firstRune(a[i]), firstRune(b[i]), o.f))
		}
		want = append(want, Row(cells...))
	}
	expectRows(t, got, want, true)
}

// testStrCompareAcrossJoin: a join's filter comparing the probe side's
// strings with the build side's (TPC-DS q19 and q24), every operator; the
// same as a left join's condition and a semi join's residual.
func testStrCompareAcrossJoin(t *testing.T, dev gpu.Device) {
	pr, ok := dev.(gpu.ProbeRunner)
	if !ok {
		t.Skip("the device runs no probes")
	}
	r := rand.New(rand.NewPCG(24, 19))
	ps, bs := twoDictionaryStrings(r, 400)
	bs = bs[:60]
	pk, bk := make([]any, len(ps)), make([]any, len(bs))
	for i := range pk {
		pk[i] = int64(i % 17)
	}
	for i := range bk {
		bk[i] = int64(i % 23)
	}
	probe := []gpu.Column{Upload(t, dev, MakeArray(I64, pk...)), Upload(t, dev, MakeArray(String, ps...))}
	defer ReleaseCols(probe)
	build := []gpu.Column{Upload(t, dev, MakeArray(I64, bk...)), Upload(t, dev, MakeArray(String, bs...))}
	defer ReleaseCols(build)
	in := []gpu.Type{probe[0].Type(), probe[1].Type(), build[0].Type(), build[1].Type()}
	for _, o := range strOps {
		p := &gpu.Pipeline{Inputs: in, Filter: gpu.Call(o.op, gpu.Type{Kind: gpu.Bool, Nullable: true}, gpu.Col(1, in[1]), gpu.Col(3, in[3])),
			Project: []*gpu.Expr{gpu.Col(1, in[1]), gpu.Col(3, in[3])}, Sink: gpu.SinkMaterialize}
		var want []string
		for i := range ps {
			for j := range bs {
				if pk[i] == bk[j] && cmpCell(ps[i], bs[j], o.f) == "true" {
					want = append(want, Row(strCell(ps[i]), strCell(bs[j])))
				}
			}
		}
		out, err := pr.RunProbe(context.Background(), p, probe, build, []int{0}, []int{0}, nil)
		if err != nil {
			t.Fatalf("%s: run probe: %v", o.op, err)
		}
		got := Rows(t, dev, out)
		ReleaseCols(out)
		if err := EqualRows(got, want, false, 0); err != nil {
			t.Fatalf("probe filtered on probe %s build strings: %v", o.op, err)
		}
	}
	// The same comparisons as a left join's condition (padded rows for
	// probe rows without a pair that holds) and as a semi join's residual
	// (counts of the pairs that hold).
	lin := []gpu.Type{in[0], in[1], N(in[2]), N(in[3])}
	for _, o := range strOps {
		cond := gpu.Call(o.op, gpu.Type{Kind: gpu.Bool, Nullable: true}, gpu.Col(1, lin[1]), gpu.Col(3, lin[3]))
		var want []string
		counts := make([]int, len(ps))
		for i := range ps {
			for j := range bs {
				if pk[i] == bk[j] && cmpCell(ps[i], bs[j], o.f) == "true" {
					want = append(want, Row(strCell(ps[i]), strCell(bs[j])))
					counts[i]++
				}
			}
			if counts[i] == 0 {
				want = append(want, Row(strCell(ps[i]), NullCell))
			}
		}
		if lp, ok := dev.(gpu.LeftProbeRunner); ok {
			p := &gpu.Pipeline{Inputs: lin, Project: []*gpu.Expr{gpu.Col(1, lin[1]), gpu.Col(3, lin[3])}, Sink: gpu.SinkMaterialize}
			out, err := lp.RunProbeLeft(context.Background(), p, cond, false, probe, build, []int{0}, []int{0}, nil)
			if err != nil {
				t.Fatalf("%s: run probe (left join): %v", o.op, err)
			}
			got := Rows(t, dev, out)
			ReleaseCols(out)
			if err := EqualRows(got, want, false, 0); err != nil {
				t.Fatalf("left join on probe %s build strings: %v", o.op, err)
			}
		}
		if pc, ok := dev.(gpu.ProbeCounter); ok {
			p := &gpu.Pipeline{Inputs: in, Filter: gpu.Call(o.op, gpu.Type{Kind: gpu.Bool, Nullable: true}, gpu.Col(1, in[1]), gpu.Col(3, in[3])), Sink: gpu.SinkMaterialize}
			c, err := pc.ProbeCounts(context.Background(), p, probe, build, []int{0}, []int{0}, nil)
			if err != nil {
				t.Fatalf("%s: probe counts: %v", o.op, err)
			}
			got := Rows(t, dev, []gpu.Column{c})
			c.Release()
			for i, n := range counts {
				if got[i] != Row(I(int64(n))) {
					t.Fatalf("%s: probe row %d counts %s, want %d", o.op, i, got[i], n)
				}
			}
		}
	}
}
