package translate

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/physical"
	"github.com/rigel-db/rigel/substrait"
)

func loadIsthmus(t *testing.T, q string) *substrait.Plan {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../conformance/plans/isthmus-tpch", q+".json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := substrait.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	l, err := substrait.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Isthmus's Q6 (filter over a scan, then a global sum) fuses into one
// pipeline with an aggregate sink, over a scan of only the four columns used.
func TestQ6FusesIntoOnePipeline(t *testing.T) {
	root, err := Translate(loadIsthmus(t, "q06"))
	if err != nil {
		t.Fatal(err)
	}
	// The root may be a projection pipeline over the aggregate (renaming).
	var agg *physical.Pipeline
	for n := root; n != nil; {
		if p, ok := n.(*physical.Pipeline); ok && p.Pipe.Sink == gpu.SinkAggregate {
			agg = p
			break
		}
		ch := n.Children()
		if len(ch) != 1 {
			break
		}
		n = ch[0]
	}
	if agg == nil {
		t.Fatalf("no aggregate pipeline in\n%s", physical.Explain(root, "x"))
	}
	scan, ok := agg.Input.(*physical.Scan)
	if !ok {
		t.Fatalf("aggregate input is %T, want a Scan (fused)", agg.Input)
	}
	cols := append([]string(nil), scan.Columns...)
	sort.Strings(cols)
	want := "L_DISCOUNT,L_EXTENDEDPRICE,L_QUANTITY,L_SHIPDATE"
	if got := strings.ToUpper(strings.Join(cols, ",")); got != want {
		t.Fatalf("scan reads %s, want only %s", got, want)
	}
	if agg.Pipe.Filter == nil || len(agg.Pipe.Keys) != 0 || len(agg.Pipe.Aggs) != 1 || agg.Pipe.Aggs[0].Kind != gpu.AggSum {
		t.Fatalf("pipeline %s: want a filter and one sum with no keys", agg.Pipe)
	}
	if got := agg.Pipe.Aggs[0].Type; got.Kind != gpu.Decimal128 || got.Scale != 4 {
		t.Fatalf("sum type %s, want decimal128 with scale 4", got)
	}
}

// A subquery expression (Isthmus Q4's EXISTS with an outer reference) is
// not run on the device. Translate refuses the plan; with Options.Split
// the Filter that holds it becomes a Fallback whose
// reason names the subquery, over its input translated for the device;
// everything above it (the aggregate, the sort) stays on the device.
func TestSubqueryFallsBackPerSubtree(t *testing.T) {
	if _, err := Translate(loadIsthmus(t, "q04")); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("Translate: got %v, want ErrUnsupported (only Options.Split splits)", err)
	}
	root, err := TranslateWith(loadIsthmus(t, "q04"), Options{Split: true})
	if err != nil {
		t.Fatal(err)
	}
	var fb *physical.Fallback
	var walk func(n physical.Node, depth int)
	walk = func(n physical.Node, depth int) {
		if f, ok := n.(*physical.Fallback); ok {
			if depth == 0 {
				t.Fatalf("the root itself falls back:\n%s", physical.Explain(root, "x"))
			}
			fb = f
		}
		for _, c := range n.Children() {
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	if fb == nil {
		t.Fatalf("no Fallback node in\n%s", physical.Explain(root, "x"))
	}
	if !strings.Contains(fb.Reason, "Subquery") || !strings.Contains(fb.SQL, "EXISTS") {
		t.Fatalf("fallback reason %q, SQL %q: want the EXISTS subquery", fb.Reason, fb.SQL)
	}
	if got := physical.FallbackReasons(root); len(got) != 1 {
		t.Fatalf("%d fallbacks, want 1: %v", len(got), got)
	}
	explain := physical.Explain(root, "host")
	if !strings.Contains(explain, "[duckdb] Fallback") || !strings.Contains(explain, "[host]") {
		t.Fatalf("EXPLAIN does not show the split:\n%s", explain)
	}
}

// A plan error (not a missing feature) is not hidden by a fallback.
func TestPlanErrorsDoNotFallBack(t *testing.T) {
	if _, err := (&translator{}).fallbackRel(nil, errors.New("a broken plan")); err == nil || isUnsupported(err) {
		t.Fatalf("got %v, want the plan error itself", err)
	}
}

func TestDecimalArithmeticTypes(t *testing.T) {
	d := func(p, s int32) gpu.Type { return decimalType(p, s, false) }
	price := gpu.Col(0, d(15, 2))
	disc := gpu.Col(1, d(15, 2))
	one := gpu.Const(d(3, 2), gpu.Value{I64: 100})
	// 1.00 - disc at DuckDB's DECIMAL(16,2): no casts needed.
	sub, err := arithmetic(gpu.OpSub, d(16, 2), one, disc)
	if err != nil {
		t.Fatal(err)
	}
	if sub.Args[0].Op != gpu.OpConst || sub.Args[1] != disc {
		t.Fatalf("sub = %s: unexpected casts", sub)
	}
	// price * (1 - disc) with DuckDB's DECIMAL(18,4): a 64-bit multiply.
	mul, err := arithmetic(gpu.OpMul, d(18, 4), price, sub)
	if err != nil {
		t.Fatal(err)
	}
	if mul.Type.Kind != gpu.Decimal64 || mul.Args[0].Type.Kind != gpu.Decimal64 {
		t.Fatalf("mul = %s (%s)", mul, mul.Type)
	}
	// A wider result: DECIMAL(38,6) from (18,4) * (16,2) multiplies 64-bit
	// operands into a 128-bit result.
	wide, err := arithmetic(gpu.OpMul, d(38, 6), mul, sub)
	if err != nil {
		t.Fatal(err)
	}
	if wide.Type.Kind != gpu.Decimal128 || wide.Args[0].Type.Kind != wide.Args[1].Type.Kind {
		t.Fatalf("wide = %s (%s)", wide, wide.Type)
	}
	// Add rescales the operand with the smaller scale, folding a literal.
	add, err := arithmetic(gpu.OpAdd, d(18, 4), price, one)
	if err != nil {
		t.Fatal(err)
	}
	if add.Args[0].Op != gpu.OpCast || add.Args[1].Op != gpu.OpConst || add.Args[1].Const.I64 != 10000 {
		t.Fatalf("add = %s: want cast(price) + 1.0000", add)
	}
}

func TestCompareUnifiesTypes(t *testing.T) {
	q := gpu.Col(0, decimalType(15, 2, false))
	c := gpu.Const(gpu.Type{Kind: gpu.Int32}, gpu.Value{I64: 24})
	e, err := compare(gpu.OpLt, gpu.Type{Kind: gpu.Bool}, q, c)
	if err != nil {
		t.Fatal(err)
	}
	lit := e.Args[1]
	if lit.Op != gpu.OpConst || lit.Type.Kind != gpu.Decimal64 || lit.Type.Scale != 2 || lit.Const.I64 != 2400 {
		t.Fatalf("compare = %s: want the literal folded to 24.00", e)
	}
	if _, err := compare(gpu.OpLt, gpu.Type{Kind: gpu.Bool}, q, gpu.Col(1, gpu.Type{Kind: gpu.Dict})); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("decimal < string: got %v, want ErrUnsupported", err)
	}
}
