package duckdbbridge

import pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"

// DuckDB plans an uncorrelated scalar subquery as an ungrouped aggregate of
// first(x) and count_star() over the subquery, under a projection
//
//	CASE WHEN count_star > 1 THEN error('More than one row returned by a
//	subquery ...') ELSE first(x) END
//
// Substrait has no function that raises an error. When the subquery is
// itself an ungrouped aggregate (TPC-H Q11, Q15, Q22: sum, max, avg), it
// has exactly one row, count_star is 1 and the error branch can never be
// taken: the CASE is then its ELSE. Any other shape keeps the error() call
// and is refused.

// exactlyOneRow reports whether a DuckDB operator always outputs one row:
// an ungrouped aggregate, possibly under projections (which keep the row
// count).
func exactlyOneRow(n *duckNode) bool {
	for n != nil {
		switch n.Type {
		case "LOGICAL_AGGREGATE_AND_GROUP_BY":
			return len(n.Groups) == 0 && len(n.GroupingSets) <= 1 && len(n.GroupingFunctions) == 0 &&
				(len(n.GroupingSets) == 0 || len(n.GroupingSets[0]) == 0)
		case "LOGICAL_PROJECTION":
			if len(n.Children) != 1 {
				return false
			}
			n = n.Children[0]
		default:
			return false
		}
	}
	return false
}

// dropDeadSubqueryErrors returns the projection's expressions with each
// scalar-subquery check over a one-row subquery replaced by its ELSE. It
// returns the expressions unchanged when the shape is not exactly that.
func dropDeadSubqueryErrors(n *duckNode) []*duckExpr {
	if len(n.Children) != 1 {
		return n.Expressions
	}
	agg := n.Children[0]
	if agg.Type != "LOGICAL_AGGREGATE_AND_GROUP_BY" || !exactlyOneRow(agg) || len(agg.Children) != 1 || !exactlyOneRow(agg.Children[0]) {
		return n.Expressions
	}
	out := make([]*duckExpr, len(n.Expressions))
	for i, e := range n.Expressions {
		out[i] = e
		if isRowCheck(e, agg) {
			out[i] = e.Else
		}
	}
	return out
}

// isRowCheck reports whether e is the scalar-subquery check over agg's
// outputs: CASE WHEN count_star > 1 THEN error(...) ELSE x END.
func isRowCheck(e *duckExpr, agg *duckNode) bool {
	if e == nil || e.ExpressionClass != "BOUND_CASE" || len(e.CaseChecks) != 1 || e.Else == nil {
		return false
	}
	when, then := e.CaseChecks[0].When, e.CaseChecks[0].Then
	if when == nil || then == nil || when.Type != "COMPARE_GREATERTHAN" || when.Left == nil || when.Right == nil {
		return false
	}
	if then.ExpressionClass != "BOUND_FUNCTION" || then.Name != "error" {
		return false
	}
	// The left side must be the aggregate's count_star (the aggregate
	// has no groups, so output i is aggregate expression i), the right
	// side the constant 1.
	l := when.Left
	if l.ExpressionClass != "BOUND_REF" || l.Index == nil || *l.Index >= uint64(len(agg.Expressions)) {
		return false
	}
	if c := agg.Expressions[*l.Index]; c == nil || c.Name != "count_star" || c.Filter != nil {
		return false
	}
	return isConstantOne(when.Right)
}

// A scalar subquery over a subquery of several rows is DuckDB's error
// when it returns more than one: the check cannot be dropped, and
// Substrait has no function that raises. A left single join of one row
// with the subquery's rows is, though, exactly that value: the row's x,
// null without a row, an error with more than one. So
//
//	PROJECTION[CASE WHEN count_star > 1 THEN error() ELSE first(x) END]
//	  (AGGREGATE[first(x), count_star()](sub))
//
// becomes JoinRel LEFT_SINGLE(one row, ProjectRel[x](sub), true) keeping
// x: TPC-DS q06, q14, q44, q54 and q58 (a DISTINCT, or a filtered set, as
// the subquery), whatever operator reads the value.

