package duckdbbridge

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/substrait-io/substrait-go/v8/extensions"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// window converts LOGICAL_WINDOW, which outputs its input's columns followed
// by one column per window expression, into a ProjectRel whose expressions
// are Substrait window function expressions (Expression.WindowFunction),
// each with its own partitions, sorts and frame.
//
// Why not ConsistentPartitionWindowRel: substrait-go v8.1.1, which rigel's
// consumer loads plans with, cannot read that rel (RelFromProto has no case
// for it), while it reads window function expressions; and DuckDB gives
// every expression its own partitioning, which the rel would need one
// instance per distinct partitioning for.
func (p *producer) window(n *duckNode) (*pb.Rel, []colType, error) {
	input, in, err := p.onlyChild(n)
	if err != nil {
		return nil, nil, err
	}
	out := append([]colType{}, in...)
	var exprs []*pb.Expression
	for _, e := range n.Expressions {
		x, t, err := p.windowExpr(e, in)
		if err != nil {
			return nil, nil, err
		}
		exprs = append(exprs, x)
		out = append(out, t)
	}
	return &pb.Rel{RelType: &pb.Rel_Project{Project: &pb.ProjectRel{
		Common: emit(nil, 0), Input: input, Expressions: exprs,
	}}}, out, nil
}

// windowRanking maps DuckDB's ranking window types to Substrait's window
// functions without arguments.
var windowRanking = map[string]string{
	"WINDOW_ROW_NUMBER":   "row_number:",
	"WINDOW_RANK":         "rank:",
	"WINDOW_RANK_DENSE":   "dense_rank:",
	"WINDOW_PERCENT_RANK": "percent_rank:",
	"WINDOW_CUME_DIST":    "cume_dist:",
}

func (p *producer) windowExpr(e *duckExpr, in []colType) (*pb.Expression, colType, error) {
	if e.ExpressionClass != "BOUND_WINDOW" {
		return nil, colType{}, fmt.Errorf("duckdb plan: window operator expression is %s, not BOUND_WINDOW", e.ExpressionClass)
	}
	if e.ReturnType == nil {
		return nil, colType{}, fmt.Errorf("duckdb plan: window function %s without a return type", e.Type)
	}
	switch {
	case e.IgnoreNulls:
		return nil, colType{}, unsupported("window function IGNORE NULLS")
	case e.Filters != nil:
		return nil, colType{}, unsupported("window function FILTER (WHERE ...)")
	case e.Distinct:
		return nil, colType{}, unsupported("DISTINCT window aggregate")
	case e.ExcludeClause != "" && e.ExcludeClause != "NO_OTHER":
		return nil, colType{}, unsupported("window frame EXCLUDE %s", e.ExcludeClause)
	case len(e.ArgOrders) > 0 && string(e.ArgOrders) != "null" && string(e.ArgOrders) != "[]":
		return nil, colType{}, unsupported("window function with ORDER BY in its arguments")
	}
	args, types, err := p.exprs(e.Children, in)
	if err != nil {
		return nil, colType{}, err
	}
	out := colType{duck: *e.ReturnType, nullable: true}
	var f funcRef
	switch e.Type {
	case "WINDOW_AGGREGATE":
		if f, err = aggregateRef(e.Name, types); err != nil {
			return nil, colType{}, err
		}
		out.nullable = e.Name != "count" && e.Name != "count_star"
	case "WINDOW_NTILE":
		if len(types) != 1 || sigKey(types[0].duck) != "i64" {
			return nil, colType{}, unsupported("window function ntile(%v)", types)
		}
		f, out.nullable = funcRef{urnArithmetic, "ntile:i64", nil}, false
	case "WINDOW_FIRST_VALUE", "WINDOW_LAST_VALUE":
		if len(args) != 1 {
			return nil, colType{}, fmt.Errorf("duckdb plan: %s with %d arguments", e.Type, len(args))
		}
		f = funcRef{urnArithmetic, strings.ToLower(strings.TrimPrefix(e.Type, "WINDOW_")) + ":any", nil}
	case "WINDOW_LAG", "WINDOW_LEAD":
		if f, args, err = p.lagLead(e, args, types, in); err != nil {
			return nil, colType{}, err
		}
	default:
		name, ok := windowRanking[e.Type]
		if !ok || len(args) != 0 {
			return nil, colType{}, unsupported("window function %s", e.Type)
		}
		f, out.nullable = funcRef{urnArithmetic, name, nil}, false
	}
	anchor, opts, err := p.reg.window(f)
	if err != nil {
		return nil, colType{}, err
	}
	t, err := substraitType(out)
	if err != nil {
		return nil, colType{}, err
	}
	parts, _, err := p.exprs(e.Partitions, in)
	if err != nil {
		return nil, colType{}, err
	}
	sorts, err := p.sortFields(e.Orders, in)
	if err != nil {
		return nil, colType{}, err
	}
	if hasRangeOffset(e) && len(e.Orders) == 1 && e.Orders[0].Type == "DESCENDING" {
		if sorts[0], err = p.descendingRangeKey(e.Orders[0], in); err != nil { // producer_window_range.go
			return nil, colType{}, err
		}
	}
	bounds, lower, upper, err := p.windowFrame(e)
	if err != nil {
		return nil, colType{}, err
	}
	return &pb.Expression{RexType: &pb.Expression_WindowFunction_{WindowFunction: &pb.Expression_WindowFunction{
		FunctionReference: anchor,
		Arguments:         valueArgs(args...),
		Options:           opts,
		OutputType:        t,
		Phase:             pb.AggregationPhase_AGGREGATION_PHASE_INITIAL_TO_RESULT,
		Invocation:        pb.AggregateFunction_AGGREGATION_INVOCATION_ALL,
		Partitions:        parts,
		Sorts:             sorts,
		BoundsType:        bounds,
		LowerBound:        lower,
		UpperBound:        upper,
	}}}, out, nil
}

