package substrait

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/reflect/protoreflect"
)

const decimalExt = "extension:io.substrait:functions_arithmetic_decimal"

func dec(p, s int32) *types.DecimalType {
	return &types.DecimalType{Precision: p, Scale: s, Nullability: types.NullabilityRequired}
}

// declaredPlan builds SELECT sum(fn(a, b)) FROM t(a dec(p1,s1), b dec(p2,s2))
// as substrait-go derives it, then declares fn's result as decl (and the
// sum's as decimal(38, decl's scale)), the way a producer that types
// decimal arithmetic by its own rules would.
func declaredPlan(t *testing.T, fn string, a, b, decl *types.DecimalType) *proto.Plan {
	t.Helper()
	bld := plan.NewBuilderDefault()
	scan := bld.NamedScan([]string{"t"}, types.NamedStruct{Names: []string{"a", "b"},
		Struct: types.StructType{Nullability: types.NullabilityRequired, Types: []types.Type{a, b}}})
	ra, err := bld.RootFieldRef(scan, 0)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := bld.RootFieldRef(scan, 1)
	if err != nil {
		t.Fatal(err)
	}
	call, err := bld.ScalarFn(decimalExt, fn, nil, ra, rb)
	if err != nil {
		t.Fatal(err)
	}
	proj, err := bld.ProjectRemap(scan, []int32{2}, call)
	if err != nil {
		t.Fatal(err)
	}
	col, err := bld.RootFieldRef(proj, 0)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := bld.AggregateFn(decimalExt, "sum", nil, col)
	if err != nil {
		t.Fatal(err)
	}
	agg, err := bld.AggregateColumns(proj, []plan.AggRelMeasure{bld.Measure(sum, nil)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := bld.Plan(agg, []string{"s"})
	if err != nil {
		t.Fatal(err)
	}
	pp, err := p.ToProto()
	if err != nil {
		t.Fatal(err)
	}
	declare := func(out **proto.Type, p, s int32) {
		nb := (*out).GetDecimal().GetNullability()
		*out = &proto.Type{Kind: &proto.Type_Decimal_{Decimal: &proto.Type_Decimal{Precision: p, Scale: s, Nullability: nb}}}
	}
	walkProto(pp.ProtoReflect(), func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *proto.Expression_ScalarFunction:
			declare(&x.OutputType, decl.Precision, decl.Scale)
		case *proto.AggregateFunction:
			declare(&x.OutputType, 38, decl.Scale)
		}
	})
	return pp
}

func decimalOf(t types.Type) string {
	if d, ok := t.(*types.DecimalType); ok {
		return fmt.Sprintf("decimal(%d,%d)", d.Precision, d.Scale)
	}
	return t.String()
}

// The result types are the YAML's programs, worked by hand: the precision
// is capped at 38 and the scale then borrows down, never below
// min(init_scale, 6).
func TestDeriveDecimalsByTheYAML(t *testing.T) {
	cases := []struct {
		fn         string
		a, b, want *types.DecimalType
	}{
		// init_scale 4, init_prec 31: no cap.
		{"multiply", dec(15, 2), dec(15, 2), dec(31, 4)},
		// init_prec 41: delta 3, the scale borrows 10 -> 7.
		{"multiply", dec(20, 5), dec(20, 5), dec(38, 7)},
		// init_prec 77: the scale would borrow below 6 and stops at 6.
		{"multiply", dec(38, 10), dec(38, 10), dec(38, 6)},
		// init_scale 5 < 6: min_scale is 5, the scale stays.
		{"multiply", dec(38, 3), dec(38, 2), dec(38, 5)},
		{"add", dec(15, 2), dec(15, 4), dec(18, 4)},
		// init_prec 49: delta 11, the scale borrows 10 -> 6.
		{"add", dec(38, 10), dec(38, 0), dec(38, 6)},
		{"subtract", dec(10, 3), dec(12, 1), dec(15, 3)},
		// init_scale max(6, 2+15+1) = 18, init_prec 46: delta 8, scale 10.
		{"divide", dec(15, 2), dec(15, 2), dec(38, 10)},
		// init_scale 6, init_prec 3+3+6 = 12.
		{"divide", dec(5, 2), dec(3, 1), dec(12, 6)},
		// init_scale 4, init_prec min(13, 6) + 4 = 10.
		{"modulus", dec(15, 2), dec(10, 4), dec(10, 4)},
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s(%s,%s)", c.fn, decimalOf(c.a), decimalOf(c.b))
		t.Run(name, func(t *testing.T) {
			// A declaration with another scale: the producer's rounding.
			decl := dec(c.want.Precision, (c.want.Scale+1)%5)
			l, err := Load(declaredPlan(t, c.fn, c.a, c.b, decl))
			if err != nil {
				t.Fatal(err)
			}
			proj := l.Root.(*plan.AggregateRel).Input()
			if got := decimalOf(proj.RecordType().Types()[0]); got != decimalOf(c.want) {
				t.Errorf("%s: %s, want %s", name, got, decimalOf(c.want))
			}
			// The sum over the re-typed column derives too: decimal(38,S).
			if got, want := decimalOf(l.Root.RecordType().Types()[0]), decimalOf(dec(38, c.want.Scale)); got != want {
				t.Errorf("sum: %s, want %s", got, want)
			}
			if len(l.Notes) != 2 || !strings.Contains(l.Notes[0]+l.Notes[1], c.fn+"("+decimalOf(c.a)+", "+decimalOf(c.b)+") is declared "+decimalOf(decl)) {
				t.Errorf("notes %q do not name the re-typed call", l.Notes)
			}
		})
	}
}

