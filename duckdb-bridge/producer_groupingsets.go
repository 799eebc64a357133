package duckdbbridge

import (
	"encoding/json"
	"fmt"
	"slices"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
)

// groupingSets converts an aggregate with GROUPING SETS / ROLLUP / CUBE (or
// GROUPING() calls) into a UNION ALL of one plain aggregate per grouping
// set. Each branch aggregates the (copied) input on its set's keys, then a
// ProjectRel puts every group column back in DuckDB's order (NULL for the
// keys outside the set), the measures, and the GROUPING() values, which are
// constants per set.
//
// Why not one AggregateRel with several groupings: Substrait 0.85 defines
// its output as the grouping expressions, the measures and an i32 grouping
// set index, but substrait-go v8.1.1 (rigel's consumer) computes it as the
// keys of each grouping concatenated, without the index: the two disagree
// on the column count for every ROLLUP, so a consumer could not be trusted
// to read such a plan. The union means the same to every consumer, at the
// cost of reading the input once per set.
func (p *producer) groupingSets(n *duckNode) (*pb.Rel, []colType, error) {
	input, in, err := p.onlyChild(n)
	if err != nil {
		return nil, nil, err
	}
	sets := n.GroupingSets
	if len(sets) == 0 { // GROUPING() over a plain GROUP BY: one set of all keys
		all := make([]uint64, len(n.Groups))
		for i := range all {
			all[i] = uint64(i)
		}
		sets = [][]uint64{all}
	}
	groups, groupTypes, err := p.exprs(n.Groups, in)
	if err != nil {
		return nil, nil, err
	}
	var measures []*pb.AggregateRel_Measure
	var measureTypes []colType
	for _, e := range n.Expressions {
		m, mt, err := p.measure(e, in)
		if err != nil {
			return nil, nil, err
		}
		filter, err := p.measureFilter(e, in)
		if err != nil {
			return nil, nil, err
		}
		measures = append(measures, &pb.AggregateRel_Measure{Measure: m, Filter: filter})
		measureTypes = append(measureTypes, mt)
	}
	// grouping() calls: which group each argument is.
	var gfuncs [][]uint64
	for i, raw := range n.GroupingFunctions {
		var refs []uint64
		if err := json.Unmarshal(raw, &refs); err != nil {
			return nil, nil, fmt.Errorf("duckdb plan: grouping function %d: %v", i, err)
		}
		if len(refs) == 0 || len(refs) > 63 {
			return nil, nil, unsupported("GROUPING() of %d columns", len(refs))
		}
		for _, r := range refs {
			if r >= uint64(len(groups)) {
				return nil, nil, fmt.Errorf("duckdb plan: grouping function refers to group %d of %d", r, len(groups))
			}
		}
		gfuncs = append(gfuncs, refs)
	}

	// Output types: a key is nullable unless it is in every set and not
	// nullable itself; GROUPING() values are BIGINT, never NULL.
	out := make([]colType, 0, len(groups)+len(measures)+len(gfuncs))
	for i, t := range groupTypes {
		for _, s := range sets {
			if !slices.Contains(s, uint64(i)) {
				t.nullable = true
			}
		}
		out = append(out, t)
	}
	out = append(out, measureTypes...)
	for range gfuncs {
		out = append(out, colType{duck: duckType{ID: "BIGINT"}})
	}

	var branches []*pb.Rel
	for _, set := range sets {
		b, err := p.groupingSetBranch(input, set, groups, groupTypes, measures, gfuncs, out)
		if err != nil {
			return nil, nil, err
		}
		branches = append(branches, b)
	}
	if len(branches) == 1 {
		return branches[0], out, nil
	}
	return &pb.Rel{RelType: &pb.Rel_Set{Set: &pb.SetRel{
		Common: emit(nil, 0), Inputs: branches, Op: pb.SetRel_SET_OP_UNION_ALL,
	}}}, out, nil
}

