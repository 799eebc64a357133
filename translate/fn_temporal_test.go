package translate

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/physical"
	"github.com/rigel-db/rigel/substrait"
)

// temporalPlan projects call(ts, interval) over a one-row VirtualTable
// whose columns are the literals given.
func temporalPlan(t *testing.T, name string, a, b expr.Literal) (*substrait.Plan, error) {
	t.Helper()
	bld := plan.NewBuilderDefault()
	vt, err := bld.VirtualTable([]string{"a", "b"}, expr.StructLiteralValue{a, b})
	if err != nil {
		t.Fatal(err)
	}
	ra, _ := bld.RootFieldRef(vt, 0)
	rb, _ := bld.RootFieldRef(vt, 1)
	f, err := expr.NewScalarFunc(bld.GetExprBuilder().Reg,
		extensions.ID{URN: "extension:io.substrait:functions_datetime", Name: name}, nil, ra, rb)
	if err != nil {
		return nil, err
	}
	proj, err := bld.ProjectRemap(vt, []int32{2}, f)
	if err != nil {
		t.Fatal(err)
	}
	p, err := bld.Plan(proj, []string{"r"})
	if err != nil {
		t.Fatal(err)
	}
	pb, err := p.ToProto()
	if err != nil {
		t.Fatal(err)
	}
	return substrait.Load(pb)
}

func mustLit[T interface {
	types.Timestamp | types.TimestampTz | *types.IntervalYearToMonth | *types.IntervalDayToSecond
}](t *testing.T, v T) expr.Literal {
	t.Helper()
	l, err := expr.NewLiteral(v, false)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// subtract(timestamp, interval_year) before the epoch keeps the time of
// day and clamps the day; add(timestamp, interval_day) is exact to the
// microsecond.
func TestTimestampArithmetic(t *testing.T) {
	// 1968-03-31 23:59:59.999999
	ts := types.Timestamp(-55296000000000 - 1)
	for _, c := range []struct {
		name string
		iv   expr.Literal
		want int64
	}{
		// minus 1 month: 1968-02-29 23:59:59.999999 (1968 is a leap year)
		{"subtract:ts_iyear", mustLit(t, &types.IntervalYearToMonth{Months: 1}), -55296000000000 - 1 - 31*86400_000000},
		// plus 1 day 1.5 s
		{"add:ts_iday", mustLit(t, &types.IntervalDayToSecond{Days: 1, Seconds: 1,
			PrecisionMode: &proto.Expression_Literal_IntervalDayToSecond_Precision{Precision: 6}, Subseconds: 500000}),
			-55296000000000 - 1 + 86401_500000},
	} {
		loaded, err := temporalPlan(t, c.name, mustLit(t, ts), c.iv)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		root, err := Translate(loaded)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		x := &physical.Executor{Dev: host.New(), Source: noSource{}, Cache: physical.NewColumnCache()}
		rec, _, err := x.Run(context.Background(), root, []string{"r"})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		a, ok := rec.Column(0).(*array.Timestamp)
		if !ok || a.DataType().(*arrow.TimestampType).Unit != arrow.Microsecond || int64(a.Value(0)) != c.want {
			t.Errorf("%s: %s %v, want timestamp[us] %d", c.name, rec.Column(0).DataType(), rec.Column(0), c.want)
		}
		rec.Release()
	}
}

// Calendar arithmetic on timestamps with time zone depends on the zone:
// refused, not computed as UTC.
func TestTimestampTzArithmeticRefused(t *testing.T) {
	loaded, err := temporalPlan(t, "add:tstz_iday", mustLit(t, types.TimestampTz(0)),
		mustLit(t, &types.IntervalDayToSecond{Days: 1}))
	if err != nil {
		t.Skipf("substrait-go cannot build add(timestamp_tz, interval_day): %v", err)
	}
	if _, err := Translate(loaded); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("add(timestamp_tz, interval_day): %v, want ErrUnsupported", err)
	}
}
