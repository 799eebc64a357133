package translate

import (
	"fmt"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/physical"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// set translates a SetRel. UNION ALL appends; the distinct operations are a
// grouping on every column (DISTINCT) followed, for EXCEPT and INTERSECT,
// by anti or semi joins on every column with nulls equal, which is how SQL
// set operations compare rows. The operations that count duplicates
// (EXCEPT ALL, INTERSECT ALL) are refused.
func (t *translator) set(r *plan.SetRel) (*stream, error) {
	rels := r.Inputs()
	if len(rels) < 2 {
		return nil, fmt.Errorf("SetRel with %d inputs (at least 2 needed)", len(rels))
	}
	outTypes := r.RecordType().Types()
	inputs := make([]physical.Node, len(rels))
	for i, rel := range rels {
		s, err := t.rel(rel)
		if err != nil {
			return nil, err
		}
		if s, err = t.unsliced(s); err != nil {
			return nil, err
		}
		if len(s.exprs) != len(outTypes) {
			return nil, fmt.Errorf("SetRel input %d has %d columns, the set %d", i, len(s.exprs), len(outTypes))
		}
		for c, e := range s.exprs {
			want, err := gpuType(outTypes[c])
			if err != nil {
				return nil, fmt.Errorf("SetRel column %d: %w", c, err)
			}
			if s.exprs[c], err = cast(e, want.WithNullable(e.Type.Nullable)); err != nil {
				return nil, fmt.Errorf("SetRel input %d column %d: %w", i, c, err)
			}
		}
		if inputs[i], err = t.materialize(s); err != nil {
			return nil, err
		}
	}
	switch r.Op() {
	case plan.SetOpUnionAll:
		return identity(&physical.Union{Inputs: inputs}), nil
	case plan.SetOpUnionDistinct:
		return distinct(&physical.Union{Inputs: inputs}), nil
	case plan.SetOpMinusPrimary:
		return rowJoins(distinct(inputs[0]), inputs[1:], physical.JoinAnti), nil
	case plan.SetOpIntersectionMultiset:
		return rowJoins(distinct(inputs[0]), inputs[1:], physical.JoinSemi), nil
	case plan.SetOpIntersectionPrimary:
		return rowJoins(distinct(inputs[0]), []physical.Node{&physical.Union{Inputs: inputs[1:]}}, physical.JoinSemi), nil
	}
	return nil, unsupported(fmt.Sprintf("SetRel operation %s", r.Op()))
}

// distinct groups a node's rows on every column.
func distinct(n physical.Node) *stream {
	ts := n.OutputTypes()
	pipe := &gpu.Pipeline{Inputs: ts, Sink: gpu.SinkAggregate}
	for i, tp := range ts {
		pipe.Project = append(pipe.Project, gpu.Col(i, tp))
		pipe.Keys = append(pipe.Keys, i)
	}
	return identity(&physical.Pipeline{Input: n, Pipe: pipe})
}

// rowJoins keeps the rows of s that match (semi) or match none (anti) of
// each of others, comparing whole rows with nulls equal.
func rowJoins(s *stream, others []physical.Node, jt physical.JoinType) *stream {
	n := s.src
	for _, o := range others {
		n = joinOnLeading(n, o, len(n.OutputTypes()), jt)
	}
	return identity(n)
}

// joinOnLeading joins left and right on their first k columns, nulls equal
// (the way SQL matches rows in set operations and grouping keys).
func joinOnLeading(left, right physical.Node, k int, jt physical.JoinType) *physical.Join {
	j := &physical.Join{Left: left, Right: right, Type: jt}
	for c := range k {
		j.LeftKeys = append(j.LeftKeys, c)
		j.RightKeys = append(j.RightKeys, c)
		j.NullsEqual = append(j.NullsEqual, true)
	}
	return j
}
