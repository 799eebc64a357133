package substrait

import (
	"fmt"
	"strings"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// Func is a function of rigel's own catalogue. Plans name functions by
// extension URN and name; Resolve maps them here, so that the translator
// switches on a closed set instead of strings.
type Func string

// Scalar functions.
const (
	FnAdd       Func = "add"
	FnSubtract  Func = "subtract"
	FnMultiply  Func = "multiply"
	FnDivide    Func = "divide"
	FnNegate    Func = "negate"
	FnEqual     Func = "equal"
	FnNotEqual  Func = "not_equal"
	FnLt        Func = "lt"
	FnLte       Func = "lte"
	FnGt        Func = "gt"
	FnGte       Func = "gte"
	FnBetween   Func = "between"
	FnIsNull    Func = "is_null"
	FnIsNotNull Func = "is_not_null"
	// FnIsNotDistinctFrom is equality where null equals null; rigel runs it
	// as a join key only.
	FnIsNotDistinctFrom Func = "is_not_distinct_from"
	FnAnd               Func = "and"
	FnOr                Func = "or"
	FnNot               Func = "not"
	// String functions (run on Dict columns through per-dictionary tables).
	FnLike       Func = "like"
	FnContains   Func = "contains"
	FnStartsWith Func = "starts_with"
	FnEndsWith   Func = "ends_with"
	FnSubstring  Func = "substring"
	// FnExtract is extract(COMPONENT[, ONE], date).
	FnExtract Func = "extract"
)

// Aggregate functions.
const (
	FnSum   Func = "sum"
	FnAvg   Func = "avg"
	FnCount Func = "count"
	FnMin   Func = "min"
	FnMax   Func = "max"
	// FnAnyValue is any one value of the group (DuckDB's plans use it
	// for columns a grouping key determines).
	FnAnyValue Func = "any_value"
	// FnApproxCountDistinct is computed exactly, as count(DISTINCT x):
	// an exact count is within any error bound the function allows.
	FnApproxCountDistinct Func = "approx_count_distinct"
)

// catalogue lists, per standard extension file, the names rigel resolves.
// A function outside it is reported as unknown when the plan is loaded.
var catalogue = map[string][]Func{
	"functions_arithmetic":         {FnAdd, FnSubtract, FnMultiply, FnDivide, FnNegate, FnSum, FnAvg, FnMin, FnMax},
	"functions_arithmetic_decimal": {FnAdd, FnSubtract, FnMultiply, FnDivide, FnSum, FnAvg, FnMin, FnMax},
	"functions_comparison":         {FnEqual, FnNotEqual, FnLt, FnLte, FnGt, FnGte, FnBetween, FnIsNull, FnIsNotNull, FnIsNotDistinctFrom},
	"functions_boolean":            {FnAnd, FnOr, FnNot},
	"functions_aggregate_generic":  {FnCount, FnAnyValue},
	"functions_aggregate_approx":   {FnApproxCountDistinct},
	"functions_datetime":           {FnLt, FnLte, FnGt, FnGte, FnExtract},
	"functions_string":             {FnLike, FnContains, FnStartsWith, FnEndsWith, FnSubstring},
}

// min and max of strings (and of intervals, whose type the translator
// refuses) are rigel's extension's, byte-wise as DuckDB compares: the same
// aggregates as the standard ones, over a dictionary's codes, which are in
// byte order.
func init() {
	catalogue[RigelURN] = append(catalogue[RigelURN], FnMin, FnMax)
}

// ErrUnknownFunction: the plan calls a function its extension does not
// declare. The plan is wrong; nothing can run it.
var ErrUnknownFunction = fmt.Errorf("unknown function")

// ErrNotImplemented: a real Substrait function that rigel's catalogue does
// not have yet. The engine falls back for it.
var ErrNotImplemented = fmt.Errorf("not in rigel's function catalogue")

// Resolve maps an extension function ID (URN and compound or simple name)
// to the catalogue, or fails with ErrNotImplemented.
func Resolve(id extensions.ID) (Func, error) {
	name := id.Name
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	file := strings.TrimPrefix(id.URN, extensions.SubstraitDefaultURNPrefix)
	file = strings.TrimSuffix(file, ".yaml")
	if i := strings.LastIndexByte(file, '/'); i >= 0 { // URI form
		file = file[i+1:]
	}
	for _, f := range catalogue[file] {
		if string(f) == name {
			return f, nil
		}
	}
	return "", fmt.Errorf("function %q from %q is not implemented by rigel yet: %w", id.Name, id.URN, ErrNotImplemented)
}

// checkDeclared walks every expression of the relation tree and fails on
// the first function that its extension does not declare (a misspelt name,
// a wrong signature): a malformed plan, not a missing feature.
func checkDeclared(r plan.Rel, path string, coll *extensions.Collection) error {
	path = path + "/" + RelName(r)
	var exprs []expr.Expression
	switch rel := r.(type) {
	case *plan.NamedTableReadRel:
		exprs = append(exprs, rel.Filter(), rel.BestEffortFilter())
	case *plan.FilterRel:
		exprs = append(exprs, rel.Condition())
	case *plan.ProjectRel:
		exprs = append(exprs, rel.Expressions()...)
	case *plan.AggregateRel:
		exprs = append(exprs, rel.GroupingExpressions()...)
		for _, m := range rel.Measures() {
			a := m.Measure()
			if _, ok := coll.GetAggregateFunc(a.ID()); !ok {
				return fmt.Errorf("%s: measure: %w", path, undeclared(a.ID()))
			}
			for i := 0; i < a.NArgs(); i++ {
				if e, ok := a.Arg(i).(expr.Expression); ok {
					exprs = append(exprs, e)
				}
			}
			exprs = append(exprs, m.Filter())
		}
	case *plan.SortRel:
		for _, s := range rel.Sorts() {
			exprs = append(exprs, s.Expr)
		}
	}
	for _, e := range exprs {
		if e == nil {
			continue
		}
		err := walkExpr(e, func(e expr.Expression) error {
			if f, ok := e.(*expr.ScalarFunction); ok {
				if _, ok := coll.GetScalarFunc(f.ID()); !ok {
					return fmt.Errorf("%s: %w", path, undeclared(f.ID()))
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for i, in := range r.GetInputs() {
		if err := checkDeclared(in, fmt.Sprintf("%s[%d]", path, i), coll); err != nil {
			return err
		}
	}
	return nil
}

func undeclared(id extensions.ID) error {
	return fmt.Errorf("%w %q: %q declares no such function", ErrUnknownFunction, id.Name, id.URN)
}

// walkExpr calls f on e and on every sub-expression, depth first.
func walkExpr(e expr.Expression, f func(expr.Expression) error) error {
	if err := f(e); err != nil {
		return err
	}
	var firstErr error
	e.Visit(func(child expr.Expression) expr.Expression {
		if firstErr == nil {
			firstErr = walkExpr(child, f)
		}
		return child
	})
	return firstErr
}
