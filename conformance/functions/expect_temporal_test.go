package functions

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// Temporal results compare exactly, whatever the Arrow unit: one
// microsecond off, or a day moved into the nanoseconds part of an
// interval with months, is a mismatch.
func TestMatchTemporalIsExact(t *testing.T) {
	tsb := array.NewTimestampBuilder(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Nanosecond})
	tsb.Append(1483191015_000_001_000)
	ts := tsb.NewArray()
	defer ts.Release()
	lit := func(us int64) *proto.Expression_Literal {
		return &proto.Expression_Literal{LiteralType: &proto.Expression_Literal_Timestamp{Timestamp: us}}
	}
	if ok, _, handled := matchTemporal(lit(1483191015_000_001), ts); !ok || !handled {
		t.Error("equal timestamp in ns and us did not match")
	}
	if ok, _, _ := matchTemporal(lit(1483191015_000_002), ts); ok {
		t.Error("timestamps 1 us apart matched")
	}
	ib := array.NewMonthDayNanoIntervalBuilder(memory.DefaultAllocator)
	ib.Append(arrow.MonthDayNanoInterval{Days: 0, Nanoseconds: 36 * 3600 * 1e9})
	ib.Append(arrow.MonthDayNanoInterval{Months: 1, Days: 1, Nanoseconds: 12 * 3600 * 1e9})
	iv := ib.NewArray()
	defer iv.Release()
	day := &proto.Expression_Literal{LiteralType: &proto.Expression_Literal_IntervalDayToSecond_{
		IntervalDayToSecond: &proto.Expression_Literal_IntervalDayToSecond{Days: 1, Seconds: 12 * 3600}}}
	if ok, _, _ := matchTemporal(day, iv); !ok {
		t.Error("P1DT12H did not match 36 hours")
	}
	second := array.NewSlice(iv, 1, 2)
	defer second.Release()
	if ok, _, _ := matchTemporal(day, second); ok {
		t.Error("an interval with a month matched a day interval")
	}
	if ok, _, handled := matchTemporal(day, ts); ok || !handled {
		t.Error("a timestamp matched an interval literal")
	}
}
