package physical

import "github.com/rigel-db/rigel/gpu"

// Left joins that the filter above them makes simpler. DuckDB plans a
// correlated subquery as a left join of the outer rows with the
// subquery's result, and the comparison with that result comes as a
// filter above the join: TPC-H Q2, Q17 and Q20 (p.ps_supplycost =
// min(...), l_quantity < 0.2 * avg(...)). Q16's NOT IN comes as a left
// join whose filter keeps the rows where the right side is null. A left
// join runs from its pairs, the left rows without one and gathered copies
// of both sides (composed kernels); an inner join feeds the filter and
// projection straight from a generated probe pipeline (ProbePipeline), an
// anti join from counts (CountJoin). So, as databases do when they push
// filters:
//
//   - a filter that is false or null whenever the right side's columns are
//     all null drops every padded row: the left join is an inner join;
//   - a filter that keeps only rows where a right column the right side
//     never leaves null is null keeps exactly the padded rows: when nothing
//     else reads the right side, the left join is an anti join.
//
// A full join loses the padded rows of each side whose nulls the filter
// rejects: it becomes a left join, a right join (then run as a left one),
// or an inner join.
//
// The conjuncts that read no column of the padded side are evaluated,
// after the rewrite, on fewer rows (no padded ones, or no matched ones).
// They must be unable to raise an error (gpu.CannotRaise), so that no
// error the plan raises is lost.

// simplifyOuterJoin rewrites x's input join as above where it can, in
// place, and returns the pipeline that replaces x (x itself, or one over
// an anti join).
func simplifyOuterJoin(x *Pipeline) *Pipeline {
	j := filteredJoin(x, JoinLeft)
	if j == nil {
		return x
	}
	nl := len(j.Left.OutputTypes())
	right := func(c int) bool { return c >= nl }
	conj := conjunctsOf(x.Pipe.Filter)
	if !othersCannotRaise(conj, right) {
		return x
	}
	if rejectsPadded(conj, right) {
		j.Type = JoinInner
		return x
	}
	return antiFromIsNull(x, j, nl, conj)
}

// simplifyFullJoin rewrites x's input full join, in place, into the
// join the filter leaves (see above), and returns x.
func simplifyFullJoin(x *Pipeline) *Pipeline {
	j := filteredJoin(x, JoinFull)
	if j == nil {
		return x
	}
	nl := len(j.Left.OutputTypes())
	conj := conjunctsOf(x.Pipe.Filter)
	// drops[s]: every row padded on side s goes (the other side's
	// unmatched rows), and no error is lost with it.
	var drops [2]bool
	for s, side := range [2]func(int) bool{func(c int) bool { return c < nl }, func(c int) bool { return c >= nl }} {
		drops[s] = rejectsPadded(conj, side) && othersCannotRaise(conj, side)
	}
	switch {
	case drops[0] && drops[1]:
		j.Type = JoinInner
	case drops[0]: // the right rows without a match go: every left row stays
		j.Type = JoinLeft
	case drops[1]:
		j.Type = JoinRight
	}
	return x
}

// filteredJoin returns x's input join when it is an equi-join of type t
// under a filter that reads its columns as they are; nil otherwise.
func filteredJoin(x *Pipeline, t JoinType) *Join {
	j, ok := x.Input.(*Join)
	if !ok || j.Type != t || x.Pipe.Filter == nil || len(j.LeftKeys) == 0 ||
		!inputsMatch(x.Pipe.Inputs, j.OutputTypes()) {
		return nil
	}
	return j
}

// rejectsPadded: one of the conjuncts drops every row padded on side.
func rejectsPadded(conj []*gpu.Expr, side func(int) bool) bool {
	for _, c := range conj {
		if rejectsNull(c, side) {
			return true
		}
	}
	return false
}

// othersCannotRaise: the conjuncts that read no column of side cannot
// raise an error, so that dropping the rows padded on side loses none.
func othersCannotRaise(conj []*gpu.Expr, side func(int) bool) bool {
	for _, c := range conj {
		if !readsColumn(c, side) && !gpu.CannotRaise(c) {
			return false
		}
	}
	return true
}