// lagLead converts lag/lead(x[, offset[, default]]): Substrait's variants
// take the offset as i32 and a default of x's type.
func (p *producer) lagLead(e *duckExpr, args []*pb.Expression, types []colType, in []colType) (funcRef, []*pb.Expression, error) {
	if len(args) != 1 {
		return funcRef{}, nil, fmt.Errorf("duckdb plan: %s with %d arguments", e.Type, len(args))
	}
	name := strings.ToLower(strings.TrimPrefix(e.Type, "WINDOW_"))
	if e.OffsetExpr == nil && e.DefaultExpr == nil {
		return funcRef{urnArithmetic, name + ":any", nil}, args, nil
	}
	offset := int64(1)
	if e.OffsetExpr != nil {
		v, ok := constInt(e.OffsetExpr)
		if !ok || v < -1<<31 || v >= 1<<31 {
			return funcRef{}, nil, unsupported("%s with an offset that is not a constant 32-bit integer", name)
		}
		offset = v
	}
	args = append(args, &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
		LiteralType: &pb.Expression_Literal_I32{I32: int32(offset)},
	}}})
	if e.DefaultExpr == nil {
		return funcRef{urnArithmetic, name + ":any_i32", nil}, args, nil
	}
	d, dt, err := p.expr(e.DefaultExpr, in)
	if err != nil {
		return funcRef{}, nil, err
	}
	if !sameType(dt.duck, types[0].duck) {
		return funcRef{}, nil, unsupported("%s with a default of type %s for values of %s", name, dt.duck, types[0].duck)
	}
	return funcRef{urnArithmetic, name + ":any_i32_any", nil}, append(args, d), nil
}

// constInt reads an integer constant.
func constInt(e *duckExpr) (int64, bool) {
	if e.ExpressionClass != "BOUND_CONSTANT" || e.Value == nil || e.Value.IsNull {
		return 0, false
	}
	switch e.Value.Type.ID {
	case "TINYINT", "SMALLINT", "INTEGER", "BIGINT":
	default:
		return 0, false
	}
	v, err := strconv.ParseInt(string(e.Value.Value), 10, 64)
	return v, err == nil
}

