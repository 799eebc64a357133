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
