package physical

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
)

// A Retype root gives the downloaded Int64 columns their Arrow types, above
// a Slice, and leaves other columns alone.
func TestRetypeGivesArrowTypes(t *testing.T) {
	i64 := gpu.Type{Kind: gpu.Int64, Nullable: true}
	const day = int64(86400)
	vals := &Values{Types: []gpu.Type{i64, i64, i64, i64, i64, i64}, Rows: [][]gpu.Value{
		{{I64: 1}, {I64: 1}, {I64: 1}, {I64: day*1000 + 1500}, {I64: -13}, {I64: 7}},
		{{I64: 1483191015}, {I64: 3_723_000_001}, {I64: 12}, {I64: -(day*1000 + 1500)}, {I64: 25}, {Null: true}},
	}}
	cols := []RetypeCol{
		{Kind: RetypeTimestamp, PerSec: 1},
		{Kind: RetypeTime, PerSec: 1_000_000},
		{Kind: RetypeTimestamp, PerSec: 10_000, TZ: true}, // precision 4: microseconds
		{Kind: RetypeDayTime, PerSec: 1000},
		{Kind: RetypeMonths},
		{Kind: RetypeNone},
	}
	root := &Retype{Input: &Slice{Input: vals, Offset: 0, Count: -1}, Cols: cols}
	x := &Executor{Dev: host.New(), Source: &memSource{}, Cache: NewColumnCache()}
	rec, _, err := x.Run(context.Background(), root, []string{"a", "b", "c", "d", "e", "f"})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	wantTypes := []arrow.DataType{
		&arrow.TimestampType{Unit: arrow.Second}, arrow.FixedWidthTypes.Time64us,
		&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
		arrow.FixedWidthTypes.MonthDayNanoInterval, arrow.FixedWidthTypes.MonthInterval, arrow.PrimitiveTypes.Int64,
	}
	for i, w := range wantTypes {
		if !arrow.TypeEqual(rec.Column(i).DataType(), w) {
			t.Errorf("column %d: type %s, want %s", i, rec.Column(i).DataType(), w)
		}
	}
	if v := rec.Column(0).(*array.Timestamp).Value(1); v != 1483191015 {
		t.Errorf("timestamp: %d", v)
	}
	if v := rec.Column(1).(*array.Time64).Value(1); v != 3_723_000_001 {
		t.Errorf("time: %d", v)
	}
	if v := rec.Column(2).(*array.Timestamp).Value(1); v != 1200 {
		t.Errorf("precision-4 timestamp in us: %d, want 1200", v)
	}
	iv := rec.Column(3).(*array.MonthDayNanoInterval)
	if v := iv.Value(0); v != (arrow.MonthDayNanoInterval{Days: 1, Nanoseconds: 1_500_000_000}) {
		t.Errorf("interval: %+v", v)
	}
	if v := iv.Value(1); v != (arrow.MonthDayNanoInterval{Days: -1, Nanoseconds: -1_500_000_000}) {
		t.Errorf("negative interval: %+v, want both parts negative", v)
	}
	if v := rec.Column(4).(*array.MonthInterval).Value(0); v != -13 {
		t.Errorf("months: %d", v)
	}
	if !rec.Column(5).IsNull(1) || rec.Column(5).(*array.Int64).Value(0) != 7 {
		t.Errorf("untouched column changed")
	}
}

// A value the Arrow unit cannot hold is an overflow error, and a precision
// beyond nanoseconds is refused before running.
func TestRetypeRefuses(t *testing.T) {
	if err := (RetypeCol{Kind: RetypeTimestamp, PerSec: 1e12}).Validate(); err == nil {
		t.Error("precision 12 accepted")
	}
	i64 := gpu.Type{Kind: gpu.Int64}
	vals := &Values{Types: []gpu.Type{i64}, Rows: [][]gpu.Value{{{I64: 1 << 62}}}}
	root := &Retype{Input: vals, Cols: []RetypeCol{{Kind: RetypeTimestamp, PerSec: 10}}}
	x := &Executor{Dev: host.New(), Source: &memSource{}, Cache: NewColumnCache()}
	_, _, err := x.Run(context.Background(), root, []string{"a"})
	if !errors.Is(err, gpu.ErrOverflow) {
		t.Errorf("got %v, want an overflow", err)
	}
	below := &Slice{Input: &Retype{Input: vals, Cols: []RetypeCol{{Kind: RetypeMonths}}}, Count: -1}
	_, _, err = x.Run(context.Background(), below, []string{"a"})
	if !errors.Is(err, gpu.ErrUnsupported) || !strings.Contains(err.Error(), "retype") {
		t.Errorf("retype below the root: %v", err)
	}
}
