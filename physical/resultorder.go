package physical

import "github.com/rigel-db/rigel/gpu"

// ResultOrder is the order a plan promises its result rows in: the sort
// keys over the root's output columns, and whether a LIMIT may have cut
// rows that tie with the last one kept. Rows equal in every key may come
// in any order (SQL leaves it open), and under a limit any of the tied rows
// may be the ones kept; a checker comparing two engines' answers needs to
// know both (internal/arrowfmt's CompareOrdered). ok is false when the
// order cannot be followed to the root's columns (a key projected away, a
// node above the sort that is not a pure reordering of columns).
func ResultOrder(root Node) (keys []gpu.SortKey, limited, ok bool) {
	switch n := root.(type) {
	case *Sort:
		return n.Keys, n.Limit > 0, true
	case *Slice:
		keys, _, ok := ResultOrder(n.Input)
		return keys, true, ok
	case *Pipeline:
		p := n.Pipe
		if p.Sink != gpu.SinkMaterialize || p.Filter != nil {
			return nil, false, false
		}
		keys, limited, ok := ResultOrder(n.Input)
		if !ok {
			return nil, false, false
		}
		out := make([]gpu.SortKey, 0, len(keys))
		for _, k := range keys {
			at := -1
			for j, e := range p.Project {
				if e.Op == gpu.OpCol && e.Col == k.Col {
					at = j
					break
				}
			}
			if at < 0 {
				return nil, false, false
			}
			k.Col = at
			out = append(out, k)
		}
		return out, limited, true
	}
	return nil, false, false
}
