package physical

import (
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// The order a plan promises, followed through a LIMIT and through
// projections that reorder columns; a key projected away, a filter above
// the sort or no sort at all leave it unknown.
func TestResultOrder(t *testing.T) {
	i64 := gpu.Type{Kind: gpu.Int64}
	scan := &Values{Types: []gpu.Type{i64, i64, i64}}
	sorted := &Sort{Input: scan, Keys: []gpu.SortKey{{Col: 2, Descending: true}, {Col: 0}}}
	project := func(in Node, filter *gpu.Expr, cols ...int) Node {
		p := &gpu.Pipeline{Inputs: in.OutputTypes(), Filter: filter, Sink: gpu.SinkMaterialize}
		for _, c := range cols {
			p.Project = append(p.Project, gpu.Col(c, i64))
		}
		return &Pipeline{Input: in, Pipe: p}
	}
	for _, c := range []struct {
		name    string
		root    Node
		want    []gpu.SortKey
		limited bool
		ok      bool
	}{
		{"sort", sorted, sorted.Keys, false, true},
		{"sort with a limit", &Sort{Input: scan, Keys: sorted.Keys, Limit: 10}, sorted.Keys, true, true},
		{"slice of a sort", &Slice{Input: sorted, Count: 5}, sorted.Keys, true, true},
		{"reordered", project(sorted, nil, 2, 1, 0), []gpu.SortKey{{Col: 0, Descending: true}, {Col: 2}}, false, true},
		{"a key projected away", project(sorted, nil, 2, 1), nil, false, false},
		{"a filter above", project(sorted, gpu.Const(gpu.Type{Kind: gpu.Bool}, gpu.Value{I64: 1}), 0, 1, 2), nil, false, false},
		{"no sort", project(scan, nil, 0, 1), nil, false, false},
	} {
		keys, limited, ok := ResultOrder(c.root)
		if ok != c.ok || limited != c.limited || len(keys) != len(c.want) {
			t.Errorf("%s: %v %v %v, want %v %v %v", c.name, keys, limited, ok, c.want, c.limited, c.ok)
			continue
		}
		for i := range keys {
			if keys[i] != c.want[i] {
				t.Errorf("%s: key %d %v, want %v", c.name, i, keys[i], c.want[i])
			}
		}
	}
}
