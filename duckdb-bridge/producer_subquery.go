package duckdbbridge

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
		if e == nil || e.ExpressionClass != "BOUND_CASE" || len(e.CaseChecks) != 1 || e.Else == nil {
			continue
		}
		when, then := e.CaseChecks[0].When, e.CaseChecks[0].Then
		if when == nil || then == nil || when.Type != "COMPARE_GREATERTHAN" || when.Left == nil || when.Right == nil {
			continue
		}
		if then.ExpressionClass != "BOUND_FUNCTION" || then.Name != "error" {
			continue
		}
		// The left side must be the aggregate's count_star (the aggregate
		// has no groups, so output i is aggregate expression i), the right
		// side the constant 1.
		l := when.Left
		if l.ExpressionClass != "BOUND_REF" || l.Index == nil || *l.Index >= uint64(len(agg.Expressions)) {
			continue
		}
		if c := agg.Expressions[*l.Index]; c == nil || c.Name != "count_star" || c.Filter != nil {
			continue
		}
		if !isConstantOne(when.Right) {
			continue
		}
		out[i] = e.Else
	}
	return out
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
