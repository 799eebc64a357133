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
	FnAnd       Func = "and"
	FnOr        Func = "or"
	FnNot       Func = "not"
)

// Aggregate functions.
const (
	FnSum   Func = "sum"
	FnAvg   Func = "avg"
	FnCount Func = "count"
	FnMin   Func = "min"
	FnMax   Func = "max"
)

// catalogue lists, per standard extension file, the names rigel resolves.
// A function outside it is reported as unknown when the plan is loaded.
var catalogue = map[string][]Func{
	"functions_arithmetic":         {FnAdd, FnSubtract, FnMultiply, FnDivide, FnNegate, FnSum, FnAvg, FnMin, FnMax},
	"functions_arithmetic_decimal": {FnAdd, FnSubtract, FnMultiply, FnDivide, FnSum, FnAvg, FnMin, FnMax},
	"functions_comparison":         {FnEqual, FnNotEqual, FnLt, FnLte, FnGt, FnGte, FnBetween, FnIsNull, FnIsNotNull},
	"functions_boolean":            {FnAnd, FnOr, FnNot},
	"functions_aggregate_generic":  {FnCount},
	"functions_datetime":           {FnLt, FnLte, FnGt, FnGte},
}

// ErrUnknownFunction is wrapped by Resolve's errors.
var ErrUnknownFunction = fmt.Errorf("unknown function")

// Resolve maps an extension function ID (URN and compound or simple name)
// to the catalogue.
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
	return "", fmt.Errorf("%w %q from %q: not in rigel's function catalogue", ErrUnknownFunction, id.Name, id.URN)
}

// checkFunctions walks every expression of the relation tree and fails on
// the first function that does not resolve, naming where it was found.
func checkFunctions(r plan.Rel, path string) error {
	path = path + "/" + RelName(r)
	var exprs []expr.Expression
	var aggs []*expr.AggregateFunction
	switch rel := r.(type) {
	case *plan.NamedTableReadRel:
		exprs = append(exprs, rel.Filter(), rel.BestEffortFilter())
	case *plan.VirtualTableReadRel:
	case *plan.FilterRel:
		exprs = append(exprs, rel.Condition())
	case *plan.ProjectRel:
		exprs = append(exprs, rel.Expressions()...)
	case *plan.AggregateRel:
		exprs = append(exprs, rel.GroupingExpressions()...)
		for _, m := range rel.Measures() {
			aggs = append(aggs, m.Measure())
			if m.Filter() != nil {
				exprs = append(exprs, m.Filter())
			}
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
		if err := walkExpr(e, func(e expr.Expression) error {
			if f, ok := e.(*expr.ScalarFunction); ok {
				if _, err := Resolve(f.ID()); err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	for _, a := range aggs {
		if _, err := Resolve(a.ID()); err != nil {
			return fmt.Errorf("%s: measure: %w", path, err)
		}
		for i := 0; i < a.NArgs(); i++ {
			if e, ok := a.Arg(i).(expr.Expression); ok {
				if err := walkExpr(e, func(e expr.Expression) error {
					if f, ok := e.(*expr.ScalarFunction); ok {
						if _, err := Resolve(f.ID()); err != nil {
							return fmt.Errorf("%s: measure argument: %w", path, err)
						}
					}
					return nil
				}); err != nil {
					return err
				}
			}
		}
	}
	for i, in := range r.GetInputs() {
		if err := checkFunctions(in, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	return nil
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
