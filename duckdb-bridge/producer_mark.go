package duckdbbridge

import (
	"fmt"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
)

// markJoin converts a MARK join (IN / NOT IN / EXISTS in a position where
// DuckDB needs a boolean per left row) into standard Substrait: Substrait
// has LEFT_MARK, but substrait-go v8.1.1, which loads rigel's plans, gives
// it no output column. The mark of a left row is
//
//	TRUE  when a right row satisfies every condition;
//	NULL  when none does, but for some right row that satisfies the
//	      IS NOT DISTINCT FROM conditions the = condition is unknown (its
//	      left key is null, or that right row's key is);
//	FALSE otherwise.
//
// As relations: the left input LEFT JOINed with the distinct right keys
// (plus a TRUE flag) decides TRUE; where the = condition can be null, a
// second LEFT JOIN (a cross product when there are no other conditions)
// with per-group counts of right rows and of non-null right keys decides
// between NULL and FALSE. One = condition at most: with several, NULL
// depends on which of them are unknown for the same right row.
func (p *producer) markJoin(n *duckNode, rels [2]*pb.Rel, lt, rt []colType) (*pb.Rel, []colType, error) {
	if n.Predicate != nil {
		return nil, nil, unsupported("%s (MARK) with an extra predicate", n.Type)
	}
	if len(n.Conditions) == 0 {
		return nil, nil, fmt.Errorf("duckdb plan: MARK join without conditions")
	}
	eq := -1
	var others []int // the IS NOT DISTINCT FROM conditions
	for i, c := range n.Conditions {
		switch c.Comparison {
		case "COMPARE_EQUAL":
			if eq >= 0 {
				return nil, nil, unsupported("%s (MARK) with several = conditions", n.Type)
			}
			eq = i
		case "COMPARE_NOT_DISTINCT_FROM":
			others = append(others, i)
		default:
			return nil, nil, unsupported("%s (MARK) on %s", n.Type, c.Comparison)
		}
	}
	lefts, ltypes, err := p.joinSide(n.Conditions, lt, true)
	if err != nil {
		return nil, nil, err
	}
	rights, rtypes, err := p.joinSide(n.Conditions, rt, false)
	if err != nil {
		return nil, nil, err
	}
	k := len(n.Conditions)

	// The distinct right keys with a TRUE flag, LEFT JOINed to the left.
	keys := groupBy(proto.Clone(rels[1]).(*pb.Rel), rights)
	trueLit := &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
		LiteralType: &pb.Expression_Literal_Boolean{Boolean: true}}}}
	flagged := &pb.Rel{RelType: &pb.Rel_Project{Project: &pb.ProjectRel{
		Common: emit(nil, 0), Input: keys, Expressions: []*pb.Expression{trueLit}}}}
	comparisons := make([]string, k)
	for i, c := range n.Conditions {
		comparisons[i] = c.Comparison
	}
	rel, err := p.leftJoinOn(rels[0], flagged, len(lt), comparisons, lefts, ltypes, rtypes)
	if err != nil {
		return nil, nil, err
	}
	width := len(lt) + k + 1
	matched, _, err := p.call(funcRef{urnComparison, "is_not_null:any", nil}, boolType(false), valueArgs(fieldRef(width-1))...)
	if err != nil {
		return nil, nil, err
	}
	mark, markType := matched, boolType(false)
	if eq >= 0 && (ltypes[eq].nullable || rtypes[eq].nullable) {
		if rel, mark, err = p.markUnknown(rel, width, rels[1], lefts, ltypes, rights, rtypes, eq, others, matched); err != nil {
			return nil, nil, err
		}
		markType = boolType(true)
		width += len(others) + 2
	}

	// The output: the left columns the join keeps, then the mark.
	left, err := projectionMap(n.LeftProjectionMap, len(lt))
	if err != nil {
		return nil, nil, err
	}
	var mapping []int32
	var out []colType
	for _, i := range left {
		mapping = append(mapping, int32(i))
		out = append(out, lt[i])
	}
	mapping = append(mapping, int32(width))
	out = append(out, markType)
	return &pb.Rel{RelType: &pb.Rel_Project{Project: &pb.ProjectRel{
		Common: emit(mapping, width+1), Input: rel, Expressions: []*pb.Expression{mark},
	}}}, out, nil
}

