package duckdbbridge

import (
	"fmt"
	"slices"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
)

// cteDef is a converted CTE definition.
type cteDef struct {
	rel   *pb.Rel
	types []colType
}

// distinct: DuckDB's DISTINCT over all of its input's columns is an
// AggregateRel grouping on every column, without measures.
func (p *producer) distinct(n *duckNode) (*pb.Rel, []colType, error) {
	if n.DistinctType == "DISTINCT_ON" {
		return p.distinctOn(n) // producer_distinct.go
	}
	if n.DistinctType != "DISTINCT" {
		return nil, nil, unsupported("LOGICAL_DISTINCT (%s)", n.DistinctType)
	}
	if len(n.OrderBy) > 0 && string(n.OrderBy) != "null" {
		return nil, nil, unsupported("LOGICAL_DISTINCT with ORDER BY")
	}
	input, in, err := p.onlyChild(n)
	if err != nil {
		return nil, nil, err
	}
	// The operator outputs all its input columns; its targets must be
	// exactly those for a plain grouping to mean the same.
	if len(n.DistinctTargets) != len(in) {
		return nil, nil, unsupported("LOGICAL_DISTINCT on %d of %d columns", len(n.DistinctTargets), len(in))
	}
	for i, t := range n.DistinctTargets {
		if t == nil || t.ExpressionClass != "BOUND_REF" || t.Index == nil || *t.Index != uint64(i) {
			return nil, nil, unsupported("LOGICAL_DISTINCT on expressions other than its input columns")
		}
	}
	groups, out, err := p.exprs(n.DistinctTargets, in)
	if err != nil {
		return nil, nil, err
	}
	refs := make([]uint32, len(groups))
	for i := range refs {
		refs[i] = uint32(i)
	}
	return &pb.Rel{RelType: &pb.Rel_Aggregate{Aggregate: &pb.AggregateRel{
		Common: emit(nil, 0), Input: input, GroupingExpressions: groups,
		Groupings: []*pb.AggregateRel_Grouping{{ExpressionReferences: refs}},
	}}}, out, nil
}

// setOps maps a DuckDB set operation and its ALL flag onto SetRel's op.
var setOps = map[string][2]pb.SetRel_SetOp{
	// {without ALL, with ALL}
	"LOGICAL_UNION":     {pb.SetRel_SET_OP_UNION_DISTINCT, pb.SetRel_SET_OP_UNION_ALL},
	"LOGICAL_EXCEPT":    {pb.SetRel_SET_OP_MINUS_PRIMARY, pb.SetRel_SET_OP_MINUS_PRIMARY_ALL},
	"LOGICAL_INTERSECT": {pb.SetRel_SET_OP_INTERSECTION_MULTISET, pb.SetRel_SET_OP_INTERSECTION_MULTISET_ALL},
}