// groupingSetBranch is one grouping set's aggregate and the projection
// that gives it the output columns out.
func (p *producer) groupingSetBranch(input *pb.Rel, set []uint64, groups []*pb.Expression, groupTypes []colType,
	measures []*pb.AggregateRel_Measure, gfuncs [][]uint64, out []colType) (*pb.Rel, error) {
	agg := &pb.AggregateRel{Common: emit(nil, 0), Input: proto.Clone(input).(*pb.Rel)}
	pos := map[uint64]int{} // group index -> column of the branch aggregate
	var refs []uint32
	for _, g := range set {
		if g >= uint64(len(groups)) {
			return nil, fmt.Errorf("duckdb plan: grouping set refers to group %d of %d", g, len(groups))
		}
		if _, dup := pos[g]; dup {
			continue
		}
		pos[g] = len(agg.GroupingExpressions)
		refs = append(refs, uint32(len(agg.GroupingExpressions)))
		agg.GroupingExpressions = append(agg.GroupingExpressions, proto.Clone(groups[g]).(*pb.Expression))
	}
	if len(refs) > 0 {
		agg.Groupings = []*pb.AggregateRel_Grouping{{ExpressionReferences: refs}}
	}
	for _, m := range measures {
		agg.Measures = append(agg.Measures, proto.Clone(m).(*pb.AggregateRel_Measure))
	}
	if len(refs) == 0 && len(measures) == 0 {
		// The empty set without aggregates (the grand total row of a ROLLUP
		// with no aggregates): one row. An aggregate with neither keys nor
		// measures is invalid (the validator says so), so the branch counts
		// rows in a measure that the projection leaves out.
		m, err := p.countStar()
		if err != nil {
			return nil, err
		}
		agg.Measures = append(agg.Measures, m)
	}
	width := len(pos) + len(agg.Measures)

	var exprs []*pb.Expression
	for i := range groups {
		c, in := pos[uint64(i)]
		if !in {
			t, err := substraitType(colType{duck: groupTypes[i].duck, nullable: true})
			if err != nil {
				return nil, err
			}
			exprs = append(exprs, &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
				LiteralType: &pb.Expression_Literal_Null{Null: t}, Nullable: true,
			}}})
			continue
		}
		e := fieldRef(c)
		if groupTypes[i].nullable != out[i].nullable {
			var err error
			if e, _, err = p.castTo(e, out[i], false); err != nil {
				return nil, err
			}
		}
		exprs = append(exprs, e)
	}
	for j := range measures {
		exprs = append(exprs, fieldRef(len(pos)+j))
	}
	for _, refs := range gfuncs {
		// grouping(a, b, ...): one bit per argument, the first the most
		// significant, set when the argument is not a key of this set.
		var v int64
		for _, r := range refs {
			v <<= 1
			if _, in := pos[r]; !in {
				v |= 1
			}
		}
		exprs = append(exprs, &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
			LiteralType: &pb.Expression_Literal_I64{I64: v},
		}}})
	}
	mapping := make([]int32, len(exprs))
	for i := range mapping {
		mapping[i] = int32(width + i)
	}
	return &pb.Rel{RelType: &pb.Rel_Project{Project: &pb.ProjectRel{
		Common:      emit(mapping, width+len(exprs)),
		Input:       &pb.Rel{RelType: &pb.Rel_Aggregate{Aggregate: agg}},
		Expressions: exprs,
	}}}, nil
}

// countStar is a count(*) measure.
func (p *producer) countStar() (*pb.AggregateRel_Measure, error) {
	anchor, opts, err := p.reg.aggregate(funcRef{urnAggGeneric, "count:", nil})
	if err != nil {
		return nil, err
	}
	t, err := substraitType(colType{duck: duckType{ID: "BIGINT"}})
	if err != nil {
		return nil, err
	}
	return &pb.AggregateRel_Measure{Measure: &pb.AggregateFunction{
		FunctionReference: anchor, OutputType: t, Options: opts,
		Phase:      pb.AggregationPhase_AGGREGATION_PHASE_INITIAL_TO_RESULT,
		Invocation: pb.AggregateFunction_AGGREGATION_INVOCATION_ALL,
	}}, nil
}