// markUnknown adds the counts that tell NULL from FALSE (see markJoin) to
// rel (whose first width columns are the left input, the distinct keys and
// the flag) and returns the mark over the result.
func (p *producer) markUnknown(rel *pb.Rel, width int, right *pb.Rel, lefts []*pb.Expression, ltypes []colType,
	rights []*pb.Expression, rtypes []colType, eq int, others []int, matched *pb.Expression) (*pb.Rel, *pb.Expression, error) {
	var groups []*pb.Expression
	for _, i := range others {
		groups = append(groups, rights[i])
	}
	counts := groupBy(proto.Clone(right).(*pb.Rel), groups)
	agg := counts.GetAggregate()
	bigint := colType{duck: duckType{ID: "BIGINT"}}
	for _, f := range []struct {
		name string
		args []colType
		vals []*pb.Expression
	}{{"count_star", nil, nil}, {"count", []colType{rtypes[eq]}, []*pb.Expression{rights[eq]}}} {
		ref, err := aggregateRef(f.name, f.args)
		if err != nil {
			return nil, nil, err
		}
		anchor, opts, err := p.reg.aggregate(ref)
		if err != nil {
			return nil, nil, err
		}
		t, err := substraitType(bigint)
		if err != nil {
			return nil, nil, err
		}
		agg.Measures = append(agg.Measures, &pb.AggregateRel_Measure{Measure: &pb.AggregateFunction{
			FunctionReference: anchor, Arguments: valueArgs(f.vals...), OutputType: t, Options: opts,
			Phase:      pb.AggregationPhase_AGGREGATION_PHASE_INITIAL_TO_RESULT,
			Invocation: pb.AggregateFunction_AGGREGATION_INVOCATION_ALL,
		}})
	}
	if len(others) == 0 {
		rel = &pb.Rel{RelType: &pb.Rel_Cross{Cross: &pb.CrossRel{Common: emit(nil, 0), Left: rel, Right: counts}}}
	} else {
		comparisons := make([]string, len(others))
		var ls []*pb.Expression
		var lts, rts []colType
		for j, i := range others {
			comparisons[j] = "COMPARE_NOT_DISTINCT_FROM"
			ls, lts, rts = append(ls, lefts[i]), append(lts, ltypes[i]), append(rts, rtypes[i])
		}
		var err error
		if rel, err = p.leftJoinOn(rel, counts, width, comparisons, ls, lts, rts); err != nil {
			return nil, nil, err
		}
	}
	rows, nonNull := fieldRef(width+len(others)), fieldRef(width+len(others)+1)
	nullableBigint := bigint
	nullableBigint.nullable = len(others) > 0
	noRows, _, err := p.call(funcRef{urnComparison, "is_null:any", nil}, boolType(false), valueArgs(rows)...)
	if err != nil {
		return nil, nil, err
	}
	zero := &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
		LiteralType: &pb.Expression_Literal_I64{I64: 0}}}}
	empty, _, err := p.compare("COMPARE_EQUAL", proto.Clone(rows).(*pb.Expression), zero, nullableBigint, bigint)
	if err != nil {
		return nil, nil, err
	}
	leftNull, _, err := p.call(funcRef{urnComparison, "is_null:any", nil}, boolType(false), valueArgs(lefts[eq])...)
	if err != nil {
		return nil, nil, err
	}
	rightNull, _, err := p.compare("COMPARE_LESSTHAN", nonNull, proto.Clone(rows).(*pb.Expression), nullableBigint, nullableBigint)
	if err != nil {
		return nil, nil, err
	}
	unknown, _, err := p.call(funcRef{urnBoolean, "or:bool", nil}, boolType(nullableBigint.nullable), valueArgs(leftNull, rightNull)...)
	if err != nil {
		return nil, nil, err
	}
	lit := func(b bool) *pb.Expression {
		return &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
			LiteralType: &pb.Expression_Literal_Boolean{Boolean: b}, Nullable: true}}}
	}
	nullType, err := substraitType(boolType(true))
	if err != nil {
		return nil, nil, err
	}
	null := &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
		LiteralType: &pb.Expression_Literal_Null{Null: nullType}, Nullable: true}}}
	mark := &pb.Expression{RexType: &pb.Expression_IfThen_{IfThen: &pb.Expression_IfThen{
		Ifs: []*pb.Expression_IfThen_IfClause{
			{If: matched, Then: lit(true)},
			{If: noRows, Then: lit(false)},
			{If: empty, Then: lit(false)},
			{If: unknown, Then: null},
		},
		Else: lit(false),
	}}}
	return rel, mark, nil
}

// leftJoinOn LEFT JOINs right to left on the conjunction of
// comparisons[j](lefts[j], right column j), right columns being numbered
// from base in the joined record; lts and rts are the compared types.
func (p *producer) leftJoinOn(left, right *pb.Rel, base int, comparisons []string, lefts []*pb.Expression, lts, rts []colType) (*pb.Rel, error) {
	conds := make([]*pb.Expression, len(comparisons))
	types := make([]colType, len(comparisons))
	for j, cmp := range comparisons {
		var err error
		if conds[j], types[j], err = p.compare(cmp, lefts[j], fieldRef(base+j), lts[j], rts[j]); err != nil {
			return nil, err
		}
	}
	cond, err := p.and(conds, types)
	if err != nil {
		return nil, err
	}
	return &pb.Rel{RelType: &pb.Rel_Join{Join: &pb.JoinRel{
		Common: emit(nil, 0), Left: left, Right: right, Expression: cond, Type: pb.JoinRel_JOIN_TYPE_LEFT,
	}}}, nil
}

// joinSide converts one side of each join condition over that side's
// columns.
func (p *producer) joinSide(conds []duckJoinCondition, in []colType, left bool) ([]*pb.Expression, []colType, error) {
	es := make([]*duckExpr, len(conds))
	for i, c := range conds {
		es[i] = c.Right
		if left {
			es[i] = c.Left
		}
	}
	return p.exprs(es, in)
}

// groupBy is an AggregateRel over input grouping on exprs (no measures: the
// distinct values of exprs; no exprs: one group of every row).
func groupBy(input *pb.Rel, exprs []*pb.Expression) *pb.Rel {
	agg := &pb.AggregateRel{Common: emit(nil, 0), Input: input, GroupingExpressions: exprs}
	if len(exprs) > 0 {
		refs := make([]uint32, len(exprs))
		for i := range refs {
			refs[i] = uint32(i)
		}
		agg.Groupings = []*pb.AggregateRel_Grouping{{ExpressionReferences: refs}}
	}
	return &pb.Rel{RelType: &pb.Rel_Aggregate{Aggregate: agg}}
}

// and is the conjunction of es, of types ts (es itself when there is one).
func (p *producer) and(es []*pb.Expression, ts []colType) (*pb.Expression, error) {
	if len(es) == 1 {
		return es[0], nil
	}
	e, _, err := p.call(funcRef{urnBoolean, "and:bool", nil}, boolType(anyNullable(ts)), valueArgs(es...)...)
	return e, err
}