// setOp converts UNION / EXCEPT / INTERSECT (with or without ALL) into a
// SetRel. DuckDB casts both inputs to the same types; a column of the
// result is nullable when it is in any input.
func (p *producer) setOp(n *duckNode) (*pb.Rel, []colType, error) {
	// DuckDB folds a chain of UNIONs into one operator with more children;
	// SetRel takes any number of inputs, and UNION [ALL] of n inputs means
	// the same as the chain. EXCEPT and INTERSECT always have two.
	if len(n.Children) < 2 || (n.Type != "LOGICAL_UNION" && len(n.Children) != 2) {
		return nil, nil, fmt.Errorf("duckdb plan: %s has %d children", n.Type, len(n.Children))
	}
	ops := setOps[n.Type]
	op := ops[0]
	if n.SetopAll {
		op = ops[1]
	}
	var rels []*pb.Rel
	var types [][]colType
	var out []colType
	for i, c := range n.Children {
		r, t, err := p.rel(c)
		if err != nil {
			return nil, nil, err
		}
		rels, types = append(rels, r), append(types, t)
		if i == 0 {
			out = append([]colType{}, t...)
		} else {
			if len(t) != len(out) {
				return nil, nil, fmt.Errorf("duckdb plan: %s inputs have %d and %d columns", n.Type, len(out), len(t))
			}
			for j := range t {
				if !sameType(t[j].duck, out[j].duck) {
					return nil, nil, fmt.Errorf("duckdb plan: %s column %d is %s in one input and %s in the other", n.Type, j, out[j].duck, t[j].duck)
				}
				out[j].nullable = out[j].nullable || t[j].nullable
			}
		}
	}
	// Substrait requires the inputs' types to be equal, nullability
	// included: an input with a required column where another input's is
	// nullable gets that column cast to nullable (the values do not change).
	set := &pb.SetRel{Common: emit(nil, 0), Op: op}
	for i, r := range rels {
		var casts []*pb.Expression
		for j, c := range types[i] {
			e := fieldRef(j)
			if c.nullable != out[j].nullable {
				var err error
				if e, _, err = p.castTo(e, out[j], false); err != nil {
					return nil, nil, err
				}
			}
			casts = append(casts, e)
		}
		if !slices.Equal(colNullability(types[i]), colNullability(out)) {
			mapping := make([]int32, len(casts))
			for j := range mapping {
				mapping[j] = int32(len(types[i]) + j)
			}
			r = &pb.Rel{RelType: &pb.Rel_Project{Project: &pb.ProjectRel{
				Common: emit(mapping, 2*len(casts)), Input: r, Expressions: casts,
			}}}
		}
		set.Inputs = append(set.Inputs, r)
	}
	if n.ColumnCount != 0 && n.ColumnCount != uint64(len(out)) {
		return nil, nil, fmt.Errorf("duckdb plan: %s declares %d columns, its inputs have %d", n.Type, n.ColumnCount, len(out))
	}
	return &pb.Rel{RelType: &pb.Rel_Set{Set: set}}, out, nil
}

// materializedCTE inlines a CTE: its definition (first child) is converted
// once, and each LOGICAL_CTE_REF in the query (second child) becomes a copy
// of it. Substrait has no shared subplan that the plans rigel reads use,
// so a CTE referenced twice is computed twice, as a view would be.
func (p *producer) materializedCTE(n *duckNode) (*pb.Rel, []colType, error) {
	if len(n.Children) != 2 {
		return nil, nil, fmt.Errorf("duckdb plan: LOGICAL_MATERIALIZED_CTE has %d children, want 2", len(n.Children))
	}
	def, types, err := p.rel(n.Children[0])
	if err != nil {
		return nil, nil, err
	}
	prev, shadowed := p.ctes[n.TableIndex]
	p.ctes[n.TableIndex] = cteDef{def, types}
	defer func() {
		if shadowed {
			p.ctes[n.TableIndex] = prev
		} else {
			delete(p.ctes, n.TableIndex)
		}
	}()
	return p.rel(n.Children[1])
}

func (p *producer) cteRef(n *duckNode) (*pb.Rel, []colType, error) {
	if n.CTEIndex == nil {
		return nil, nil, fmt.Errorf("duckdb plan: LOGICAL_CTE_REF without a cte_index")
	}
	d, ok := p.ctes[*n.CTEIndex]
	if !ok {
		// A recursive CTE's reference to itself, or a CTE defined elsewhere.
		return nil, nil, unsupported("LOGICAL_CTE_REF to CTE %d outside its definition's scope", *n.CTEIndex)
	}
	if err := checkTypes("LOGICAL_CTE_REF", n.ChunkTypes, d.types); err != nil {
		return nil, nil, err
	}
	return proto.Clone(d.rel).(*pb.Rel), append([]colType{}, d.types...), nil
}

func colNullability(ts []colType) []bool {
	out := make([]bool, len(ts))
	for i, t := range ts {
		out[i] = t.nullable
	}
	return out
}

// dummyScan is DuckDB's source for a SELECT without FROM: one row of no
// columns, a VirtualTable with one empty row.
func (p *producer) dummyScan(n *duckNode) (*pb.Rel, []colType, error) {
	return &pb.Rel{RelType: &pb.Rel_Read{Read: &pb.ReadRel{
		Common:     emit(nil, 0),
		BaseSchema: &pb.NamedStruct{Struct: &pb.Type_Struct{Nullability: pb.Type_NULLABILITY_REQUIRED}},
		ReadType: &pb.ReadRel_VirtualTable_{VirtualTable: &pb.ReadRel_VirtualTable{
			Expressions: []*pb.Expression_Nested_Struct{{}},
		}},
	}}}, []colType{}, nil
}
