package gpu

// ReplaceColumns returns e with every column reference c replaced by f(c);
// the rest of the tree is copied, so e itself is unchanged. Plans use it to
// move an expression onto other inputs (pruned, joined or gathered ones).
func ReplaceColumns(e *Expr, f func(c *Expr) *Expr) *Expr {
	if e == nil {
		return nil
	}
	if e.Op == OpCol {
		return f(e)
	}
	c := *e
	c.Args = make([]*Expr, len(e.Args))
	for i, a := range e.Args {
		c.Args[i] = ReplaceColumns(a, f)
	}
	return &c
}

// MarkColumns adds the input columns e reads to used.
func MarkColumns(e *Expr, used map[int]bool) {
	if e == nil {
		return
	}
	if e.Op == OpCol {
		used[e.Col] = true
	}
	for _, a := range e.Args {
		MarkColumns(a, used)
	}
}

// Renumbered returns e reading column remap[i] where it read column i.
func Renumbered(e *Expr, remap map[int]int) *Expr {
	return ReplaceColumns(e, func(c *Expr) *Expr { return Col(remap[c.Col], c.Type) })
}

// CannotRaise reports whether evaluating e can raise no error on any row:
// it is built only of columns, constants, comparisons, logic, null tests,
// string predicates and date fields (arithmetic and casts can overflow).
// Such a filter may be tested on more rows than the plan tests it on, for
// example on every probe row before a join's lookup instead of on the
// joined pairs, without raising an error the plan would not.
func CannotRaise(e *Expr) bool {
	if e == nil {
		return true
	}
	switch e.Op {
	case OpCol, OpConst, OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpAnd, OpOr, OpNot,
		OpIsNull, OpIsNotNull, OpStrPred, OpYear, OpMonth, OpDay, OpCase:
	default:
		return false
	}
	for _, a := range e.Args {
		if !CannotRaise(a) {
			return false
		}
	}
	return true
}
