package duckdbbridge

import (
	"fmt"
	"slices"
	"strconv"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// rowIDColumn is the column index DuckDB's scans use for the virtual row id
// (COLUMN_IDENTIFIER_ROW_ID, the largest uint64).
const rowIDColumn = ^uint64(0)

// emit returns a RelCommon that outputs the given columns of a rel's direct
// output, or a direct RelCommon when they are all columns in order.
func emit(mapping []int32, direct int) *pb.RelCommon {
	if len(mapping) == direct {
		identity := true
		for i, m := range mapping {
			identity = identity && int(m) == i
		}
		if identity {
			return &pb.RelCommon{EmitKind: &pb.RelCommon_Direct_{Direct: &pb.RelCommon_Direct{}}}
		}
	}
	return &pb.RelCommon{EmitKind: &pb.RelCommon_Emit_{Emit: &pb.RelCommon_Emit{OutputMapping: mapping}}}
}

// pick maps a DuckDB projection map (indexes into the child's columns) onto
// an emit and the resulting column types.
func pick(projection []uint64, in []colType) ([]int32, []colType, error) {
	mapping := make([]int32, len(projection))
	out := make([]colType, len(projection))
	for i, c := range projection {
		if c >= uint64(len(in)) {
			return nil, nil, fmt.Errorf("duckdb plan: projection map index %d is out of range (%d columns)", c, len(in))
		}
		mapping[i] = int32(c)
		out[i] = in[c]
	}
	return mapping, out, nil
}

// rel converts one DuckDB logical operator (and its children) into a
// Substrait rel whose output columns are the operator's output columns, in
// DuckDB's order and with DuckDB's types.
func (p *producer) rel(n *duckNode) (*pb.Rel, []colType, error) {
	if n == nil {
		return nil, nil, fmt.Errorf("duckdb plan: missing operator")
	}
	if err := p.ctx.Err(); err != nil {
		return nil, nil, err
	}
	switch n.Type {
	case "LOGICAL_GET":
		return p.get(n)
	case "LOGICAL_EMPTY_RESULT":
		return p.emptyResult(n)
	case "LOGICAL_FILTER":
		return p.filter(n)
	case "LOGICAL_PROJECTION":
		return p.projection(n)
	case "LOGICAL_AGGREGATE_AND_GROUP_BY":
		return p.aggregate(n)
	case "LOGICAL_ORDER_BY":
		return p.orderBy(n)
	case "LOGICAL_TOP_N":
		return p.topN(n)
	case "LOGICAL_LIMIT":
		return p.limit(n)
	case "LOGICAL_COMPARISON_JOIN", "LOGICAL_DELIM_JOIN", "LOGICAL_ANY_JOIN":
		return p.join(n)
	case "LOGICAL_DELIM_GET":
		return p.delimGet(n)
	case "LOGICAL_CROSS_PRODUCT":
		return p.crossProduct(n)
	case "LOGICAL_DISTINCT":
		return p.distinct(n)
	case "LOGICAL_UNION", "LOGICAL_EXCEPT", "LOGICAL_INTERSECT":
		return p.setOp(n)
	case "LOGICAL_MATERIALIZED_CTE":
		return p.materializedCTE(n)
	case "LOGICAL_CTE_REF":
		return p.cteRef(n)
	case "LOGICAL_DUMMY_SCAN":
		return p.dummyScan(n)
	case "LOGICAL_EXPRESSION_GET":
		return p.expressionGet(n)
	case "LOGICAL_WINDOW":
		return p.window(n)
	}
	if n.JoinType != "" {
		return nil, nil, unsupported("%s (%s)", n.Type, n.JoinType)
	}
	return nil, nil, unsupported("%s", n.Type)
}

func (p *producer) onlyChild(n *duckNode) (*pb.Rel, []colType, error) {
	if len(n.Children) != 1 {
		return nil, nil, fmt.Errorf("duckdb plan: %s has %d children, want 1", n.Type, len(n.Children))
	}
	return p.rel(n.Children[0])
}

// get converts a table scan. The ReadRel's base_schema is the table's full
// schema (names, DuckDB's types, NOT NULL from the catalog); pushed-down
// table filters become ReadRel.filter over base_schema field indexes; the
// columns DuckDB reads become the ReadRel's emit (indexes into base_schema).
//
// The producer does not use ReadRel.projection (a MaskExpression):
// substrait-go v8.1.1 ignores it when it computes a ReadRel's output type
// (RecordType is base_schema remapped by emit), so a masked ReadRel would
// load with the wrong schema. An emit over base_schema means the same to
// every consumer.
func (p *producer) get(n *duckNode) (*pb.Rel, []colType, error) {
	if len(n.ProjectedInput) > 0 {
		return nil, nil, unsupported("LOGICAL_GET with projected input")
	}
	var tbl *tableInfo
	var files *pb.ReadRel_LocalFiles
	var err error
	switch {
	case n.Name == "seq_scan":
		if n.FunctionData == nil || n.FunctionData.Table == "" {
			return nil, nil, fmt.Errorf("duckdb plan: table scan without a table name")
		}
		tbl, err = p.table(n.FunctionData, n.Names, n.ReturnedTypes)
	case parquetScans[n.Name]:
		tbl, files, err = parquetScan(n)
	default:
		return nil, nil, unsupported("LOGICAL_GET of table function %s", n.Name)
	}
	if err != nil {
		return nil, nil, err
	}
	base := &pb.NamedStruct{Names: tbl.names, Struct: &pb.Type_Struct{Nullability: pb.Type_NULLABILITY_REQUIRED}}
	for _, c := range tbl.cols {
		t, err := substraitType(c)
		if err != nil {
			return nil, nil, fmt.Errorf("table %s column: %w", tbl.name, err)
		}
		base.Struct.Types = append(base.Struct.Types, t)
	}

	// Output columns: column_indexes picked by projection_ids (all of
	// column_indexes when projection_ids is empty).
	ids := n.ProjectionIDs
	if len(ids) == 0 {
		for i := range n.ColumnIndexes {
			ids = append(ids, uint64(i))
		}
	}
	var mapping []int32
	var out []colType
	for _, id := range ids {
		if id >= uint64(len(n.ColumnIndexes)) {
			return nil, nil, fmt.Errorf("duckdb plan: scan of %s: projection id %d out of range", tbl.name, id)
		}
		ci := n.ColumnIndexes[id]
		if len(ci.ChildIndexes) > 0 {
			return nil, nil, unsupported("scan of nested struct fields")
		}
		switch {
		case ci.Index < uint64(len(tbl.cols)):
			mapping = append(mapping, int32(ci.Index))
			out = append(out, tbl.cols[ci.Index])
		case ci.Index == rowIDColumn && len(tbl.cols) > 0:
			// DuckDB reads the row id when a query needs only the row count
			// (count(*)). Substrait has no row id: emit the first table column
			// in its place and mark it so that any reference to it is refused.
			mapping = append(mapping, 0)
			out = append(out, colType{duck: duckType{ID: "BIGINT"}, rowID: true})
		default:
			return nil, nil, unsupported("scan of virtual column %d", ci.Index)
		}
	}

	if len(mapping) == 0 {
		return nil, nil, unsupported("scan of %s that reads no columns", tbl.name)
	}
	read := &pb.ReadRel{
		Common:     emit(mapping, len(tbl.cols)),
		BaseSchema: base,
		ReadType: &pb.ReadRel_NamedTable_{NamedTable: &pb.ReadRel_NamedTable{
			Names: tbl.substraitNames,
		}},
	}
	if files != nil {
		read.ReadType = &pb.ReadRel_LocalFiles_{LocalFiles: files}
	}
	if n.TableFilters != nil && len(n.TableFilters.Filters) > 0 {
		var conds []*pb.Expression
		var nullable bool
		for _, f := range n.TableFilters.Filters {
			if f.Key >= uint64(len(tbl.cols)) {
				return nil, nil, fmt.Errorf("duckdb plan: scan of %s: filter on column %d out of range", tbl.name, f.Key)
			}
			c, ct, err := p.tableFilter(f.Value, int(f.Key), tbl.cols[f.Key])
			if err != nil {
				return nil, nil, fmt.Errorf("filter on %s.%s: %w", tbl.name, tbl.names[f.Key], err)
			}
			if c != nil {
				conds = append(conds, c)
				nullable = nullable || ct.nullable
			}
		}
		switch len(conds) {
		case 0:
		case 1:
			read.Filter = conds[0]
		default:
			read.Filter, _, err = p.call(funcRef{urnBoolean, "and:bool", nil}, boolType(nullable), valueArgs(conds...)...)
			if err != nil {
				return nil, nil, err
			}
		}
	}
	return &pb.Rel{RelType: &pb.Rel_Read{Read: read}}, out, nil
}

// tableFilter converts one of DuckDB's TableFilters on base column col into
// a boolean expression over the base schema. It returns nil for filters that
// DuckDB only uses to skip data and that a consumer may ignore:
// OPTIONAL_FILTER (zone-map pruning whose predicate DuckDB also keeps in a
// LOGICAL_FILTER above the scan) and DYNAMIC_FILTER (a runtime bound that a
// TOP_N operator tightens as it runs; the TOP_N itself gives the result).
func (p *producer) tableFilter(f *duckFilter, col int, ct colType) (*pb.Expression, colType, error) {
	if f == nil {
		return nil, colType{}, fmt.Errorf("duckdb plan: empty table filter")
	}
	switch f.FilterType {
	case "OPTIONAL_FILTER", "DYNAMIC_FILTER":
		return nil, colType{}, nil
	case "CONSTANT_COMPARISON":
		if f.Constant == nil {
			return nil, colType{}, fmt.Errorf("duckdb plan: comparison filter without a constant")
		}
		if !sameType(f.Constant.Type, ct.duck) {
			return nil, colType{}, fmt.Errorf("duckdb plan: filter constant of type %s on a column of type %s", f.Constant.Type, ct.duck)
		}
		lit, lt, err := literal(f.Constant)
		if err != nil {
			return nil, colType{}, err
		}
		return p.compare(f.ComparisonType, fieldRef(col), &pb.Expression{RexType: &pb.Expression_Literal_{Literal: lit}}, ct, lt)
	case "IS_NULL":
		return p.call(funcRef{urnComparison, "is_null:any", nil}, boolType(false), valueArgs(fieldRef(col))...)
	case "IS_NOT_NULL":
		return p.call(funcRef{urnComparison, "is_not_null:any", nil}, boolType(false), valueArgs(fieldRef(col))...)
	case "CONJUNCTION_AND", "CONJUNCTION_OR":
		var args []*pb.Expression
		nullable := false
		for _, c := range f.ChildFilters {
			e, et, err := p.tableFilter(c, col, ct)
			if err != nil {
				return nil, colType{}, err
			}
			if e == nil {
				if f.FilterType == "CONJUNCTION_OR" {
					// An OR with an optional branch constrains nothing for sure.
					return nil, colType{}, nil
				}
				continue
			}
			args = append(args, e)
			nullable = nullable || et.nullable
		}
		switch len(args) {
		case 0:
			return nil, colType{}, nil
		case 1:
			return args[0], boolType(nullable), nil
		}
		name := "and:bool"
		if f.FilterType == "CONJUNCTION_OR" {
			name = "or:bool"
		}
		return p.call(funcRef{urnBoolean, name, nil}, boolType(nullable), valueArgs(args...)...)
	case "IN_FILTER":
		opts := make([]*pb.Expression, len(f.Values))
		nullable := ct.nullable
		for i, v := range f.Values {
			lit, lt, err := literal(v)
			if err != nil {
				return nil, colType{}, err
			}
			nullable = nullable || lt.nullable
			opts[i] = &pb.Expression{RexType: &pb.Expression_Literal_{Literal: lit}}
		}
		if ct.nullable {
			nullableLiterals(opts)
		}
		return &pb.Expression{RexType: &pb.Expression_SingularOrList_{SingularOrList: &pb.Expression_SingularOrList{
			Value: fieldRef(col), Options: opts,
		}}}, boolType(nullable), nil
	case "EXPRESSION_FILTER":
		// The expression reads the filtered column as BOUND_REF 0: convert it
		// over a one-column input, then point that reference at the column.
		e, et, err := p.expr(f.Expr, []colType{ct})
		if err != nil {
			return nil, colType{}, err
		}
		retarget(e, col)
		return e, et, nil
	}
	return nil, colType{}, unsupported("table filter %s", f.FilterType)
}

// retarget rewrites every reference to field 0 of the root record in e into
// a reference to field col. It is used only on expressions converted over a
// one-column input, so field 0 is the only field they can reference.
func retarget(e *pb.Expression, col int) {
	if e == nil {
		return
	}
	switch x := e.RexType.(type) {
	case *pb.Expression_Selection:
		if seg := x.Selection.GetDirectReference().GetStructField(); seg != nil {
			seg.Field = int32(col)
		}
	case *pb.Expression_ScalarFunction_:
		for _, a := range x.ScalarFunction.Arguments {
			retarget(a.GetValue(), col)
		}
	case *pb.Expression_Cast_:
		retarget(x.Cast.Input, col)
	case *pb.Expression_IfThen_:
		for _, c := range x.IfThen.Ifs {
			retarget(c.If, col)
			retarget(c.Then, col)
		}
		retarget(x.IfThen.Else, col)
	case *pb.Expression_SingularOrList_:
		retarget(x.SingularOrList.Value, col)
		for _, o := range x.SingularOrList.Options {
			retarget(o, col)
		}
	}
}

// emptyResult is a relation DuckDB proved empty: a VirtualTable with no rows
// and the operator's column types.
func (p *producer) emptyResult(n *duckNode) (*pb.Rel, []colType, error) {
	schema := &pb.NamedStruct{Struct: &pb.Type_Struct{Nullability: pb.Type_NULLABILITY_REQUIRED}}
	out := make([]colType, len(n.ReturnTypes))
	for i, t := range n.ReturnTypes {
		out[i] = colType{duck: t, nullable: true}
		st, err := substraitType(out[i])
		if err != nil {
			return nil, nil, err
		}
		schema.Names = append(schema.Names, "col"+strconv.Itoa(i))
		schema.Struct.Types = append(schema.Struct.Types, st)
	}
	return &pb.Rel{RelType: &pb.Rel_Read{Read: &pb.ReadRel{
		Common:     emit(nil, 0),
		BaseSchema: schema,
		ReadType:   &pb.ReadRel_VirtualTable_{VirtualTable: &pb.ReadRel_VirtualTable{}},
	}}}, out, nil
}

func (p *producer) filter(n *duckNode) (*pb.Rel, []colType, error) {
	input, in, err := p.onlyChild(n)
	if err != nil {
		return nil, nil, err
	}
	conds, types, err := p.exprs(n.Expressions, in)
	if err != nil {
		return nil, nil, err
	}
	var cond *pb.Expression
	switch len(conds) {
	case 0:
		// What is left of a filter whose conditions the optimizer moved
		// into a join: it passes its input through, or only drops columns
		// (its projection map), under an always-true condition.
		if len(n.ProjectionMap) == 0 {
			return input, in, nil
		}
		cond = &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
			LiteralType: &pb.Expression_Literal_Boolean{Boolean: true}}}}
	case 1:
		cond = conds[0]
	default:
		if cond, _, err = p.call(funcRef{urnBoolean, "and:bool", nil}, boolType(anyNullable(types)), valueArgs(conds...)...); err != nil {
			return nil, nil, err
		}
	}
	common, out := emit(nil, 0), in
	if len(n.ProjectionMap) > 0 {
		var mapping []int32
		if mapping, out, err = pick(n.ProjectionMap, in); err != nil {
			return nil, nil, err
		}
		common = emit(mapping, len(in))
	}
	return &pb.Rel{RelType: &pb.Rel_Filter{Filter: &pb.FilterRel{Common: common, Input: input, Condition: cond}}}, out, nil
}

