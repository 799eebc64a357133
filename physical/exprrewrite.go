package physical

import "github.com/rigel-db/rigel/gpu"

// rewriteExpr copies e with the nodes that replace changes replaced:
// replace returns a node's replacement and true, or false to go on into
// its arguments. Subtrees without a change are kept, and memo keeps shared
// nodes shared (an expression may be a DAG). The plan's own expressions
// are never modified: they may be shared with other plans.
func rewriteExpr(e *gpu.Expr, replace func(*gpu.Expr) (*gpu.Expr, bool), memo map[*gpu.Expr]*gpu.Expr) *gpu.Expr {
	if e == nil {
		return nil
	}
	if r, ok := memo[e]; ok {
		return r
	}
	r, done := replace(e)
	if !done {
		r = e
		var args []*gpu.Expr
		for i, a := range e.Args {
			na := rewriteExpr(a, replace, memo)
			if na != a && args == nil {
				args = append([]*gpu.Expr(nil), e.Args...)
			}
			if args != nil {
				args[i] = na
			}
		}
		if args != nil {
			c := *e
			c.Args = args
			r = &c
		}
	}
	memo[e] = r
	return r
}

// rewritePipeExprs is a copy of p whose filter and projections went
// through rewriteExpr (one memo for all: they may share nodes).
func rewritePipeExprs(p *gpu.Pipeline, replace func(*gpu.Expr) (*gpu.Expr, bool)) *gpu.Pipeline {
	c := *p
	memo := map[*gpu.Expr]*gpu.Expr{}
	c.Filter = rewriteExpr(p.Filter, replace, memo)
	c.Project = make([]*gpu.Expr, len(p.Project))
	for j, e := range p.Project {
		c.Project[j] = rewriteExpr(e, replace, memo)
	}
	return &c
}

// originCols marks, over the concatenated columns of cs (each a node's
// origins, strFlow.carries), the positions whose origin is in set.
func originCols(set func(o int) bool, cs ...[]int) map[int]bool {
	m, at := map[int]bool{}, 0
	for _, c := range cs {
		for _, o := range c {
			if o >= 0 && set(o) {
				m[at] = true
			}
			at++
		}
	}
	return m
}
