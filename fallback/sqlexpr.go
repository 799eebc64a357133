package fallback

import (
	"fmt"
	"strings"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// scope is what a relation's expressions see: the SQL text of each input
// field, and the scope of the expression that holds this relation as a
// subquery (what outer references with steps_out reach).
type scope struct {
	cols  []string
	outer *scope
}

func aliasScope(alias string, n int, outer *scope) *scope {
	s := &scope{cols: make([]string, n), outer: outer}
	for i := range s.cols {
		s.cols[i] = fmt.Sprintf("%s.c%d", alias, i)
	}
	return s
}

// expr writes one expression over a scope.
func (w *Writer) expr(e expr.Expression, sc *scope) (string, error) {
	switch x := e.(type) {
	case *expr.FieldReference:
		return fieldRef(x, sc)
	case expr.Literal:
		return literal(x)
	case *expr.ScalarFunction:
		return w.scalar(x, sc)
	case *expr.WindowFunction:
		return w.window(x, sc)
	case *expr.Cast:
		in, err := w.expr(x.Input, sc)
		if err != nil {
			return "", err
		}
		t, err := sqlType(x.Type)
		if err != nil {
			return "", err
		}
		if x.FailureBehavior == types.BehaviorReturnNil {
			return "TRY_CAST(" + in + " AS " + t + ")", nil
		}
		return "CAST(" + in + " AS " + t + ")", nil
	case *expr.IfThen:
		var b strings.Builder
		b.WriteString("CASE")
		for i := 0; i < x.NIfs(); i++ {
			p := x.IfPair(i)
			c, err := w.expr(p.If, sc)
			if err != nil {
				return "", err
			}
			v, err := w.expr(p.Then, sc)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, " WHEN %s THEN %s", c, v)
		}
		return w.caseEnd(&b, x.Else(), x.GetType(), sc)
	case *expr.SwitchExpr:
		m, err := w.expr(x.MatchExpr(), sc)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		b.WriteString("CASE " + m)
		for i := 0; i < x.NCases(); i++ {
			c := x.Case(i)
			k, err := literal(c.If)
			if err != nil {
				return "", err
			}
			v, err := w.expr(c.Then, sc)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, " WHEN %s THEN %s", k, v)
		}
		return w.caseEnd(&b, x.Else(), x.GetType(), sc)
	case *expr.SingularOrList:
		v, err := w.expr(x.Value, sc)
		if err != nil {
			return "", err
		}
		opts, err := w.exprs(x.Options, sc)
		if err != nil {
			return "", err
		}
		return "(" + v + " IN (" + strings.Join(opts, ", ") + "))", nil
	case *expr.MultiOrList:
		// (a, b) IN ((1, 2), ...) as OR of ANDs: the same three-valued
		// result as SQL's row IN list.
		vals, err := w.exprs(x.Value, sc)
		if err != nil {
			return "", err
		}
		var ors []string
		for _, row := range x.Options {
			if len(row) != len(vals) {
				return "", fmt.Errorf("fallback SQL: multi-or-list option of %d values for %d", len(row), len(vals))
			}
			opts, err := w.exprs(row, sc)
			if err != nil {
				return "", err
			}
			ands := make([]string, len(vals))
			for i := range vals {
				ands[i] = vals[i] + " = " + opts[i]
			}
			ors = append(ors, "("+strings.Join(ands, " AND ")+")")
		}
		if len(ors) == 0 {
			return "false", nil
		}
		return "(" + strings.Join(ors, " OR ") + ")", nil
	case *plan.ScalarSubquery:
		q, err := w.subquery(x.Input, sc)
		if err != nil {
			return "", err
		}
		return "(SELECT c0 FROM (" + q + "))", nil
	case *plan.InPredicateSubquery:
		needles, err := w.exprs(x.Needles, sc)
		if err != nil {
			return "", err
		}
		q, err := w.subquery(x.Haystack, sc)
		if err != nil {
			return "", err
		}
		cols := make([]string, len(needles))
		for i := range cols {
			cols[i] = fmt.Sprintf("c%d", i)
		}
		return fmt.Sprintf("((%s) IN (SELECT %s FROM (%s)))", strings.Join(needles, ", "), strings.Join(cols, ", "), q), nil
	case *plan.SetPredicateSubquery:
		if x.Operation != plan.SetPredicateOpExists {
			return "", fmt.Errorf("fallback SQL: set predicate %s (only EXISTS has a DuckDB form)", x.Operation)
		}
		q, err := w.subquery(x.Tuples, sc)
		if err != nil {
			return "", err
		}
		return "(EXISTS (" + q + "))", nil
	case *plan.SetComparisonSubquery:
		op, ok := comparisonSQL[x.ComparisonOp]
		if !ok {
			return "", fmt.Errorf("fallback SQL: set comparison %s", x.ComparisonOp)
		}
		red := "ANY"
		switch x.ReductionOp {
		case plan.SetComparisonReductionOpAny:
		case plan.SetComparisonReductionOpAll:
			red = "ALL"
		default:
			return "", fmt.Errorf("fallback SQL: set comparison reduction %s", x.ReductionOp)
		}
		l, err := w.expr(x.Left, sc)
		if err != nil {
			return "", err
		}
		q, err := w.subquery(x.Right, sc)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("(%s %s %s (SELECT c0 FROM (%s)))", l, op, red, q), nil
	}
	return "", fmt.Errorf("fallback SQL: expression %T has no DuckDB form here", e)
}