// projection: Substrait's ProjectRel appends its expressions to the input
// columns; the emit keeps only the expressions, as DuckDB's projection does.
func (p *producer) projection(n *duckNode) (*pb.Rel, []colType, error) {
	if sub, x, ok := rowCheckedSubquery(n); ok {
		return p.subqueryValue(sub, x) // producer_subquery.go
	}
	input, in, err := p.onlyChild(n)
	if err != nil {
		return nil, nil, err
	}
	es, out, err := p.exprs(dropDeadSubqueryErrors(n), in)
	if err != nil {
		return nil, nil, err
	}
	mapping := make([]int32, len(es))
	for i := range es {
		mapping[i] = int32(len(in) + i)
	}
	return &pb.Rel{RelType: &pb.Rel_Project{Project: &pb.ProjectRel{
		Common: emit(mapping, len(in)+len(es)), Input: input, Expressions: es,
	}}}, out, nil
}

// aggregate: one grouping set of plain group expressions. Its output is the
// group columns then the aggregates, as in DuckDB.
func (p *producer) aggregate(n *duckNode) (*pb.Rel, []colType, error) {
	if len(n.GroupingFunctions) > 0 || len(n.GroupingSets) > 1 {
		return p.groupingSets(n)
	}
	if len(n.GroupingSets) == 1 {
		set := slices.Clone(n.GroupingSets[0])
		slices.Sort(set)
		set = slices.Compact(set)
		whole := len(set) == len(n.Groups)
		for i, g := range set {
			whole = whole && g == uint64(i)
		}
		if !whole { // one set over part of the groups
			return p.groupingSets(n)
		}
	}
	input, in, err := p.onlyChild(n)
	if err != nil {
		return nil, nil, err
	}
	groups, out, err := p.exprs(n.Groups, in)
	if err != nil {
		return nil, nil, err
	}
	agg := &pb.AggregateRel{Common: emit(nil, 0), Input: input, GroupingExpressions: groups}
	if len(groups) > 0 {
		refs := make([]uint32, len(groups))
		for i := range refs {
			refs[i] = uint32(i)
		}
		agg.Groupings = []*pb.AggregateRel_Grouping{{ExpressionReferences: refs}}
	}
	for _, e := range n.Expressions {
		m, mt, err := p.measure(e, in)
		if err != nil {
			return nil, nil, err
		}
		// FILTER (WHERE cond) is the measure's filter: only rows where
		// cond is true feed the aggregate (NULL counts as false, in both).
		filter, err := p.measureFilter(e, in)
		if err != nil {
			return nil, nil, err
		}
		agg.Measures = append(agg.Measures, &pb.AggregateRel_Measure{Measure: m, Filter: filter})
		out = append(out, mt)
	}
	return &pb.Rel{RelType: &pb.Rel_Aggregate{Aggregate: agg}}, out, nil
}