// A declaration whose scale agrees is the producer's width choice (DuckDB:
// a product of two decimal(15,2) is decimal(30,4), the YAML says 31): it
// stands, and nothing is noted.
func TestDeriveDecimalsKeepsAgreeingScale(t *testing.T) {
	l, err := Load(declaredPlan(t, "multiply", dec(15, 2), dec(15, 2), dec(30, 4)))
	if err != nil {
		t.Fatal(err)
	}
	proj := l.Root.(*plan.AggregateRel).Input()
	if got := decimalOf(proj.RecordType().Types()[0]); got != "decimal(30,4)" {
		t.Errorf("product: %s, want the declared decimal(30,4)", got)
	}
	if len(l.Notes) != 0 {
		t.Errorf("notes %q for a plan rigel took as declared", l.Notes)
	}
}

// ibis-substrait 4.0.1's TPC-H Q1 declares every product decimal(15,2):
// the derived types flow through the products into the sums, casts keep
// their declared types, and the notes say so.
func TestDeriveDecimalsIbisQ01(t *testing.T) {
	b, err := os.ReadFile("../conformance/plans/ibis-4.0.1-tpch/q01.pb")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ty := range l.Root.RecordType().Types() {
		got = append(got, decimalOf(ty))
	}
	// sum_qty, sum_base_price, sum_disc_price, sum_charge, three averages
	// (decimal(15,2) as declared: the YAML's decimal(38,2) has the same
	// scale), count_order.
	want := "string, string, decimal(38,2), decimal(38,2), decimal(38,4), decimal(38,6), decimal(15,2), decimal(15,2), decimal(15,2), i64?"
	if strings.Join(got, ", ") != want {
		t.Errorf("result types\n%s\nwant\n%s", strings.Join(got, ", "), want)
	}
	if len(l.Notes) != 4 || !strings.HasPrefix(l.Notes[0], "multiply(decimal(15,2), decimal(15,2)) is declared decimal(15,2); functions_arithmetic_decimal.yaml derives decimal(31,4)") {
		t.Errorf("notes: %q", l.Notes)
	}
	// The committed plan itself is not changed (Load works on a copy).
	again, err := Load(p)
	if err != nil || len(again.Notes) != 4 {
		t.Errorf("a second Load of the same plan: %v, notes %q", err, again.Notes)
	}
}

// rigel's own producer writes DuckDB's types, the SQL's meaning: its plans
// are taken as declared.
func TestDeriveDecimalsTakesDuckDBBridgePlansAsDeclared(t *testing.T) {
	p := declaredPlan(t, "multiply", dec(15, 2), dec(15, 2), dec(15, 2))
	p.Version = &proto.Version{MinorNumber: 85, Producer: DuckDBBridgeProducer}
	l, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	proj := l.Root.(*plan.AggregateRel).Input()
	if got := decimalOf(proj.RecordType().Types()[0]); got != "decimal(15,2)" || len(l.Notes) != 0 {
		t.Errorf("product %s, notes %q: want the declaration, unnoted", got, l.Notes)
	}
}

func loadCommitted(t *testing.T, path string) *Plan {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// ibis's Q14 (dataframe API) sums ifelse(p_type LIKE 'PROMO%', revenue, 0):
// the then branch is a re-typed product, decimal(31,4), the else an i8
// literal. Both become decimal(31,4), as a CASE's common type, where
// taking the else's type (substrait-go's IfThen type) would overflow.
func TestDeriveDecimalsUnifiesIfThenBranches(t *testing.T) {
	l := loadCommitted(t, "../conformance/plans/ibis-4.0.1-tpch/q14.pb")
	want := "if-then branches of decimal(31,4), i8 are cast to their common type decimal(31,4)"
	found := false
	for _, n := range l.Notes {
		found = found || n == want
	}
	if !found {
		t.Errorf("notes %q lack %q", l.Notes, want)
	}
}

// ibis-substrait declares extract(YEAR, date) as "extract:date", a
// signature older than the enum component: placed again by its arguments.
func TestExtractWithAnOldSignatureLoads(t *testing.T) {
	l := loadCommitted(t, "../conformance/plans/ibis-4.0.1-tpch/q07.pb")
	if n := len(l.Root.RecordType().Types()); n != 4 {
		t.Errorf("%d result columns, want 4", n)
	}
}
