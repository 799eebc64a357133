package functions

import (
	"fmt"
	"sync"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/functions"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/testcases/parser"
	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// The function registry is read-only after construction and costly to
// build (it indexes every extension file), so all cases share one.
var (
	funcRegOnce sync.Once
	funcReg     functions.FunctionRegistry
)

func functionRegistry() functions.FunctionRegistry {
	funcRegOnce.Do(func() {
		funcReg = functions.NewFunctionRegistry(extensions.GetDefaultCollectionWithNoError())
	})
	return funcReg
}

// built is a case turned into a Substrait plan.
type built struct {
	plan *proto.Plan
	fn   extensions.ID // the function variant the plan calls
}

// buildPlan turns a case into a protobuf plan, as a producer would send it.
func buildPlan(tc *parser.TestCase) (*built, error) {
	switch tc.FuncType {
	case parser.ScalarFuncType:
		return buildScalar(tc)
	case parser.AggregateFuncType:
		return buildAggregate(tc)
	}
	return nil, fmt.Errorf("function type %q is not a scalar or aggregate test", tc.FuncType)
}

// buildScalar puts the literal arguments in a one-row VirtualTable and
// projects the call over references to its columns, so that the engine
// evaluates the function in a kernel rather than folding constants. Enum
// arguments (extract's YEAR, ...) stay in the call: they are not values.
func buildScalar(tc *parser.TestCase) (*built, error) {
	b := plan.NewBuilderDefault()
	reg := b.GetExprBuilder().Reg
	inv, err := tc.GetScalarFunctionInvocation(&reg, functionRegistry())
	if err != nil {
		return nil, fmt.Errorf("resolve the function: %w", err)
	}
	var (
		row     expr.StructLiteralValue
		names   []string
		litArgs []int // argument position of each VirtualTable column
	)
	for i, a := range tc.Args {
		if lit, ok := a.Value.(expr.Literal); ok {
			row = append(row, lit)
			names = append(names, fmt.Sprintf("arg%d", i))
			litArgs = append(litArgs, i)
		}
	}
	if len(row) == 0 {
		// A pipeline learns its row count from its input columns: give the
		// table one column even when the call takes none.
		row = append(row, expr.NewPrimitiveLiteral[int32](0, false))
		names = append(names, "row")
	}
	vt, err := b.VirtualTable(names, row)
	if err != nil {
		return nil, fmt.Errorf("argument table: %w", err)
	}
	args := make([]types.FuncArg, len(tc.Args))
	for i, a := range tc.Args {
		args[i] = a.Value
	}
	for col, i := range litArgs {
		ref, err := b.RootFieldRef(vt, int32(col))
		if err != nil {
			return nil, fmt.Errorf("argument %d: %w", i, err)
		}
		args[i] = ref
	}
	call, err := expr.NewScalarFunc(reg, inv.ID(), tc.GetFunctionOptions(), args...)
	if err != nil {
		return nil, fmt.Errorf("call over the argument table: %w", err)
	}
	// Emit only the call's column: the project's output is the table's
	// columns followed by the call.
	proj, err := b.ProjectRemap(vt, []int32{int32(len(row))}, call)
	if err != nil {
		return nil, fmt.Errorf("project: %w", err)
	}
	return finishPlan(b, proj, inv.ID())
}

// buildAggregate puts the case's columns in a VirtualTable (empty when the
// case aggregates no rows) and aggregates them without grouping.
func buildAggregate(tc *parser.TestCase) (*built, error) {
	b := plan.NewBuilderDefault()
	reg := b.GetExprBuilder().Reg
	data, err := tc.GetAggregateColumnsData()
	if err != nil {
		return nil, fmt.Errorf("columns: %w", err)
	}
	cols, err := aggregateColumns(tc, data)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(cols))
	colTypes := make([]types.Type, len(cols))
	for i, c := range cols {
		names[i] = fmt.Sprintf("col%d", i)
		colTypes[i] = c.typ
	}
	nrows := len(cols[0].values)
	var vt *plan.VirtualTableReadRel
	if nrows == 0 {
		vt, err = b.EmptyVirtualTable(names, colTypes)
	} else {
		rows := make([]expr.StructLiteralValue, nrows)
		for r := range rows {
			rows[r] = make(expr.StructLiteralValue, len(cols))
			for j, c := range cols {
				if len(c.values) != nrows {
					return nil, fmt.Errorf("column %d has %d values, column 0 has %d", j, len(c.values), nrows)
				}
				rows[r][j] = c.values[r]
			}
		}
		vt, err = b.VirtualTable(names, rows...)
	}
	if err != nil {
		return nil, fmt.Errorf("input table: %w", err)
	}
	args := make([]types.FuncArg, len(tc.AggregateArgs))
	for i, a := range tc.AggregateArgs {
		if a.IsScalar {
			args[i] = a.Argument.Value
			continue
		}
		pos := -1
		for j, c := range cols {
			if (c.arg >= 0 && c.arg == i) || (c.arg < 0 && c.source == int(a.ColumnIndex)) {
				pos = j
				break
			}
		}
		if pos < 0 {
			return nil, fmt.Errorf("argument %d: no column in the input table", i)
		}
		ref, err := b.RootFieldRef(vt, int32(pos))
		if err != nil {
			return nil, fmt.Errorf("argument %d: %w", i, err)
		}
		args[i] = ref
	}
	call, err := aggregateCall(reg, tc, args)
	if err != nil {
		return nil, fmt.Errorf("resolve the function: %w", err)
	}
	agg, err := b.AggregateColumns(vt, []plan.AggRelMeasure{b.Measure(call, nil)})
	if err != nil {
		return nil, fmt.Errorf("aggregate: %w", err)
	}
	return finishPlan(b, agg, call.ID())
}

