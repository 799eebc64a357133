// Package physical runs physical plans (trees of Nodes) on a gpu.Device:
// scans through a column cache, fused pipelines, sorts; it owns memory
// accounting and the counters that benchmarks report.
package physical

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/rigel-db/rigel/gpu"
)

// Node is an operator of a physical plan. Each produces a set of equally
// long device columns.
type Node interface {
	OutputTypes() []gpu.Type
	Children() []Node
	// Describe is the one-line EXPLAIN text of the node itself.
	Describe() string
}

// Scan reads table columns, from the device column cache when they are there.
type Scan struct {
	Table   string
	Columns []string
	Types   []gpu.Type
	// Layouts says how each string column is laid out and why
	// (strlayout.go), for EXPLAIN; empty when the device has no choice.
	Layouts []string
	// Derived, where set, holds per column a string function whose result
	// the source computes and the scan loads instead of the column
	// (derive.go); nil entries (or a nil slice) load the columns as they are.
	Derived []*gpu.StrFunc
}

// derived is the function column i loads the result of, or nil.
func (s *Scan) derived(i int) *gpu.StrFunc {
	if i < len(s.Derived) {
		return s.Derived[i]
	}
	return nil
}

func (s *Scan) OutputTypes() []gpu.Type { return s.Types }
func (s *Scan) Children() []Node        { return nil }
func (s *Scan) Describe() string {
	cols := append([]string(nil), s.Columns...)
	for i := range cols {
		if f := s.derived(i); f != nil {
			cols[i] = f.SQL(cols[i])
		}
	}
	d := fmt.Sprintf("Scan %s [%s]", s.Table, strings.Join(cols, ", "))
	if len(s.Layouts) > 0 {
		d += " (" + strings.Join(s.Layouts, "; ") + ")"
	}
	return d
}

// Pipeline runs one fused kernel over its input's columns.
type Pipeline struct {
	Input Node
	Pipe  *gpu.Pipeline
}

func (p *Pipeline) OutputTypes() []gpu.Type { return p.Pipe.OutputTypes() }
func (p *Pipeline) Children() []Node        { return []Node{p.Input} }
func (p *Pipeline) Describe() string {
	kind := "Pipeline"
	if p.Pipe.Sink == gpu.SinkAggregate {
		kind = "Pipeline+HashAggregate"
	}
	return kind + " " + p.Pipe.String()
}

// Sort orders its input; Limit > 0 keeps the first Limit rows (top-k).
type Sort struct {
	Input Node
	Keys  []gpu.SortKey
	Limit int
}

func (s *Sort) OutputTypes() []gpu.Type { return s.Input.OutputTypes() }
func (s *Sort) Children() []Node        { return []Node{s.Input} }
func (s *Sort) Describe() string {
	d := "Sort [" + sortKeysText(s.Keys) + "]"
	if s.Limit > 0 {
		d += fmt.Sprintf(" limit %d", s.Limit)
	}
	return d
}

// sortKeysText is keys as EXPLAIN shows them: "#2 desc nulls last, ...".
func sortKeysText(keys []gpu.SortKey) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		dir := "asc"
		if k.Descending {
			dir = "desc"
		}
		nulls := "nulls last"
		if k.NullsFirst {
			nulls = "nulls first"
		}
		out[i] = fmt.Sprintf("#%d %s %s", k.Col, dir, nulls)
	}
	return strings.Join(out, ", ")
}

// Slice keeps Count rows (all when Count < 0) after skipping Offset. At the
// root it runs when the result is handed over, on the Arrow batch, so it
// copies nothing; below it, on the device (slice.go).
type Slice struct {
	Input  Node
	Offset int64
	Count  int64
}

func (s *Slice) OutputTypes() []gpu.Type { return s.Input.OutputTypes() }
func (s *Slice) Children() []Node        { return []Node{s.Input} }
func (s *Slice) Describe() string {
	return fmt.Sprintf("Slice offset %d count %d", s.Offset, s.Count)
}

// Values is a constant table (a VirtualTable, or DuckDB's empty result).
type Values struct {
	Types []gpu.Type
	Rows  [][]gpu.Value
	// Text holds the strings of Dict columns (gpu.Value has no string):
	// Text[i][j] is row i's string in column j when Types[j] is Dict (its
	// Rows value says only whether it is null). Nil when no column is Dict.
	Text [][]string
}

func (v *Values) OutputTypes() []gpu.Type { return v.Types }
func (v *Values) Children() []Node        { return nil }
func (v *Values) Describe() string        { return fmt.Sprintf("Values %d rows", len(v.Rows)) }

// maxErrorText bounds a node's text in an error: a plan's expression can
// run to megabytes (an IN list of 100,000 values is an OR of as many
// comparisons), and errors go to logs and clients.
const maxErrorText = 256

// errorText is n's Describe for an error message, cut after maxErrorText
// bytes (at a character boundary) with the length it had.
func errorText(n Node) string {
	d := n.Describe()
	if len(d) <= maxErrorText {
		return d
	}
	cut := maxErrorText
	for cut > 0 && !utf8.RuneStart(d[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", d[:cut], len(d))
}

// Explain renders the tree, one node a line, each tagged with where it runs.
func Explain(root Node, where string) string {
	return explainWith(root, where, func(Node) string { return "" })
}

// ExplainRun is Explain with what each node did in a run (st, from a run
// under WithAnalysis): its own time and rows, and on the device its
// launches, the pipelines that ran on the precompiled interpreter, the
// fused joins that gave way to the composed join, and the time it waited
// for the compiler. A node the run did not reach (below a fallback, or
// after an error) says so.
func ExplainRun(root Node, where string, st *RunStats) string {
	return explainWith(root, where, func(n Node) string {
		ns := st.Nodes[n]
		switch {
		case ns != nil:
		case isBookkeeping(n):
			return "" // done on the result's Arrow batch, in Run
		default:
			return "   -- not run"
		}
		return "   -- " + ns.String()
	})
}

// isBookkeeping: slicing or retyping an Arrow batch is not compute.
func isBookkeeping(n Node) bool {
	switch n.(type) {
	case *Slice, *Retype:
		return true
	}
	return false
}

func explainWith(root Node, where string, note func(Node) string) string {
	var b strings.Builder
	shown := map[Node]bool{}
	var walk func(n Node, depth int)
	walk = func(n Node, depth int) {
		tag := where
		if isBookkeeping(n) {
			tag = "host"
		} else if _, ok := n.(*Fallback); ok {
			tag = "duckdb" // the split: this subtree runs as SQL on DuckDB
		}
		indent := strings.Repeat("  ", depth)
		if shown[n] && len(n.Children()) > 0 {
			// A subtree two parents share (ShareCommonSubtrees) runs once.
			fmt.Fprintf(&b, "%s%-6s %s   -- the subtree shown above, run once for both\n", indent, "["+tag+"]", n.Describe())
			return
		}
		shown[n] = true
		fmt.Fprintf(&b, "%s%-6s %s%s\n", indent, "["+tag+"]", n.Describe(), note(n))
		for _, c := range n.Children() {
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	return b.String()
}
