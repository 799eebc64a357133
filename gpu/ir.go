package gpu

import (
	"fmt"
	"strings"
)

// Op is an expression operator of the kernel IR.
//
// Semantics shared by every Device (gpu/host is the reference):
//   - Arguments are fully typed; the translator inserts every Cast. Binary
//     arithmetic and comparisons take two arguments of the same Kind (and, for
//     decimals, the same Scale for Add/Sub/comparisons; Mul's result scale is
//     the sum of the argument scales). The result Type is the Expr's Type, whose
//     Kind may be wider than the arguments' (Decimal64 * Decimal64 ->
//     Decimal128, Int32 + Int32 -> Int64): the result is computed exactly, then
//     checked against the result type.
//   - Null in, null out for arithmetic, comparisons and casts. And/Or follow
//     SQL's three-valued logic (false AND null = false, true OR null = true).
//   - Integer and decimal Add/Sub/Mul/Neg raise ErrOverflow when the exact
//     result does not fit the result's storage (int8..int64, 128 bits) or,
//     for decimals, when |result| >= 10^Precision of the result type.
//   - Float arithmetic is IEEE; Div by zero on floats gives ±Inf or NaN.
//     Integer/decimal Div is not part of the IR yet.
//   - Comparisons on Dict compare codes (the dictionary is sorted); both sides
//     must share one dictionary (or dictionaries of equal contents), else
//     ErrUnsupported. A Dict result built only of constants has no
//     dictionary: ErrUnsupported. A computed Dict value (a Case over Dict
//     columns) carries the dictionary of the first Dict column it reads; an
//     OpStrMap carries the new dictionary it makes.
//   - Floats follow DuckDB, not IEEE, everywhere (comparisons, min/max, sort,
//     grouping): NaN equals NaN and is larger than every number; -0 equals 0.
//   - A pipeline evaluates its filter first and projections only on passing
//     rows, and a Case branch only on the rows that take it: a row that is
//     filtered out or a branch not taken never raises ErrOverflow. And/Or
//     need not short-circuit.
//   - Nullability: a column uploaded from an Arrow array is nullable exactly
//     when the array holds a null. A non-nullable column may feed an input
//     declared nullable; a nullable column where the pipeline declares a
//     non-nullable input is an error.
type Op uint8

const (
	OpCol       Op = iota + 1 // input column Col
	OpConst                   // literal Const
	OpAdd                     // a + b
	OpSub                     // a - b
	OpMul                     // a * b
	OpDiv                     // a / b (floats only)
	OpNeg                     // -a
	OpEq                      // a = b
	OpNe                      // a <> b
	OpLt                      // a < b
	OpLe                      // a <= b
	OpGt                      // a > b
	OpGe                      // a >= b
	OpAnd                     // a AND b AND ... (n-ary, Kleene logic)
	OpOr                      // a OR b OR ... (n-ary, Kleene logic)
	OpNot                     // NOT a
	OpIsNull                  // a IS NULL (never null itself)
	OpIsNotNull               // a IS NOT NULL (never null itself)
	// OpCast converts Args[0] to the Expr's Type:
	//   integer <-> integer (ErrOverflow when out of range),
	//   integer/decimal -> decimal (rescale: multiply by 10^(s_out-s_in), or
	//     divide rounding half away from zero when s_out < s_in; ErrOverflow
	//     when the result does not fit the output precision),
	//   decimal -> integer (round half away from zero, then range check),
	//   integer/decimal -> float (exact division of the unscaled value by
	//     10^scale, rounded once to the nearest double),
	//   float -> integer (Int8..Int64: rounded half to even, as DuckDB's
	//     nearbyint; ErrOverflow for NaN, infinities and out of range),
	//   float -> float.
	OpCast
	// OpCase: Args = [cond1, val1, cond2, val2, ..., else]; the first cond that
	// is true (not null) picks its val; else when none is.
	OpCase
	// OpStrPred: Args[0] is a Dict value; the result (Bool) is the string
	// predicate Str (like, contains, starts_with, ends_with, a comparison
	// with a constant, an IN list; see strfunc.go) of its string; null when
	// Args[0] is null. Devices evaluate Str once per entry of Args[0]'s
	// dictionary (StrFunc.PredicateTable) and look the code up in that table.
	// Args[0] may instead be a Str input column (strings in Arrow layout,
	// ext_strings.go): then Str is evaluated per row (StrMatcher), with the
	// same result.
	OpStrPred
	// OpStrMap: Args[0] is a Dict value; the result (Dict) is the string
	// function Str (substring) of its string; null when Args[0] is null. The
	// result's dictionary is a new one, StrFunc.MapTable of Args[0]'s (sorted
	// like every dictionary), not the dictionary of the column it reads: it
	// can be compared only with values of an equal dictionary.
	OpStrMap
	// OpYear, OpMonth, OpDay: the field of a Date32 in the proleptic
	// Gregorian calendar (DuckDB's extract), as Int64; null in, null out.
	OpYear
	OpMonth
	OpDay
)