func (p *producer) measure(e *duckExpr, in []colType) (*pb.AggregateFunction, colType, error) {
	if e.ExpressionClass != "BOUND_AGGREGATE" {
		return nil, colType{}, fmt.Errorf("duckdb plan: aggregate operator expression is %s, not BOUND_AGGREGATE", e.ExpressionClass)
	}
	invocation := pb.AggregateFunction_AGGREGATION_INVOCATION_ALL
	switch e.AggregateType {
	case "NON_DISTINCT":
	case "DISTINCT":
		invocation = pb.AggregateFunction_AGGREGATION_INVOCATION_DISTINCT
	default:
		return nil, colType{}, fmt.Errorf("duckdb plan: aggregate %s of type %q", e.Name, e.AggregateType)
	}
	if len(e.OrderBys) > 0 && string(e.OrderBys) != "null" {
		return nil, colType{}, unsupported("aggregate %s(... ORDER BY ...)", e.Name)
	}
	if e.ReturnType == nil {
		return nil, colType{}, fmt.Errorf("duckdb plan: aggregate %s without a return type", e.Name)
	}
	args, types, err := p.exprs(e.Children, in)
	if err != nil {
		return nil, colType{}, err
	}
	f, err := aggregateRef(e.Name, types)
	if err != nil {
		return nil, colType{}, err
	}
	// count is never null; every other aggregate is null over no rows (or
	// only null inputs).
	out := colType{duck: *e.ReturnType, nullable: e.Name != "count" && e.Name != "count_star"}
	anchor, opts, err := p.reg.aggregate(f)
	if err != nil {
		return nil, out, err
	}
	t, err := substraitType(out)
	if err != nil {
		return nil, out, err
	}
	return &pb.AggregateFunction{
		FunctionReference: anchor,
		Arguments:         valueArgs(args...),
		OutputType:        t,
		Options:           opts,
		Phase:             pb.AggregationPhase_AGGREGATION_PHASE_INITIAL_TO_RESULT,
		Invocation:        invocation,
	}, out, nil
}