var comparisonSQL = map[plan.SetComparisonComparisonOp]string{
	plan.SetComparisonComparisonOpEq: "=", plan.SetComparisonComparisonOpNe: "<>",
	plan.SetComparisonComparisonOpLt: "<", plan.SetComparisonComparisonOpGt: ">",
	plan.SetComparisonComparisonOpLe: "<=", plan.SetComparisonComparisonOpGe: ">=",
}

// caseEnd finishes a CASE: a missing ELSE is a null of the result type.
func (w *Writer) caseEnd(b *strings.Builder, els expr.Expression, t types.Type, sc *scope) (string, error) {
	if els != nil {
		v, err := w.expr(els, sc)
		if err != nil {
			return "", err
		}
		b.WriteString(" ELSE " + v)
	}
	b.WriteString(" END")
	st, err := sqlType(t)
	if err != nil {
		return "", err
	}
	return "CAST(" + b.String() + " AS " + st + ")", nil
}

func (w *Writer) exprs(es []expr.Expression, sc *scope) ([]string, error) {
	out := make([]string, len(es))
	for i, e := range es {
		s, err := w.expr(e, sc)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// subquery writes a relation nested in an expression: everything in it is
// SQL (its rows depend on the outer row when it has outer references), and
// its expressions see sc as their outer scope.
func (w *Writer) subquery(r plan.Rel, sc *scope) (string, error) {
	return w.rel(r, sc, false)
}

func fieldRef(f *expr.FieldReference, sc *scope) (string, error) {
	seg, ok := f.Reference.(*expr.StructFieldRef)
	if !ok || seg.Child != nil {
		return "", fmt.Errorf("fallback SQL: field reference %s (only direct struct fields)", f)
	}
	switch root := f.Root.(type) {
	case expr.OuterReference:
		for i := uint32(0); i < uint32(root); i++ {
			if sc == nil {
				break
			}
			sc = sc.outer
		}
		if sc == nil || root == 0 {
			return "", fmt.Errorf("fallback SQL: outer reference %s steps out of every enclosing query", f)
		}
	default:
		if f.Root != expr.RootReference {
			return "", fmt.Errorf("fallback SQL: field reference %s on an expression", f)
		}
	}
	i := int(seg.Field)
	if i < 0 || i >= len(sc.cols) {
		return "", fmt.Errorf("fallback SQL: field reference %d out of range: the input has %d columns", i, len(sc.cols))
	}
	return sc.cols[i], nil
}

// funcArgs writes a function's value arguments and collects its enum ones.
func (w *Writer) funcArgs(name string, n int, arg func(int) types.FuncArg, sc *scope) ([]string, []string, error) {
	var vals, enums []string
	for i := 0; i < n; i++ {
		switch a := arg(i).(type) {
		case expr.Expression:
			s, err := w.expr(a, sc)
			if err != nil {
				return nil, nil, err
			}
			vals = append(vals, s)
		case types.Enum:
			enums = append(enums, string(a))
		default:
			return nil, nil, fmt.Errorf("fallback SQL: function %s argument %d (%T)", name, i, a)
		}
	}
	return vals, enums, nil
}