var opNames = map[Op]string{
	OpCol: "col", OpConst: "const", OpAdd: "+", OpSub: "-", OpMul: "*", OpDiv: "/",
	OpNeg: "neg", OpEq: "=", OpNe: "<>", OpLt: "<", OpLe: "<=", OpGt: ">", OpGe: ">=",
	OpAnd: "and", OpOr: "or", OpNot: "not", OpIsNull: "is_null", OpIsNotNull: "is_not_null",
	OpCast: "cast", OpCase: "case", OpStrPred: "str_pred", OpStrMap: "str_map",
	OpYear: "year", OpMonth: "month", OpDay: "day",
}

func (o Op) String() string {
	if s, ok := opNames[o]; ok {
		return s
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// IsCaseValue says whether argument i of an OpCase with n arguments is a
// value (a THEN or the ELSE) rather than a condition.
func IsCaseValue(i, n int) bool { return i%2 == 1 || i == n-1 }

// Expr is a typed expression over the input columns of a Pipeline.
type Expr struct {
	Op    Op
	Type  Type
	Args  []*Expr
	Col   int   // OpCol: index into the Pipeline's Inputs
	Const Value // OpConst
	// Str is the string predicate or function of OpStrPred and OpStrMap.
	Str *StrFunc
}

// StrCall returns the string predicate (t Bool) or string function (t Dict)
// f applied to the Dict value arg.
func StrCall(f *StrFunc, t Type, arg *Expr) *Expr {
	op := OpStrMap
	if f.IsPredicate() {
		op = OpStrPred
	}
	return &Expr{Op: op, Type: t, Args: []*Expr{arg}, Str: f}
}

// Col returns a reference to input column i of type t.
func Col(i int, t Type) *Expr { return &Expr{Op: OpCol, Type: t, Col: i} }

// Const returns a literal of type t.
func Const(t Type, v Value) *Expr { return &Expr{Op: OpConst, Type: t, Const: v} }

// Call returns op(args...) of type t.
func Call(op Op, t Type, args ...*Expr) *Expr { return &Expr{Op: op, Type: t, Args: args} }

// String renders the expression for EXPLAIN and error messages.
func (e *Expr) String() string {
	switch e.Op {
	case OpCol:
		return fmt.Sprintf("$%d", e.Col)
	case OpConst:
		return e.Const.format(e.Type)
	}
	parts := make([]string, len(e.Args))
	for i, a := range e.Args {
		parts[i] = a.String()
	}
	if e.Op == OpCast {
		return fmt.Sprintf("cast(%s as %s)", parts[0], e.Type)
	}
	if e.Op == OpStrRow && e.Str != nil {
		return e.Str.RowName() + "(" + strings.Join(parts, ", ") + ")"
	}
	if (e.Op == OpStrPred || e.Op == OpStrMap) && len(parts) == 1 {
		return "(" + parts[0] + " " + e.Str.String() + ")"
	}
	if len(parts) == 2 && e.Op != OpCase {
		return "(" + parts[0] + " " + e.Op.String() + " " + parts[1] + ")"
	}
	return e.Op.String() + "(" + strings.Join(parts, ", ") + ")"
}

func (v Value) format(t Type) string {
	if v.Null {
		return "null"
	}
	switch t.Kind {
	case Float32, Float64:
		return fmt.Sprint(v.F64)
	case Decimal128:
		if v.I128 != nil {
			return v.I128.String() + fmt.Sprintf("e-%d", t.Scale)
		}
	case Decimal64:
		return fmt.Sprintf("%de-%d", v.I64, t.Scale)
	}
	return fmt.Sprint(v.I64)
}

// AggKind is an aggregate function of an Aggregate sink.
type AggKind uint8

const (
	// AggCountStar counts rows (no argument); result Int64, never null.
	AggCountStar AggKind = iota + 1
	// AggCount counts non-null values of Arg; result Int64, never null.
	AggCount
	// AggSum sums non-null values of Arg; null when there are none. Integer
	// and decimal sums are exact: the result is Decimal128 (precision 38, the
	// argument's scale) and ErrOverflow is raised beyond 128 bits. Float sums
	// give Float64.
	AggSum
	// AggMin and AggMax keep the smallest/largest non-null value of Arg
	// (result: Arg's type, nullable); null when there are none.
	AggMin
	AggMax
)

var aggNames = map[AggKind]string{
	AggCountStar: "count(*)", AggCount: "count", AggSum: "sum", AggMin: "min", AggMax: "max",
}

func (k AggKind) String() string {
	if s, ok := aggNames[k]; ok {
		return s
	}
	return fmt.Sprintf("agg(%d)", uint8(k))
}

// Agg is one aggregate of an Aggregate sink.
type Agg struct {
	Kind AggKind
	Arg  int  // index into Pipeline.Project; unused for AggCountStar
	Type Type // the result type (see AggKind for the rules)
}

// SinkKind says what a Pipeline does with the rows that pass its filter.
type SinkKind uint8

const (
	// SinkMaterialize writes the Project columns of every passing row, in
	// input order.
	SinkMaterialize SinkKind = iota + 1
	// SinkAggregate groups passing rows by the Keys columns and computes Aggs.
	SinkAggregate
)

// Pipeline is one fused pass over a set of equally long input columns:
// rows where Filter is true (when present) are projected through Project and
// fed to the sink. A Device runs it as one kernel where it can: each input
// column is read once, intermediates stay in registers.
type Pipeline struct {
	Inputs  []Type  // the types of the input columns, in order
	Filter  *Expr   // Bool; nil keeps every row
	Project []*Expr // computed columns
	Sink    SinkKind
	// Aggregate sink only.
	Keys []int // indexes into Project: the group keys
	Aggs []Agg
	// GroupHint, when > 0, is an upper bound on the number of groups that the
	// translator knows (for example from dictionary sizes); devices may use it
	// to choose a strategy. Zero means unknown.
	GroupHint int
}

// Output types: for SinkMaterialize, the Project types; for SinkAggregate,
// the key types (in Keys order) followed by the Agg result types. With no
// keys an aggregate produces exactly one row, also over empty input.
func (p *Pipeline) OutputTypes() []Type {
	if p.Sink == SinkMaterialize {
		out := make([]Type, len(p.Project))
		for i, e := range p.Project {
			out[i] = e.Type
		}
		return out
	}
	out := make([]Type, 0, len(p.Keys)+len(p.Aggs))
	for _, k := range p.Keys {
		out = append(out, p.Project[k].Type)
	}
	for _, a := range p.Aggs {
		out = append(out, a.Type)
	}
	return out
}

// String renders the pipeline on one line for EXPLAIN.
func (p *Pipeline) String() string {
	var b strings.Builder
	if p.Filter != nil {
		fmt.Fprintf(&b, "filter %s; ", p.Filter)
	}
	proj := make([]string, len(p.Project))
	for i, e := range p.Project {
		proj[i] = e.String()
	}
	fmt.Fprintf(&b, "project [%s]", strings.Join(proj, ", "))
	if p.Sink == SinkAggregate {
		aggs := make([]string, len(p.Aggs))
		for i, a := range p.Aggs {
			if a.Kind == AggCountStar {
				aggs[i] = a.Kind.String()
			} else {
				aggs[i] = fmt.Sprintf("%s(#%d)", a.Kind, a.Arg)
			}
		}
		fmt.Fprintf(&b, "; group by %v aggregate [%s]", p.Keys, strings.Join(aggs, ", "))
	}
	return b.String()
}

// MaxSortRows is the largest input a device must sort; above it Sort may
// return ErrUnsupported (the engine then runs the query elsewhere).
const MaxSortRows = 1 << 28

// SortKey orders rows by one column.
type SortKey struct {
	Col        int
	Descending bool
	NullsFirst bool
}