// measureFilter converts an aggregate's FILTER (WHERE ...) clause, or
// returns nil when it has none.
func (p *producer) measureFilter(e *duckExpr, in []colType) (*pb.Expression, error) {
	if e.Filter == nil {
		return nil, nil
	}
	f, ft, err := p.expr(e.Filter, in)
	if err != nil {
		return nil, err
	}
	if ft.duck.ID != "BOOLEAN" {
		return nil, fmt.Errorf("duckdb plan: FILTER of aggregate %s is %s, not BOOLEAN", e.Name, ft.duck)
	}
	return f, nil
}

func (p *producer) sortFields(orders []duckOrder, in []colType) ([]*pb.SortField, error) {
	fields := make([]*pb.SortField, len(orders))
	for i, o := range orders {
		e, _, err := p.expr(o.Expression, in)
		if err != nil {
			return nil, err
		}
		var dir pb.SortField_SortDirection
		switch o.Type + "/" + o.NullOrder {
		case "ASCENDING/NULLS FIRST":
			dir = pb.SortField_SORT_DIRECTION_ASC_NULLS_FIRST
		case "ASCENDING/NULLS LAST":
			dir = pb.SortField_SORT_DIRECTION_ASC_NULLS_LAST
		case "DESCENDING/NULLS FIRST":
			dir = pb.SortField_SORT_DIRECTION_DESC_NULLS_FIRST
		case "DESCENDING/NULLS LAST":
			dir = pb.SortField_SORT_DIRECTION_DESC_NULLS_LAST
		default:
			return nil, fmt.Errorf("duckdb plan: sort order %q %q", o.Type, o.NullOrder)
		}
		fields[i] = &pb.SortField{Expr: e, SortKind: &pb.SortField_Direction{Direction: dir}}
	}
	return fields, nil
}

