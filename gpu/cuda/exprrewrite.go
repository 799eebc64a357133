package cuda

import "github.com/rigel-db/rigel/gpu"

// rewritePipeline is a copy of p whose filter and projections have the
// nodes replace returns a replacement for (true) replaced, after their
// arguments were: replace gets the original node (to look it up) and its
// copy with the rewritten arguments (to build on). Nodes
// without a change below them are kept, shared nodes stay shared, and p's
// own expressions are never modified (the caller's plan holds them).
func rewritePipeline(p *gpu.Pipeline, replace func(orig, e *gpu.Expr) (*gpu.Expr, bool)) *gpu.Pipeline {
	memo := map[*gpu.Expr]*gpu.Expr{}
	var rewrite func(e *gpu.Expr) *gpu.Expr
	rewrite = func(e *gpu.Expr) *gpu.Expr {
		if e == nil {
			return nil
		}
		if r, ok := memo[e]; ok {
			return r
		}
		r := e
		var args []*gpu.Expr
		for i, a := range e.Args {
			if na := rewrite(a); na != a || args != nil {
				if args == nil {
					args = append([]*gpu.Expr(nil), e.Args[:i]...)
				}
				args = append(args, na)
			}
		}
		if args != nil {
			c := *e
			c.Args = args
			r = &c
		}
		if x, ok := replace(e, r); ok {
			r = x
		}
		memo[e] = r
		return r
	}
	c := *p
	c.Filter = rewrite(p.Filter)
	c.Project = make([]*gpu.Expr, len(p.Project))
	for i, e := range p.Project {
		c.Project[i] = rewrite(e)
	}
	return &c
}
