package fallback_test

import (
	"context"
	"testing"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	pb "google.golang.org/protobuf/proto"
)

// A projection with window functions (a ranking function and an aggregate
// over a RANGE frame with an offset under a descending order, which the
// device cannot run) falls back with its read, and gives DuckDB's answer
// to the same SQL.
func TestWindowFunctionsFallBack(t *testing.T) {
	eng := tpchEngine(t)
	b := plan.NewBuilderDefault()
	req := types.NullabilityRequired
	scan := b.NamedScan([]string{"nation"}, types.NamedStruct{
		Names: []string{"n_nationkey", "n_name", "n_regionkey", "n_comment"},
		Struct: types.StructType{Nullability: req, Types: []types.Type{
			&types.Int32Type{Nullability: req}, &types.StringType{Nullability: req},
			&types.Int32Type{Nullability: req}, &types.StringType{Nullability: types.NullabilityNullable}}},
	})
	eb := b.GetExprBuilder()
	rt := scan.RecordType()
	eb.BaseSchema = &rt
	key := eb.RootRef(expr.NewStructFieldRef(0))
	region := eb.RootRef(expr.NewStructFieldRef(2))
	keyExpr, err := key.BuildExpr()
	if err != nil {
		t.Fatal(err)
	}
	arith := extensions.SubstraitDefaultURNPrefix + "functions_arithmetic"
	rowNumber, err := eb.WindowFunc(extensions.ID{URN: arith, Name: "row_number"}).Phase(types.AggPhaseInitialToResult).
		Partitions(region).Sort(expr.SortField{Expr: keyExpr, Kind: types.SortDescNullsLast}).Build()
	if err != nil {
		t.Fatal(err)
	}
	running, err := eb.WindowFunc(extensions.ID{URN: arith, Name: "sum:i32"}).Args(key).Phase(types.AggPhaseInitialToResult).
		Partitions(region).Sort(expr.SortField{Expr: keyExpr, Kind: types.SortDescNullsLast}).
		Bounds(expr.PrecedingBound(2), expr.CurrentRow{}).BoundsType(types.BoundsTypeRange).Build()
	if err != nil {
		t.Fatal(err)
	}
	proj, err := b.ProjectRemap(scan, []int32{0, 4, 5}, rowNumber, running)
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.Plan(proj, []string{"k", "rn", "running"})
	if err != nil {
		t.Fatal(err)
	}
	pp, err := p.ToProto()
	if err != nil {
		t.Fatal(err)
	}
	data, err := pb.Marshal(pp)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := eng.RunPlan(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	if res.Where != duckdbbridge.OnHost || res.Reason == "" {
		t.Fatalf("ran on %s (%q), want a device plan with a DuckDB subtree", res.Where, res.Reason)
	}
	oracle, err := eng.RunOnDuckDB(ctx, `SELECT n_nationkey, row_number() OVER (PARTITION BY n_regionkey ORDER BY n_nationkey DESC),
		sum(n_nationkey) OVER (PARTITION BY n_regionkey ORDER BY n_nationkey DESC RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) FROM nation`)
	if err != nil {
		t.Fatal(err)
	}
	defer oracle.Release()
	if err := sameValues(res.Record, oracle.Record, false); err != nil {
		t.Fatalf("%v\n%s", err, res.Plan)
	}
}