// antiFromIsNull is the second rewrite: a conjunct is_null(r) (or
// not(is_not_null(r))) of a right column r that the right side never
// leaves null, and nothing else reads the right side.
func antiFromIsNull(x *Pipeline, j *Join, nl int, conj []*gpu.Expr) *Pipeline {
	rt := j.Right.OutputTypes()
	right := func(c int) bool { return c >= nl }
	for _, e := range x.Pipe.Project {
		if readsColumn(e, right) {
			return x
		}
	}
	// Every such test holds on the padded rows: all of them go; any other
	// conjunct that reads the right side keeps the left join.
	var rest []*gpu.Expr
	for _, c := range conj {
		if r, ok := isNullTest(c); ok && r >= nl && r < nl+len(rt) && !rt[r-nl].Nullable {
			continue
		}
		if readsColumn(c, right) {
			return x
		}
		rest = append(rest, c)
	}
	if len(rest) == len(conj) {
		return x
	}
	p := *x.Pipe
	p.Inputs = x.Pipe.Inputs[:nl]
	p.Filter = nil
	if len(rest) == 1 {
		p.Filter = rest[0]
	} else if len(rest) > 1 {
		p.Filter = gpu.Call(gpu.OpAnd, x.Pipe.Filter.Type, rest...)
	}
	j.Type = JoinAnti
	return &Pipeline{Input: j, Pipe: &p}
}

// isNullTest returns r for is_null(col r) and not(is_not_null(col r)).
func isNullTest(e *gpu.Expr) (int, bool) {
	if e.Op == gpu.OpNot && len(e.Args) == 1 && e.Args[0].Op == gpu.OpIsNotNull {
		e = &gpu.Expr{Op: gpu.OpIsNull, Args: e.Args[0].Args}
	}
	if e.Op == gpu.OpIsNull && len(e.Args) == 1 && e.Args[0].Op == gpu.OpCol {
		return e.Args[0].Col, true
	}
	return 0, false
}

// conjunctsOf flattens nested ANDs.
func conjunctsOf(e *gpu.Expr) []*gpu.Expr {
	if e.Op != gpu.OpAnd {
		return []*gpu.Expr{e}
	}
	var out []*gpu.Expr
	for _, a := range e.Args {
		out = append(out, conjunctsOf(a)...)
	}
	return out
}

func readsColumn(e *gpu.Expr, want func(int) bool) bool {
	used := map[int]bool{}
	gpu.MarkColumns(e, used)
	for c := range used {
		if want(c) {
			return true
		}
	}
	return false
}

// rejectsNull: e is false or null on every row whose columns in side are
// all null.
func rejectsNull(e *gpu.Expr, side func(int) bool) bool {
	switch e.Op {
	case gpu.OpAnd:
		for _, a := range e.Args {
			if rejectsNull(a, side) {
				return true
			}
		}
		return false
	case gpu.OpOr:
		for _, a := range e.Args {
			if !rejectsNull(a, side) {
				return false
			}
		}
		return true
	case gpu.OpIsNotNull:
		return nullWhen(e.Args[0], side)
	}
	return nullWhen(e, side)
}

// nullWhen: e is null on every row whose columns in side are all null.
func nullWhen(e *gpu.Expr, side func(int) bool) bool {
	switch e.Op {
	case gpu.OpCol:
		return side(e.Col)
	case gpu.OpAnd, gpu.OpOr: // Kleene logic: null only when every argument is
		for _, a := range e.Args {
			if !nullWhen(a, side) {
				return false
			}
		}
		return len(e.Args) > 0
	case gpu.OpAdd, gpu.OpSub, gpu.OpMul, gpu.OpDiv, gpu.OpNeg, gpu.OpEq, gpu.OpNe,
		gpu.OpLt, gpu.OpLe, gpu.OpGt, gpu.OpGe, gpu.OpNot, gpu.OpCast, gpu.OpStrPred,
		gpu.OpStrMap, gpu.OpYear, gpu.OpMonth, gpu.OpDay:
		// Null in, null out: one such argument is enough.
		for _, a := range e.Args {
			if nullWhen(a, side) {
				return true
			}
		}
	}
	return false
}
