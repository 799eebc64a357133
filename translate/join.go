package translate

import (
	"fmt"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/physical"
	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

var joinTypes = map[plan.JoinType]physical.JoinType{
	plan.JoinTypeInner:      physical.JoinInner,
	plan.JoinTypeOuter:      physical.JoinFull,
	plan.JoinTypeLeft:       physical.JoinLeft,
	plan.JoinTypeRight:      physical.JoinRight,
	plan.JoinTypeLeftSemi:   physical.JoinSemi,
	plan.JoinTypeLeftAnti:   physical.JoinAnti,
	plan.JoinTypeLeftSingle: physical.JoinSingle,
}

// join translates a JoinRel: the conjuncts of its condition that equate an
// expression of the left input with one of the right become hash keys
// (computed as extra columns of each input), the rest a residual condition
// over the pairs; a post-join filter becomes a filter over the output.
func (t *translator) join(r *plan.JoinRel) (*stream, error) {
	jt, ok := joinTypes[r.Type()]
	if !ok {
		return nil, unsupported(fmt.Sprintf("JoinRel of type %s", r.Type()))
	}
	out, err := t.joinInputs(r.Left(), r.Right(), jt, r.Expr())
	if err != nil {
		return nil, err
	}
	post := r.PostJoinFilter()
	if post == nil || isTrue(post) {
		return out, nil
	}
	cond, err := exprConv{out.exprs}.convert(post)
	if err != nil {
		return nil, fmt.Errorf("JoinRel post-join filter: %w", err)
	}
	out.filter = and(out.filter, cond)
	return out, nil
}

// cross translates a CrossRel: an inner join without keys.
func (t *translator) cross(r *plan.CrossRel) (*stream, error) {
	return t.joinInputs(r.Left(), r.Right(), physical.JoinInner, nil)
}

func isTrue(e expr.Expression) bool {
	l, ok := e.(*expr.PrimitiveLiteral[bool])
	return ok && l.Value
}

func (t *translator) joinInputs(lr, rr plan.Rel, jt physical.JoinType, condition expr.Expression) (*stream, error) {
	left, err := t.rel(lr)
	if err != nil {
		return nil, err
	}
	right, err := t.rel(rr)
	if err != nil {
		return nil, err
	}
	if left, err = t.unsliced(left); err != nil {
		return nil, err
	}
	if right, err = t.unsliced(right); err != nil {
		return nil, err
	}
	nl, nr := len(left.exprs), len(right.exprs)

	// The condition is converted over placeholder columns: 0..nl-1 stand
	// for the left input's columns, nl.. for the right's. Each conjunct is
	// then sorted by the sides it reads.
	joined := make([]*gpu.Expr, 0, nl+nr)
	for i, e := range left.exprs {
		joined = append(joined, gpu.Col(i, e.Type))
	}
	for i, e := range right.exprs {
		joined = append(joined, gpu.Col(nl+i, e.Type))
	}
	var residual []*gpu.Expr
	var lkeys, rkeys []*gpu.Expr
	var nullsEqual []bool
	for _, c := range conjuncts(condition) {
		lk, rk, ne, isKey, err := joinKey(c, joined, nl)
		if err != nil {
			return nil, fmt.Errorf("JoinRel condition: %w", err)
		}
		if isKey {
			lkeys = append(lkeys, substitute(lk, left.exprs, 0))
			rkeys = append(rkeys, substitute(rk, right.exprs, nl))
			nullsEqual = append(nullsEqual, ne)
			continue
		}
		g, err := exprConv{joined}.convert(c)
		if err != nil {
			return nil, fmt.Errorf("JoinRel condition: %w", err)
		}
		residual = append(residual, g)
	}
	return t.joinStreams(left, right, jt, lkeys, rkeys, nullsEqual, residual)
}

// joinStreams joins two streams on keys (expressions over each stream's
// columns) with a residual condition over placeholder columns (0..nl-1 the
// left stream's columns, nl.. the right's). The result has the left
// stream's columns, then (but for semi and anti joins) the right's.
func (t *translator) joinStreams(left, right *stream, jt physical.JoinType, lkeys, rkeys []*gpu.Expr, nullsEqual []bool, residual []*gpu.Expr) (*stream, error) {
	if why, ok := t.onDuckDB[physical.RefusedCross]; ok && len(lkeys) == 0 {
		return nil, unsupported("refused while running: " + why)
	}
	nl, nr := len(left.exprs), len(right.exprs)
	j := &physical.Join{Type: jt, NullsEqual: nullsEqual}
	j.LeftKeys = keyColumns(left, lkeys)
	j.RightKeys = keyColumns(right, rkeys)

	// The residual reads the join's own output: left columns (with the
	// added key columns) then right columns.
	nlx := len(left.exprs)
	shift := map[int]int{}
	for i := range nl {
		shift[i] = i
	}
	for i := range nr {
		shift[nl+i] = nlx + i
	}
	for _, g := range residual {
		j.Residual = and(j.Residual, gpu.Renumbered(g, shift))
	}
	var err error
	if j.Left, err = t.materialize(left); err != nil {
		return nil, err
	}
	if j.Right, err = t.materialize(right); err != nil {
		return nil, err
	}
	out := identity(j)
	keep := out.exprs[:nl:nl]
	if jt != physical.JoinSemi && jt != physical.JoinAnti {
		keep = append(keep, out.exprs[nlx:nlx+nr]...)
	}
	out.exprs = keep
	return out, nil
}

// conjuncts splits a condition at its top-level ANDs.
func conjuncts(e expr.Expression) []expr.Expression {
	if e == nil || isTrue(e) {
		return nil
	}
	if f, ok := e.(*expr.ScalarFunction); ok {
		if fn, err := substrait.Resolve(f.ID()); err == nil && fn == substrait.FnAnd {
			var out []expr.Expression
			for i := range f.NArgs() {
				a, ok := f.Arg(i).(expr.Expression)
				if !ok {
					return []expr.Expression{e}
				}
				out = append(out, conjuncts(a)...)
			}
			return out
		}
	}
	return []expr.Expression{e}
}

// joinKey reports whether c equates (= or IS NOT DISTINCT FROM) an
// expression of the left side with one of the right, returning both over
// the placeholder columns, cast to the type they compare in.
func joinKey(c expr.Expression, joined []*gpu.Expr, nl int) (l, r *gpu.Expr, nullsEqual, ok bool, err error) {
	a, b, nullsEqual, ok, err := equiArgs(c, joined)
	if !ok || err != nil {
		// Not a key; an equality whose sides do not convert alone (a
		// string column against a literal) is converted whole as a
		// residual, which reports what rigel cannot run.
		return nil, nil, false, false, nil
	}
	switch sa, sb := sides(a, nl), sides(b, nl); {
	case sa == sideLeft && sb == sideRight:
	case sa == sideRight && sb == sideLeft:
		a, b = b, a
	default:
		return nil, nil, false, false, nil
	}
	return a, b, nullsEqual, true, nil
}

// equiArgs reports whether c is a = b or a IS NOT DISTINCT FROM b, and
// returns a and b converted over the placeholder columns and cast to the
// type they compare in.
func equiArgs(c expr.Expression, joined []*gpu.Expr) (a, b *gpu.Expr, nullsEqual, ok bool, err error) {
	f, isFn := c.(*expr.ScalarFunction)
	if !isFn || f.NArgs() != 2 {
		return nil, nil, false, false, nil
	}
	fn, err := substrait.Resolve(f.ID())
	if err != nil || (fn != substrait.FnEqual && fn != substrait.FnIsNotDistinctFrom) {
		return nil, nil, false, false, nil
	}
	var args [2]*gpu.Expr
	for i := range args {
		x, isExpr := f.Arg(i).(expr.Expression)
		if !isExpr {
			return nil, nil, false, false, nil
		}
		if args[i], err = (exprConv{joined}).convert(x); err != nil {
			return nil, nil, false, false, err
		}
	}
	ct, err := commonType(args[0].Type, args[1].Type)
	if err != nil {
		return nil, nil, false, false, err
	}
	for i := range args {
		if args[i], err = cast(args[i], ct.WithNullable(args[i].Type.Nullable)); err != nil {
			return nil, nil, false, false, err
		}
	}
	return args[0], args[1], fn == substrait.FnIsNotDistinctFrom, true, nil
}

type side uint8

const (
	sideNone side = iota
	sideLeft
	sideRight
	sideBoth
)

// sides says which inputs an expression over the placeholder columns reads.
func sides(e *gpu.Expr, nl int) side {
	if e.Op == gpu.OpCol {
		if e.Col < nl {
			return sideLeft
		}
		return sideRight
	}
	s := sideNone
	for _, a := range e.Args {
		s |= sides(a, nl)
	}
	return s
}

// substitute replaces placeholder column base+i by exprs[i].
func substitute(e *gpu.Expr, exprs []*gpu.Expr, base int) *gpu.Expr {
	return gpu.ReplaceColumns(e, func(c *gpu.Expr) *gpu.Expr { return exprs[c.Col-base] })
}

// keyColumns finds each key among the stream's columns, appending those
// that are computed, and returns their positions.
func keyColumns(s *stream, keys []*gpu.Expr) []int {
	out := make([]int, len(keys))
	for k, key := range keys {
		out[k] = s.columnOf(key)
	}
	return out
}