func (p *producer) orderBy(n *duckNode) (*pb.Rel, []colType, error) {
	input, in, err := p.onlyChild(n)
	if err != nil {
		return nil, nil, err
	}
	sorts, err := p.sortFields(n.Orders, in)
	if err != nil {
		return nil, nil, err
	}
	common, out := emit(nil, 0), in
	if len(n.Projections) > 0 {
		var mapping []int32
		if mapping, out, err = pick(n.Projections, in); err != nil {
			return nil, nil, err
		}
		common = emit(mapping, len(in))
	}
	return &pb.Rel{RelType: &pb.Rel_Sort{Sort: &pb.SortRel{Common: common, Input: input, Sorts: sorts}}}, out, nil
}

// fetch wraps input in a FetchRel; count -1 means all rows (substrait-go
// v8.1.1 reads only the offset/count fields, not offset_expr/count_expr).
func fetch(input *pb.Rel, offset, count int64) *pb.Rel {
	return &pb.Rel{RelType: &pb.Rel_Fetch{Fetch: &pb.FetchRel{
		Common:     emit(nil, 0),
		Input:      input,
		OffsetMode: &pb.FetchRel_Offset{Offset: offset},
		CountMode:  &pb.FetchRel_Count{Count: count},
	}}}
}

func (p *producer) topN(n *duckNode) (*pb.Rel, []colType, error) {
	input, in, err := p.onlyChild(n)
	if err != nil {
		return nil, nil, err
	}
	sorts, err := p.sortFields(n.Orders, in)
	if err != nil {
		return nil, nil, err
	}
	if n.Limit == nil || *n.Limit > 1<<62 {
		return nil, nil, fmt.Errorf("duckdb plan: LOGICAL_TOP_N without a valid limit")
	}
	var offset uint64
	if n.Offset != nil {
		offset = *n.Offset
	}
	if offset > 1<<62 {
		return nil, nil, fmt.Errorf("duckdb plan: LOGICAL_TOP_N offset %d out of range", offset)
	}
	sort := &pb.Rel{RelType: &pb.Rel_Sort{Sort: &pb.SortRel{Common: emit(nil, 0), Input: input, Sorts: sorts}}}
	return fetch(sort, int64(offset), int64(*n.Limit)), in, nil
}

func limitValue(v *duckLimitVal, what string) (int64, bool, error) {
	if v == nil || v.Type == "UNSET" {
		return 0, false, nil
	}
	if v.Type != "CONSTANT_VALUE" {
		return 0, false, unsupported("LOGICAL_LIMIT with a %s %s", what, v.Type)
	}
	i, err := strconv.ParseInt(string(v.ConstantInteger), 10, 64)
	if err != nil || i < 0 {
		return 0, false, fmt.Errorf("duckdb plan: LOGICAL_LIMIT %s %q", what, v.ConstantInteger)
	}
	return i, true, nil
}

func (p *producer) limit(n *duckNode) (*pb.Rel, []colType, error) {
	input, in, err := p.onlyChild(n)
	if err != nil {
		return nil, nil, err
	}
	count, hasCount, err := limitValue(n.LimitVal, "limit")
	if err != nil {
		return nil, nil, err
	}
	offset, _, err := limitValue(n.OffsetVal, "offset")
	if err != nil {
		return nil, nil, err
	}
	if !hasCount {
		count = -1
	}
	return fetch(input, offset, count), in, nil
}
