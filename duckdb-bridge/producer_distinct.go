package duckdbbridge

import (
	"encoding/json"
	"fmt"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// distinctOn converts LOGICAL_DISTINCT of type DISTINCT_ON (SELECT DISTINCT
// ON (targets) ... [ORDER BY ...]): per group of equal targets (NULLs
// equal, as in GROUP BY), the first row in the order of the distinct's
// order_by, which DuckDB copies from the query's ORDER BY.
//
// Substrait has no DISTINCT ON, so it becomes what it means:
//
//	ProjectRel: input columns + row_number() OVER (PARTITION BY targets
//	            ORDER BY order_by)
//	FilterRel:  that row number = 1, emitting the input columns only
//
// DuckDB keeps exactly one row per group, the first by its order_by (an
// aggregate of first(... ORDER BY ...)): row_number = 1 keeps the same
// row, one per partition. When the order_by does not decide between rows
// (no ORDER BY, or ties), DuckDB keeps any of them, and so may the plan:
// both answers are right and a test must not depend on the choice.
func (p *producer) distinctOn(n *duckNode) (*pb.Rel, []colType, error) {
	if len(n.DistinctTargets) == 0 {
		return nil, nil, fmt.Errorf("duckdb plan: LOGICAL_DISTINCT (DISTINCT_ON) without targets")
	}
	var orderBy struct {
		Orders []duckOrder `json:"orders"`
	}
	if len(n.OrderBy) > 0 && string(n.OrderBy) != "null" {
		if err := json.Unmarshal(n.OrderBy, &orderBy); err != nil {
			return nil, nil, fmt.Errorf("duckdb plan: LOGICAL_DISTINCT order_by: %w", err)
		}
	}
	input, in, err := p.onlyChild(n)
	if err != nil {
		return nil, nil, err
	}
	// The row number is a window expression like those of LOGICAL_WINDOW,
	// so that it is converted (and checked) by the same code.
	rn := &duckExpr{
		ExpressionClass: "BOUND_WINDOW",
		Type:            "WINDOW_ROW_NUMBER",
		ReturnType:      &duckType{ID: "BIGINT"},
		Partitions:      n.DistinctTargets,
		Orders:          orderBy.Orders,
		Start:           "UNBOUNDED_PRECEDING",
		End:             "CURRENT_ROW_RANGE",
	}
	w, wt, err := p.windowExpr(rn, in)
	if err != nil {
		return nil, nil, err
	}
	numbered := &pb.Rel{RelType: &pb.Rel_Project{Project: &pb.ProjectRel{
		Common: emit(nil, 0), Input: input, Expressions: []*pb.Expression{w},
	}}}
	one := &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
		LiteralType: &pb.Expression_Literal_I64{I64: 1},
	}}}
	cond, _, err := p.compare("COMPARE_EQUAL", fieldRef(len(in)), one, wt, colType{duck: duckType{ID: "BIGINT"}})
	if err != nil {
		return nil, nil, err
	}
	mapping := make([]int32, len(in))
	for i := range mapping {
		mapping[i] = int32(i)
	}
	return &pb.Rel{RelType: &pb.Rel_Filter{Filter: &pb.FilterRel{
		Common: emit(mapping, len(in)+1), Input: numbered, Condition: cond,
	}}}, in, nil
}
