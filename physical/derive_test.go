package physical

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/gpu"
)

// deriveSource reads derived columns (the derivation needs a source that
// does); nothing here loads them.
type deriveSource struct{ memSource }

func (*deriveSource) ReadDerivedDictionary(ctx context.Context, table, column string, f *gpu.StrFunc) (arrow.Array, error) {
	return nil, nil
}

// A string column read only through one substring (a filter and a
// projection, also above a join) is loaded as that substring and its uses
// read the column; one read as itself anywhere (the result, a sort key, a
// join key, an aggregate) or through two substrings is not.
func TestDeriveSubstrings(t *testing.T) {
	dict := gpu.Type{Kind: gpu.Dict}
	sub := func(from, length int64, col int) *gpu.Expr {
		return &gpu.Expr{Op: gpu.OpStrMap, Type: dict, Str: &gpu.StrFunc{Kind: gpu.StrSubstring, From: from, Length: length, HasLength: true}, Args: []*gpu.Expr{gpu.Col(col, dict)}}
	}
	eq := func(e *gpu.Expr) *gpu.Expr {
		return gpu.Call(gpu.OpEq, gpu.Type{Kind: gpu.Bool}, e, gpu.Const(dict, gpu.Value{I64: 0}))
	}
	scan := func() *Scan {
		return &Scan{Table: "t", Columns: []string{"k", "s"}, Types: []gpu.Type{i64, dict}}
	}
	pipe := func(in Node, filter *gpu.Expr, project ...*gpu.Expr) *Pipeline {
		return &Pipeline{Input: in, Pipe: &gpu.Pipeline{Inputs: in.OutputTypes(), Filter: filter, Project: project, Sink: gpu.SinkMaterialize}}
	}
	cases := []struct {
		name    string
		plan    func(s *Scan) Node
		derived bool
	}{
		{"filter and projection", func(s *Scan) Node {
			return pipe(s, eq(sub(1, 2, 1)), gpu.Col(0, i64), sub(1, 2, 1))
		}, true},
		{"carried through a join, read above it", func(s *Scan) Node {
			j := &Join{Left: pipe(s, nil, gpu.Col(0, i64), gpu.Col(1, dict)), Right: &Scan{Table: "u", Columns: []string{"k"}, Types: []gpu.Type{i64}},
				Type: JoinInner, LeftKeys: []int{0}, RightKeys: []int{0}}
			return pipe(j, eq(sub(1, 2, 1)), gpu.Col(2, i64))
		}, true},
		{"in the result", func(s *Scan) Node {
			return pipe(s, eq(sub(1, 2, 1)), gpu.Col(1, dict))
		}, false},
		{"two substrings", func(s *Scan) Node {
			return pipe(s, eq(sub(1, 2, 1)), sub(2, 3, 1))
		}, false},
		{"a sort key", func(s *Scan) Node {
			return pipe(&Sort{Input: s, Keys: []gpu.SortKey{{Col: 1}}}, nil, sub(1, 2, 1))
		}, false},
		{"a join key", func(s *Scan) Node {
			j := &Join{Left: s, Right: &Scan{Table: "u", Columns: []string{"s"}, Types: []gpu.Type{dict}},
				Type: JoinInner, LeftKeys: []int{1}, RightKeys: []int{0}}
			return pipe(j, nil, sub(1, 2, 1))
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := scan()
			root := c.plan(s)
			x := &Executor{Source: &deriveSource{}}
			notes := x.deriveSubstrings(root)
			if got := s.derived(1) != nil; got != c.derived {
				t.Fatalf("derived %v, want %v (notes %v)", got, c.derived, notes)
			}
			if !c.derived {
				return
			}
			if f := s.derived(1); f.From != 1 || f.Length != 2 || len(notes[s]) != 1 {
				t.Fatalf("derived %s, notes %v", f.SQL("s"), notes)
			}
			// No substring is left in the plan: its uses read the column.
			var left func(e *gpu.Expr) bool
			left = func(e *gpu.Expr) bool {
				if e == nil {
					return false
				}
				if e.Op == gpu.OpStrMap {
					return true
				}
				for _, a := range e.Args {
					if left(a) {
						return true
					}
				}
				return false
			}
			p := root.(*Pipeline).Pipe
			for _, e := range append([]*gpu.Expr{p.Filter}, p.Project...) {
				if left(e) {
					t.Fatalf("a substring is left in %v", e)
				}
			}
		})
	}
}
