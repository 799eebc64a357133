package substrait

import (
	"fmt"
	"sort"
	"strings"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	pb "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Decimal arithmetic results are typed by the extension YAML, not by the
// producer: functions_arithmetic_decimal.yaml gives add, subtract, multiply,
// divide and modulus a return-type program (init_scale, init_prec, the
// precision cap at 38 and the scale it borrows down to min(init_scale, 6))
// and sum, sum0, avg, min and max a fixed rule (DECIMAL<38,S>,
// DECIMAL<P,S>). Some producers declare another type: ibis-substrait 4.0.1
// types multiply(decimal(15,2), decimal(15,2)) as decimal(15,2), where the
// YAML gives decimal(31,4). Honouring that declaration rounds every product
// to two places, and TPC-H's revenue sums come out wrong in the last
// digits.
//
// Other consumers do not trust the declaration either: DuckDB's Substrait
// extension (duckdb/substrait, src/from_substrait.cpp,
// TransformScalarFunctionExpr) builds a FunctionExpression from the name and
// the arguments alone and lets DuckDB's binder type it; DataFusion's
// consumer (datafusion/substrait/src/logical_plan/consumer/expr/
// scalar_function.rs, from_scalar_function) maps add/subtract/multiply/
// divide/modulus to a BinaryExpr whose type DataFusion derives from the
// operands; neither reads output_type.
//
// So where a declared decimal type's scale differs from the YAML's, the
// plan is rewritten (before substrait-go loads it) to the YAML's type, and
// relations above see the derived column types: an aggregate over a
// re-typed product derives again (sum of decimal(P,S) is decimal(38,S)).
// The translator, the DuckDB fallback SQL (which casts to the plan's
// types) and the result all follow the one consistent plan. Each rewrite
// is reported in Plan.Notes, never made silently.
//
// A declaration whose scale agrees is kept: its precision is the
// producer's choice of width (DuckDB and Calcite give a product p1+p2
// digits, which holds every exact product; the YAML gives p1+p2+1), and
// only the scale changes values. Casts keep their target type: they are
// explicit. Functions outside this list keep their declared types.

// DuckDBBridgeProducer names the plans rigel's own producer writes from
// DuckDB's optimized plans (duckdb-bridge). Their types are DuckDB's
// binder's, which is the SQL's meaning and the oracle's answer (DuckDB
// multiplies two decimal(38,10) into decimal(38,20), where the YAML
// borrows down to decimal(38,6)): they are taken as declared.
const DuckDBBridgeProducer = "rigel duckdb-bridge"

// decimalURN is the extension whose decimal rules are applied.
const decimalURN = "extension:io.substrait:functions_arithmetic_decimal"

// derivedDecimalFuncs are the functions of decimalURN whose result type
// the rewrite derives.
var derivedDecimalFuncs = map[string]bool{
	"add": true, "subtract": true, "multiply": true, "divide": true, "modulus": true,
	"sum": true, "sum0": true, "avg": true, "min": true, "max": true,
}

// decimalDeriver collects what the rewrite changed, one note per distinct
// change with its number of calls.
type decimalDeriver struct {
	counts map[string]int
}

// check replaces *out, a declared decimal type, by the YAML's type for
// the argument types when the scales differ. A call whose type cannot be
// derived (not one of the functions, an argument that is not a value)
// keeps its declaration.
func (d *decimalDeriver) check(f *typeFixer, anchor uint32, args []types.Type, out **proto.Type) error {
	declared := (*out).GetDecimal()
	if declared == nil {
		return nil
	}
	id, ok := f.extSet.DecodeFunc(anchor)
	if !ok || id.URN != decimalURN || !derivedDecimalFuncs[baseName(id.Name)] {
		return nil
	}
	v, ok := f.variant(id)
	if !ok {
		return nil
	}
	for _, a := range args {
		if a == nil {
			return nil
		}
		if _, ok := a.(*types.DecimalType); !ok {
			return nil
		}
	}
	t, err := v.ResolveType(args, f.extSet)
	if err != nil {
		return nil // the variant does not take these types: Load says so
	}
	want, ok := t.(*types.DecimalType)
	if !ok || want.Scale == declared.Scale {
		return nil
	}
	note := fmt.Sprintf("%s(%s) is declared %s; functions_arithmetic_decimal.yaml derives decimal(%d,%d), which rigel uses",
		baseName(id.Name), argList(args), decimalText(declared.Precision, declared.Scale), want.Precision, want.Scale)
	d.counts[note]++
	// The producer's nullability stands: only the digits are derived.
	*out = &proto.Type{Kind: &proto.Type_Decimal_{Decimal: &proto.Type_Decimal{
		Precision: want.Precision, Scale: want.Scale, Nullability: declared.Nullability,
		TypeVariationReference: declared.TypeVariationReference,
	}}}
	return nil
}

func decimalText(p, s int32) string { return fmt.Sprintf("decimal(%d,%d)", p, s) }

func argList(args []types.Type) string {
	parts := make([]string, len(args))
	for i, a := range args {
		if d, ok := a.(*types.DecimalType); ok {
			parts[i] = decimalText(d.Precision, d.Scale)
		} else {
			parts[i] = a.String()
		}
	}
	return strings.Join(parts, ", ")
}

// notes lists the changes, most frequent first, then by text.
func (d *decimalDeriver) notes() []string {
	var out []string
	for n := range d.counts {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool {
		if d.counts[out[i]] != d.counts[out[j]] {
			return d.counts[out[i]] > d.counts[out[j]]
		}
		return out[i] < out[j]
	})
	for i, n := range out {
		if c := d.counts[n]; c > 1 {
			out[i] = fmt.Sprintf("%s (%d calls)", n, c)
		}
	}
	return out
}

// deriveDecimals applies the YAML's decimal result types to a plan (on a
// copy) and says what it changed. Only plans that call one of the
// functions with a declared decimal result are parsed for it. A plan that
// cannot be typed relation by relation is returned as it is: loading it
// then reports what is wrong with it.
func deriveDecimals(p *proto.Plan, coll *extensions.Collection) (*proto.Plan, []string) {
	if p.GetVersion().GetProducer() == DuckDBBridgeProducer || !callsDecimalArithmetic(p) {
		return p, nil
	}
	c := pb.Clone(p).(*proto.Plan)
	d := &decimalDeriver{counts: map[string]int{}}
	fx := &typeFixer{p: c, coll: coll, derive: d}
	if err := fx.plan(); err != nil || len(d.counts) == 0 {
		return p, nil
	}
	return c, d.notes()
}

// callsDecimalArithmetic says whether the plan declares one of the
// derived functions and calls some function with a decimal result.
func callsDecimalArithmetic(p *proto.Plan) bool {
	declared := false
	for _, e := range p.Extensions {
		if f := e.GetExtensionFunction(); f != nil && derivedDecimalFuncs[baseName(f.Name)] {
			declared = true
		}
	}
	if !declared {
		return false
	}
	found := false
	for _, r := range p.Relations {
		walkProto(r.ProtoReflect(), func(m protoreflect.Message) {
			switch x := m.Interface().(type) {
			case *proto.Expression_ScalarFunction:
				found = found || x.OutputType.GetDecimal() != nil
			case *proto.AggregateFunction:
				found = found || x.OutputType.GetDecimal() != nil
			}
		})
	}
	return found
}

// unifyIfThen gives an if-then's branches one type where they are exact
// numbers of different types, a decimal among them: each branch that
// differs is cast to the decimal that holds every branch (the largest
// scale, the most integer digits, at most 38 digits). The spec wants one
// type for all branches; a re-typed product in one branch (or ibis's
// ifelse(c, price * (1 - discount), 0), whose else is an i8 literal) makes
// them differ, and a consumer that took one branch's type would round or
// overflow the others. The casts are noted like the re-typed calls.
func (d *decimalDeriver) unifyIfThen(f *typeFixer, s *types.RecordType, it *proto.Expression_IfThen) error {
	var branches []*proto.Expression
	for _, c := range it.Ifs {
		branches = append(branches, c.Then)
	}
	if it.Else != nil {
		branches = append(branches, it.Else)
	}
	ts := make([]types.Type, len(branches))
	var scale, digits int32
	anyDecimal, same := false, true
	for i, b := range branches {
		e, err := expr.ExprFromProto(b, s, f.reg)
		if err != nil {
			return err
		}
		ts[i] = e.GetType()
		var p, sc int32
		switch t := ts[i].(type) {
		case *types.DecimalType:
			p, sc, anyDecimal = t.Precision, t.Scale, true
		case *types.Int8Type:
			p = 3
		case *types.Int16Type:
			p = 5
		case *types.Int32Type:
			p = 10
		case *types.Int64Type:
			p = 19
		default:
			return nil // not all exact numbers: the plan's own business
		}
		scale, digits = max(scale, sc), max(digits, p-sc)
		if i > 0 && !sameIgnoringNullability(ts[0], ts[i]) {
			same = false
		}
	}
	if !anyDecimal || same {
		return nil
	}
	common := &types.DecimalType{Precision: min(digits+scale, 38), Scale: scale}
	var parts []string
	for i, b := range branches {
		parts = append(parts, typeText(ts[i]))
		if sameIgnoringNullability(ts[i], common) {
			continue
		}
		nb := proto.Type_NULLABILITY_REQUIRED
		if ts[i].GetNullability() == types.NullabilityNullable {
			nb = proto.Type_NULLABILITY_NULLABLE
		}
		cast := &proto.Expression{RexType: &proto.Expression_Cast_{Cast: &proto.Expression_Cast{
			Type: &proto.Type{Kind: &proto.Type_Decimal_{Decimal: &proto.Type_Decimal{
				Precision: common.Precision, Scale: common.Scale, Nullability: nb}}},
			Input:           pb.Clone(b).(*proto.Expression),
			FailureBehavior: proto.Expression_Cast_FAILURE_BEHAVIOR_THROW_EXCEPTION,
		}}}
		if i < len(it.Ifs) {
			it.Ifs[i].Then = cast
		} else {
			it.Else = cast
		}
	}
	d.counts[fmt.Sprintf("if-then branches of %s are cast to their common type %s", strings.Join(parts, ", "),
		decimalText(common.Precision, common.Scale))]++
	return nil
}

func sameIgnoringNullability(a, b types.Type) bool {
	return a.WithNullability(types.NullabilityRequired).Equals(b.WithNullability(types.NullabilityRequired))
}

func typeText(t types.Type) string {
	if d, ok := t.(*types.DecimalType); ok {
		return decimalText(d.Precision, d.Scale)
	}
	return t.WithNullability(types.NullabilityRequired).String()
}