// rowCheckedSubquery returns sub and x when n is that shape over a
// subquery that may have several rows.
func rowCheckedSubquery(n *duckNode) (sub *duckNode, x *duckExpr, ok bool) {
	if n.Type != "LOGICAL_PROJECTION" || len(n.Children) != 1 || len(n.Expressions) != 1 {
		return nil, nil, false
	}
	agg := n.Children[0]
	if agg.Type != "LOGICAL_AGGREGATE_AND_GROUP_BY" || !exactlyOneRow(agg) || len(agg.Children) != 1 ||
		exactlyOneRow(agg.Children[0]) || len(agg.Expressions) != 2 {
		return nil, nil, false
	}
	e := n.Expressions[0]
	if !isRowCheck(e, agg) {
		return nil, nil, false
	}
	ref := e.Else
	if ref.ExpressionClass != "BOUND_REF" || ref.Index == nil || *ref.Index >= uint64(len(agg.Expressions)) {
		return nil, nil, false
	}
	first := agg.Expressions[*ref.Index]
	if first == nil || first.Name != "first" || len(first.Children) != 1 || first.Filter != nil || first.Distinct {
		return nil, nil, false
	}
	return agg.Children[0], first.Children[0], true
}

// subqueryValue is the one-column relation of x over sub's only row (see
// rowCheckedSubquery). The single join's left side is one row of a
// constant column, which the emit drops.
func (p *producer) subqueryValue(sub *duckNode, x *duckExpr) (*pb.Rel, []colType, error) {
	r, rt, err := p.rel(sub)
	if err != nil {
		return nil, nil, err
	}
	xe, xt, err := p.expr(x, rt)
	if err != nil {
		return nil, nil, err
	}
	value := &pb.Rel{RelType: &pb.Rel_Project{Project: &pb.ProjectRel{
		Common: emit([]int32{int32(len(rt))}, len(rt)+1), Input: r, Expressions: []*pb.Expression{xe},
	}}}
	boolean := func(v bool) *pb.Expression_Literal {
		return &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_Boolean{Boolean: v}}
	}
	boolT := &pb.Type{Kind: &pb.Type_Bool{Bool: &pb.Type_Boolean{Nullability: pb.Type_NULLABILITY_REQUIRED}}}
	oneRow := &pb.Rel{RelType: &pb.Rel_Read{Read: &pb.ReadRel{
		Common: emit(nil, 0),
		BaseSchema: &pb.NamedStruct{Names: []string{"one"}, Struct: &pb.Type_Struct{
			Types: []*pb.Type{boolT}, Nullability: pb.Type_NULLABILITY_REQUIRED}},
		ReadType: &pb.ReadRel_VirtualTable_{VirtualTable: &pb.ReadRel_VirtualTable{
			Expressions: []*pb.Expression_Nested_Struct{{Fields: []*pb.Expression{{RexType: &pb.Expression_Literal_{Literal: boolean(true)}}}}},
		}},
	}}}
	xt.nullable = true // null where the subquery has no row
	return &pb.Rel{RelType: &pb.Rel_Join{Join: &pb.JoinRel{
		Common: emit([]int32{1}, 2), Left: oneRow, Right: value,
		Expression: &pb.Expression{RexType: &pb.Expression_Literal_{Literal: boolean(true)}},
		Type:       pb.JoinRel_JOIN_TYPE_LEFT_SINGLE,
	}}}, []colType{xt}, nil
}

// isConstantOne reports whether e is an integer constant 1.
func isConstantOne(e *duckExpr) bool {
	if e.ExpressionClass != "BOUND_CONSTANT" || e.Value == nil || e.Value.IsNull {
		return false
	}
	switch e.Value.Type.ID {
	case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT":
		return string(e.Value.Value) == "1"
	}
	return false
}
