package translate

import (
	"fmt"
	"math/bits"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/physical"
	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// filterOverCross translates a FilterRel over a tree of CrossRels, the way
// Isthmus (Calcite) writes the joins of a FROM list: the condition's
// conjuncts become inner joins, exactly as join() treats a JoinRel's
// condition (an equality between an expression of the inputs joined so far
// and one of the next input is a hash key), a conjunct that reads one input
// filters that input before any join, and every other conjunct filters the
// rows as soon as the inputs it reads are joined. The inputs are joined
// left-deep, each time taking the first input that some equality connects
// to those already joined (a true cross product only where none does), and
// the result's columns are put back in the cross product's order.
func (t *translator) filterOverCross(f *plan.FilterRel, c *plan.CrossRel) (*stream, error) {
	leaves := crossLeaves(c, nil)
	if len(leaves) > 64 {
		return nil, unsupported(fmt.Sprintf("a cross product of %d inputs", len(leaves)))
	}
	ins := make([]*stream, len(leaves))
	offset := make([]int, len(leaves))
	// all: placeholder columns of the whole cross product, in order;
	// leafOf[g]: which input global column g comes from.
	var all []*gpu.Expr
	var leafOf []int
	for k, l := range leaves {
		s, err := t.rel(l)
		if err != nil {
			return nil, err
		}
		if s, err = t.unsliced(s); err != nil {
			return nil, err
		}
		// A copy: the filters below are added to it, and t.rel may hand
		// the same stream to another use (the same relation twice).
		c := *s
		ins[k], offset[k] = &c, len(all)
		for _, e := range s.exprs {
			all = append(all, gpu.Col(len(all), e.Type))
			leafOf = append(leafOf, k)
		}
	}
	mask := func(e *gpu.Expr) uint64 {
		used := map[int]bool{}
		gpu.MarkColumns(e, used)
		var m uint64
		for g := range used {
			m |= 1 << leafOf[g]
		}
		return m
	}

	type term struct {
		cond       *gpu.Expr // the conjunct, over all
		reads      uint64    // the inputs it reads
		a, b       *gpu.Expr // for an equality between inputs: its sides
		ma, mb     uint64
		nullsEqual bool
		done       bool
	}
	var terms []*term
	for _, cj := range withCommonFactors(conjuncts(f.Condition())) {
		g, err := exprConv{all}.convert(cj)
		if err != nil {
			return nil, fmt.Errorf("FilterRel condition: %w", err)
		}
		tm := &term{cond: g, reads: mask(g)}
		// An equality whose sides do not convert alone (a string column
		// against a literal) is no key: the conjunct converted whole above.
		if a, b, ne, isEq, err := equiArgs(cj, all); err == nil && isEq {
			if ma, mb := mask(a), mask(b); ma != 0 && mb != 0 && ma&mb == 0 {
				tm.a, tm.b, tm.ma, tm.mb, tm.nullsEqual = a, b, ma, mb, ne
			}
		}
		// A conjunct of one input filters that input before the joins.
		if bits.OnesCount64(tm.reads) == 1 {
			k := bits.TrailingZeros64(tm.reads)
			ins[k].filter = and(ins[k].filter, substitute(g, ins[k].exprs, offset[k]))
			tm.done = true
		}
		terms = append(terms, tm)
	}

	// pos[g]: where global column g is among cur's columns (once joined).
	pos := make([]int, len(all))
	cur, joined := ins[0], uint64(1)
	for g := range ins[0].exprs {
		pos[g] = g
	}
	overCur := func(e *gpu.Expr) *gpu.Expr {
		return gpu.ReplaceColumns(e, func(x *gpu.Expr) *gpu.Expr { return cur.exprs[pos[x.Col]] })
	}
	// connects reports whether term tm equates the joined inputs with k.
	connects := func(tm *term, k int) (curSide, kSide *gpu.Expr, ok bool) {
		if tm.done || tm.a == nil {
			return nil, nil, false
		}
		switch kb := uint64(1) << k; {
		case tm.ma&^joined == 0 && tm.mb == kb:
			return tm.a, tm.b, true
		case tm.mb&^joined == 0 && tm.ma == kb:
			return tm.b, tm.a, true
		}
		return nil, nil, false
	}
	for joined != 1<<len(leaves)-1 {
		next := -1
		for k := range leaves {
			if joined&(1<<k) != 0 {
				continue
			}
			if next < 0 {
				next = k // a cross product, if no input is connected
			}
			connected := false
			for _, tm := range terms {
				if _, _, ok := connects(tm, k); ok {
					connected = true
					break
				}
			}
			if connected {
				next = k
				break
			}
		}
		var lkeys, rkeys []*gpu.Expr
		var nullsEqual []bool
		for _, tm := range terms {
			cs, ks, ok := connects(tm, next)
			if !ok {
				continue
			}
			lkeys = append(lkeys, overCur(cs))
			rkeys = append(rkeys, substitute(ks, ins[next].exprs, offset[next]))
			nullsEqual = append(nullsEqual, tm.nullsEqual)
			tm.done = true
		}
		// joinStreams may add the key expressions to a side's columns: the
		// input's own columns are its first nr.
		nl, nr := len(cur.exprs), len(ins[next].exprs)
		out, err := t.joinStreams(cur, ins[next], physical.JoinInner, lkeys, rkeys, nullsEqual, nil)
		if err != nil {
			return nil, err
		}
		for i := range nr {
			pos[offset[next]+i] = nl + i
		}
		cur, joined = out, joined|1<<next
		for _, tm := range terms {
			if !tm.done && tm.reads&^joined == 0 {
				cur.filter = and(cur.filter, overCur(tm.cond))
				tm.done = true
			}
		}
	}
	exprs := make([]*gpu.Expr, len(all))
	for g := range all {
		exprs[g] = cur.exprs[pos[g]]
	}
	cur.exprs = exprs
	return cur, nil
}

// crossLeaves lists the inputs of a tree of CrossRels, left to right: a
// CrossRel with an emit is an input of its own (its columns are not simply
// its inputs' columns).
func crossLeaves(r plan.Rel, out []plan.Rel) []plan.Rel {
	if c, ok := r.(*plan.CrossRel); ok && outputMapping(c) == nil {
		out = crossLeaves(c.Left(), out)
		return crossLeaves(c.Right(), out)
	}
	return append(out, r)
}

// withCommonFactors adds, for each OR among the conjuncts, the conjuncts
// that every one of its branches has: (k AND x) OR (k AND y) implies k, so
// k may be added beside the OR (which stays). TPC-H Q19 written as a
// Filter over a Cross has its only join key inside each branch of an OR:
// without this it would be a cross product.
func withCommonFactors(cs []expr.Expression) []expr.Expression {
	out := append([]expr.Expression(nil), cs...)
	for _, c := range cs {
		branches := disjuncts(c)
		if len(branches) < 2 {
			continue
		}
	common:
		for _, k := range conjuncts(branches[0]) {
			for _, b := range branches[1:] {
				found := false
				for _, x := range conjuncts(b) {
					if x.Equals(k) {
						found = true
						break
					}
				}
				if !found {
					continue common
				}
			}
			out = append(out, k)
		}
	}
	return out
}

// disjuncts splits a condition at its top-level ORs.
func disjuncts(e expr.Expression) []expr.Expression {
	if f, ok := e.(*expr.ScalarFunction); ok {
		if fn, err := substrait.Resolve(f.ID()); err == nil && fn == substrait.FnOr {
			var out []expr.Expression
			for i := range f.NArgs() {
				a, ok := f.Arg(i).(expr.Expression)
				if !ok {
					return []expr.Expression{e}
				}
				out = append(out, disjuncts(a)...)
			}
			return out
		}
	}
	return []expr.Expression{e}
}
