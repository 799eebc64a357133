package functions

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// Timestamps, times and intervals in rigel's results (physical.Retype): a
// timestamp of precision P is an Arrow timestamp of the coarsest unit that
// holds P (s, ms, us, ns; timestamp_tz in UTC), a time a time64 (us up to
// precision 6, else ns), interval_day a month_day_nano interval (no
// months), interval_year a month interval. Values compare exactly, as
// counts of nanoseconds (months for interval_year).

func unitFor(p int32) (arrow.TimeUnit, bool) {
	switch {
	case p < 0 || p > 9:
		return 0, false
	case p == 0:
		return arrow.Second, true
	case p <= 3:
		return arrow.Millisecond, true
	case p <= 6:
		return arrow.Microsecond, true
	}
	return arrow.Nanosecond, true
}

// temporalArrowType is arrowTypeFor's answer for temporal types (ok false:
// not one, or one rigel has no result form of).
func temporalArrowType(t types.Type) (arrow.DataType, bool) {
	ts := func(p int32, tz string) (arrow.DataType, bool) {
		u, ok := unitFor(p)
		if !ok {
			return nil, false
		}
		return &arrow.TimestampType{Unit: u, TimeZone: tz}, true
	}
	switch k := types.TypeToProto(t).Kind.(type) {
	case *proto.Type_Timestamp_:
		return ts(6, "")
	case *proto.Type_TimestampTz:
		return ts(6, "UTC")
	case *proto.Type_PrecisionTimestamp_:
		return ts(k.PrecisionTimestamp.GetPrecision(), "")
	case *proto.Type_PrecisionTimestampTz:
		return ts(k.PrecisionTimestampTz.GetPrecision(), "UTC")
	case *proto.Type_Time_:
		return arrow.FixedWidthTypes.Time64us, true
	case *proto.Type_PrecisionTime_:
		switch p := k.PrecisionTime.GetPrecision(); {
		case p >= 0 && p <= 6:
			return arrow.FixedWidthTypes.Time64us, true
		case p <= 9:
			return arrow.FixedWidthTypes.Time64ns, true
		}
	case *proto.Type_IntervalDay_:
		if p := k.IntervalDay.GetPrecision(); p >= 0 && p <= 9 {
			return arrow.FixedWidthTypes.MonthDayNanoInterval, true
		}
	case *proto.Type_IntervalYear_:
		return arrow.FixedWidthTypes.MonthInterval, true
	}
	return nil, false
}

// nanosOf is a count of 1/10^p seconds in nanoseconds (p <= 9).
func nanosOf(v int64, p int32) *big.Int {
	n := big.NewInt(v)
	for ; p < 9; p++ {
		n.Mul(n, big.NewInt(10))
	}
	return n
}

func unitNanos(u arrow.TimeUnit) int32 {
	return map[arrow.TimeUnit]int32{arrow.Second: 0, arrow.Millisecond: 3, arrow.Microsecond: 6, arrow.Nanosecond: 9}[u]
}

// gotNanos reads row 0 of a timestamp or time64 column in nanoseconds.
func gotNanos(arr arrow.Array) (*big.Int, bool) {
	switch a := arr.(type) {
	case *array.Timestamp:
		return nanosOf(int64(a.Value(0)), unitNanos(a.DataType().(*arrow.TimestampType).Unit)), true
	case *array.Time64:
		return nanosOf(int64(a.Value(0)), unitNanos(a.DataType().(*arrow.Time64Type).Unit)), true
	}
	return nil, false
}

// matchTemporal is matchValue for temporal literals (handled false: lit is
// not one).
func matchTemporal(lit *proto.Expression_Literal, arr arrow.Array) (ok bool, want string, handled bool) {
	instant := func(v int64, p int32) (bool, string, bool) {
		w := nanosOf(v, p)
		g, isInstant := gotNanos(arr)
		return isInstant && g.Cmp(w) == 0, fmt.Sprintf("%s ns", w), true
	}
	switch x := lit.LiteralType.(type) {
	case *proto.Expression_Literal_Timestamp:
		return instant(x.Timestamp, 6)
	case *proto.Expression_Literal_TimestampTz:
		return instant(x.TimestampTz, 6)
	case *proto.Expression_Literal_Time:
		return instant(x.Time, 6)
	case *proto.Expression_Literal_PrecisionTimestamp_:
		return instant(x.PrecisionTimestamp.GetValue(), x.PrecisionTimestamp.GetPrecision())
	case *proto.Expression_Literal_PrecisionTimestampTz:
		return instant(x.PrecisionTimestampTz.GetValue(), x.PrecisionTimestampTz.GetPrecision())
	case *proto.Expression_Literal_PrecisionTime_:
		return instant(x.PrecisionTime.GetValue(), x.PrecisionTime.GetPrecision())
	case *proto.Expression_Literal_IntervalYearToMonth_:
		w := int64(x.IntervalYearToMonth.GetYears())*12 + int64(x.IntervalYearToMonth.GetMonths())
		a, isMonths := arr.(*array.MonthInterval)
		return isMonths && int64(a.Value(0)) == w, fmt.Sprintf("%d months", w), true
	case *proto.Expression_Literal_IntervalDayToSecond_:
		d := x.IntervalDayToSecond
		sub, p := int64(d.GetMicroseconds()), int32(6)
		if _, isP := d.GetPrecisionMode().(*proto.Expression_Literal_IntervalDayToSecond_Precision); isP {
			sub, p = d.GetSubseconds(), d.GetPrecision()
		}
		if p < 0 || p > 9 {
			return false, fmt.Sprintf("an interval of precision %d", p), true
		}
		w := nanosOf(int64(d.GetDays())*86400+int64(d.GetSeconds()), 0)
		w.Add(w, nanosOf(sub, p))
		a, isMDN := arr.(*array.MonthDayNanoInterval)
		if !isMDN {
			return false, fmt.Sprintf("%s ns", w), true
		}
		v := a.Value(0)
		g := nanosOf(int64(v.Days)*86400, 0)
		g.Add(g, big.NewInt(v.Nanoseconds))
		return v.Months == 0 && g.Cmp(w) == 0, fmt.Sprintf("%s ns", w), true
	}
	return false, "", false
}
