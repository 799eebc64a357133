package physical

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/gpu"
)

// Derived scan columns. A string column that a plan reads only through one
// substring with constant bounds (TPC-H Q22: substring(c_phone, 1, 2), in
// its filter and as its group key) is loaded as that substring, computed
// by the source, instead of as itself: c_phone has a distinct value a row
// (4.5 M at SF30), which the device can only take as a dictionary that
// substring needs (Q22's cold run spent 3.4 s of its 3.5 s building it,
// bench/results/2026-11-28-h200-tpch-sf30-sf10-load-segments-v35.md),
// while its first two characters hold 25. The scan then loads a small
// dictionary, and the uses read the column where they read the substring.
// The source must compute the function exactly as the plan means it:
// DuckDB runs its own substring, the one the plan came from.

// DerivedReader is a TableSource that reads a string function of a column
// (gpu.StrFunc.SQL), computed by the source, as a dictionary column in the
// form DictionaryReader gives.
type DerivedReader interface {
	ReadDerivedDictionary(ctx context.Context, table, column string, f *gpu.StrFunc) (arrow.Array, error)
}

// deriveSubstrings marks, in the Scans of root not decided yet, the string
// columns every use of which is the same substring of them, and rewrites
// those uses to read the column. It runs before the layouts are chosen
// (a derived column is a dictionary of its own) and only with a source
// that reads derived columns.
//
// It returns the notes for EXPLAIN, per Scan: ChooseStringLayouts adds them
// to the Scans' Layouts once it has decided the other columns (a Scan with
// Layouts counts as decided).
func (x *Executor) deriveSubstrings(root Node) map[*Scan][]string {
	if _, ok := x.Source.(DerivedReader); !ok {
		return nil
	}
	f := &strFlow{carried: map[Node][]int{}, why: map[int]string{}}
	d := &derivation{flow: f, fn: map[int]*gpu.StrFunc{}, bad: map[int]bool{}}
	for _, o := range f.carries(root) {
		d.disqualify(o) // the plan's result holds the strings themselves
	}
	d.visit(root)
	chosen := map[int]*gpu.StrFunc{}
	for o, fn := range d.fn {
		if !d.bad[o] {
			chosen[o] = fn
		}
	}
	if len(chosen) == 0 {
		return nil
	}
	notes := map[*Scan][]string{}
	for o, fn := range chosen {
		org := f.origins[o]
		s := org.scan
		if len(s.Derived) < len(s.Columns) {
			s.Derived = append(s.Derived, make([]*gpu.StrFunc, len(s.Columns)-len(s.Derived))...)
		}
		s.Derived[org.col] = fn
		col := s.Columns[org.col]
		notes[s] = append(notes[s], col+": dictionary of "+fn.SQL(col)+", computed by the source (every use reads that substring)")
	}
	d.rewrite(root, chosen, map[Node]bool{})
	return notes
}

// derivation collects, per origin (a Scan's dictionary column, strFlow),
// the one substring every use applies to it, or that some use needs the
// strings themselves (bad).
type derivation struct {
	flow *strFlow
	fn   map[int]*gpu.StrFunc
	bad  map[int]bool
}

func (d *derivation) disqualify(o int) {
	if o >= 0 {
		d.bad[o] = true
	}
}

// isSubstringOf says whether e is a substring with constant bounds of a
// column reference, and returns that reference.
func isSubstringOf(e *gpu.Expr) (*gpu.Expr, bool) {
	if e == nil || e.Op != gpu.OpStrMap || e.Str == nil || e.Str.IsRowFunc() || e.Str.Kind != gpu.StrSubstring || len(e.Args) != 1 {
		return nil, false
	}
	c := e.Args[0]
	return c, c.Op == gpu.OpCol
}

func sameSubstring(a, b *gpu.StrFunc) bool {
	return a.Kind == b.Kind && a.From == b.From && a.Length == b.Length && a.HasLength == b.HasLength
}

// uses records the origins expression e reads (in: the origin of each
// input column): a substring of a column is a use of that substring, any
// other reference a use of the strings. A bare column as a whole
// projection passes the values on (bare), which is no use.
func (d *derivation) uses(e *gpu.Expr, in []int, bare bool) {
	if e == nil {
		return
	}
	if c, ok := isSubstringOf(e); ok {
		if c.Col >= 0 && c.Col < len(in) && in[c.Col] >= 0 {
			o := in[c.Col]
			if prev, seen := d.fn[o]; seen && !sameSubstring(prev, e.Str) {
				d.disqualify(o)
			} else if !seen {
				d.fn[o] = e.Str
			}
		}
		return
	}
	if e.Op == gpu.OpCol {
		if !bare && e.Col >= 0 && e.Col < len(in) {
			d.disqualify(in[e.Col])
		}
		return
	}
	for _, a := range e.Args {
		d.uses(a, in, false)
	}
}

// visit walks every node once, recording how each reads its inputs'
// origins. Operators that order, match or hand the strings on to another
// engine (sort keys, join keys, aggregates, unions, fallbacks) use the
// strings themselves.
func (d *derivation) visit(root Node) {
	disqualify := func(o int, _ string) { d.disqualify(o) }
	d.flow.walk(root, map[Node]bool{}, func(n Node, ins [][]int) {
		if commonReads(n, ins, disqualify, d.uses) {
			return
		}
		switch n := n.(type) {
		case *Sort:
			for _, k := range n.Keys {
				if k.Col >= 0 && k.Col < len(ins[0]) {
					d.disqualify(ins[0][k.Col])
				}
			}
		case *Slice, *Retype:
			// The values pass on.
		default:
			rejectAll(ins, disqualify, "")
		}
	})
}

// rewrite replaces, in every expression that reads a chosen origin, its
// substring by the column itself (which now holds the substring).
func (d *derivation) rewrite(n Node, chosen map[int]*gpu.StrFunc, seen map[Node]bool) {
	if seen[n] {
		return
	}
	seen[n] = true
	f := d.flow
	isChosen := func(o int) bool { _, ok := chosen[o]; return ok }
	switch n := n.(type) {
	case *Pipeline:
		if m := originCols(isChosen, f.carries(n.Input)); len(m) > 0 {
			n.Pipe = rewritePipeExprs(n.Pipe, unwrapSubstrings(m))
		}
	case *Join:
		if m := originCols(isChosen, f.carries(n.Left), f.carries(n.Right)); n.Residual != nil && len(m) > 0 {
			n.Residual = rewriteExpr(n.Residual, unwrapSubstrings(m), map[*gpu.Expr]*gpu.Expr{})
		}
	}
	for _, k := range n.Children() {
		d.rewrite(k, chosen, seen)
	}
}

// unwrapSubstrings replaces each substring of a column in derived by the
// column reference, typed as the substring was.
func unwrapSubstrings(derived map[int]bool) func(*gpu.Expr) (*gpu.Expr, bool) {
	return func(e *gpu.Expr) (*gpu.Expr, bool) {
		c, ok := isSubstringOf(e)
		if !ok || !derived[c.Col] {
			return nil, false
		}
		col := *c
		col.Type = e.Type
		return &col, true
	}
}