// windowFrame maps DuckDB's frame (start, end and their offsets) onto
// Substrait's bounds type and bounds. A frame mixing ROWS and RANGE bounds,
// GROUPS frames and offsets that are not constants are refused.
func (p *producer) windowFrame(e *duckExpr) (pb.Expression_WindowFunction_BoundsType, *pb.Expression_WindowFunction_Bound, *pb.Expression_WindowFunction_Bound, error) {
	kind := ""
	bound := func(b string, x *duckExpr) (*pb.Expression_WindowFunction_Bound, error) {
		var k string
		var out *pb.Expression_WindowFunction_Bound
		switch {
		case b == "UNBOUNDED_PRECEDING" || b == "UNBOUNDED_FOLLOWING":
			out = &pb.Expression_WindowFunction_Bound{Kind: &pb.Expression_WindowFunction_Bound_Unbounded_{Unbounded: &pb.Expression_WindowFunction_Bound_Unbounded{}}}
		case b == "CURRENT_ROW_ROWS" || b == "CURRENT_ROW_RANGE":
			k = strings.TrimPrefix(b, "CURRENT_ROW_")
			out = &pb.Expression_WindowFunction_Bound{Kind: &pb.Expression_WindowFunction_Bound_CurrentRow_{CurrentRow: &pb.Expression_WindowFunction_Bound_CurrentRow{}}}
		case strings.HasPrefix(b, "EXPR_PRECEDING_") || strings.HasPrefix(b, "EXPR_FOLLOWING_"):
			k = b[strings.LastIndexByte(b, '_')+1:]
			v, ok := constInt(x)
			if k == "RANGE" {
				// The plan holds key -/+ offset (producer_window_range.go).
				var err error
				if v, err = rangeOffset(x, e.Orders, strings.HasPrefix(b, "EXPR_PRECEDING_")); err != nil {
					return nil, err
				}
				ok = true
			}
			if !ok || v < 0 {
				return nil, unsupported("window frame offset that is not a non-negative integer constant")
			}
			switch {
			case v == 0:
				// Substrait's offsets are strictly positive: offset 0 is
				// CurrentRow, the same frame edge in ROWS and RANGE mode.
				out = &pb.Expression_WindowFunction_Bound{Kind: &pb.Expression_WindowFunction_Bound_CurrentRow_{CurrentRow: &pb.Expression_WindowFunction_Bound_CurrentRow{}}}
			case strings.HasPrefix(b, "EXPR_PRECEDING_"):
				out = &pb.Expression_WindowFunction_Bound{Kind: &pb.Expression_WindowFunction_Bound_Preceding_{Preceding: &pb.Expression_WindowFunction_Bound_Preceding{Offset: v}}}
			default:
				out = &pb.Expression_WindowFunction_Bound{Kind: &pb.Expression_WindowFunction_Bound_Following_{Following: &pb.Expression_WindowFunction_Bound_Following{Offset: v}}}
			}
		default:
			return nil, unsupported("window frame bound %s", b)
		}
		if k != "" {
			if k != "ROWS" && k != "RANGE" {
				return nil, unsupported("window frame in %s", k)
			}
			if kind != "" && kind != k {
				return nil, unsupported("window frame mixing ROWS and RANGE bounds")
			}
			kind = k
		}
		return out, nil
	}
	lower, err := bound(e.Start, e.StartExpr)
	if err != nil {
		return 0, nil, nil, err
	}
	upper, err := bound(e.End, e.EndExpr)
	if err != nil {
		return 0, nil, nil, err
	}
	bt := pb.Expression_WindowFunction_BOUNDS_TYPE_RANGE
	if kind == "ROWS" {
		bt = pb.Expression_WindowFunction_BOUNDS_TYPE_ROWS
	}
	return bt, lower, upper, nil
}

// window returns the anchor and options of a window function (aggregate
// functions are window functions too).
func (r *extRegistry) window(f funcRef) (uint32, []*pb.FunctionOption, error) {
	v, ok := r.coll.GetWindowFunc(extensions.ID{URN: f.urn, Name: f.name})
	if !ok {
		return 0, nil, unsupported("Substrait window function %s (%s)", f.name, f.urn)
	}
	opts, err := functionOptions(f, v.Options())
	if err != nil {
		return 0, nil, err
	}
	return r.anchor(f), opts, nil
}