func finishPlan(b plan.Builder, root plan.Rel, fn extensions.ID) (*built, error) {
	p, err := b.Plan(root, []string{"result"})
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	pb, err := p.ToProto()
	if err != nil {
		return nil, fmt.Errorf("plan to protobuf: %w", err)
	}
	return &built{plan: pb, fn: fn}, nil
}

// aggregateCall resolves the aggregate over the plan's own arguments, as
// TestCase.GetAggregateFunctionInvocation does (exact signature first, then
// a variant with "any" parameters from the same extension). That method is
// not used: it builds field references against a schema of one column per
// argument, which panics for a table case that aggregates col1.
func aggregateCall(reg expr.ExtensionRegistry, tc *parser.TestCase, args []types.FuncArg) (*expr.AggregateFunction, error) {
	id := tc.ID()
	call, err := expr.NewAggregateFunc(reg, id, tc.GetFunctionOptions(),
		types.AggInvocationAll, types.AggPhaseInitialToResult, nil, args...)
	if err == nil {
		return call, nil
	}
	for _, f := range functionRegistry().GetAggregateFunctions(tc.FuncName, len(args)) {
		if ok, merr := f.Match(tc.GetArgTypes()); merr == nil && ok && f.ID().URN == id.URN {
			return expr.NewAggregateFunc(reg, f.ID(), tc.GetFunctionOptions(),
				types.AggInvocationAll, types.AggPhaseInitialToResult, nil, args...)
		}
	}
	return nil, err
}

// column is one column of an aggregate case's input table.
type column struct {
	typ    types.Type
	values []expr.Literal
	// arg is the aggregate argument it feeds in the one-column-per-argument
	// form (-1 otherwise); source is its index in the case's table in the
	// table forms (-1 otherwise).
	arg, source int
}

// aggregateColumns picks the columns the aggregate's arguments read: in the
// single-argument form, one per argument; in the table forms, the table's
// columns that an argument names (unreferenced columns have no type).
func aggregateColumns(tc *parser.TestCase, data [][]expr.Literal) ([]column, error) {
	var cols []column
	if len(tc.Columns) == 0 {
		for i, a := range tc.AggregateArgs {
			if a.IsScalar {
				continue
			}
			if i >= len(data) {
				return nil, fmt.Errorf("argument %d has no column data", i)
			}
			cols = append(cols, column{typ: a.ColumnType, values: data[i], arg: i, source: -1})
		}
	} else {
		seen := map[int]bool{}
		for _, a := range tc.AggregateArgs {
			if a.IsScalar || seen[int(a.ColumnIndex)] {
				continue
			}
			idx := int(a.ColumnIndex)
			if idx < 0 || idx >= len(data) {
				return nil, fmt.Errorf("argument column %d out of range (%d columns)", idx, len(data))
			}
			seen[idx] = true
			t := a.ColumnType
			if idx < len(tc.ColumnTypes) && tc.ColumnTypes[idx] != nil {
				t = tc.ColumnTypes[idx]
			}
			cols = append(cols, column{typ: t, values: data[idx], arg: -1, source: idx})
		}
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("the aggregate reads no column (count(*) form is not built yet)")
	}
	for j := range cols {
		if cols[j].typ == nil {
			return nil, fmt.Errorf("column %d has no type", j)
		}
		// A copy: the parsed case is left as the parser made it.
		values := make([]expr.Literal, len(cols[j].values))
		for r, v := range cols[j].values {
			lit, err := retype(v, cols[j].typ)
			if err != nil {
				return nil, fmt.Errorf("column %d row %d: %w", j, r, err)
			}
			values[r] = lit
		}
		cols[j].values = values
	}
	return cols, nil
}

// retype gives a cell its column's type: the parser leaves the non-null
// cells of a column holding nulls typed non-nullable, which VirtualTable
// refuses (every row must have the same types).
func retype(l expr.Literal, t types.Type) (expr.Literal, error) {
	if l == nil {
		return nil, fmt.Errorf("no value")
	}
	if l.GetType().Equals(t) {
		return l, nil
	}
	if _, ok := l.(*expr.NullLiteral); ok {
		return expr.NewNullLiteral(t), nil
	}
	p := l.ToProtoLiteral()
	p.Nullable = t.GetNullability() == types.NullabilityNullable
	out := expr.LiteralFromProto(p)
	if out != nil && !out.GetType().Equals(t) {
		if wt, ok := out.(expr.WithTypeLiteral); ok {
			if w, err := wt.WithType(t); err == nil {
				out = w
			}
		}
	}
	if out == nil || !out.GetType().Equals(t) {
		return nil, fmt.Errorf("value %s of type %s does not fit column type %s", l, l.GetType(), t)
	}
	return out, nil
}
