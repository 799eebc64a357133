package translate

import (
	"fmt"
	"github.com/rigel-db/rigel/substrait"
	"math"
	"math/big"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/rigel-db/rigel/gpu"
)

// Timestamps, times and intervals. The device has no kinds for them (an
// API gap of gpu.Kind, reported): inside a plan they are carried as Int64
// in the units of their Substrait type, which is enough for every
// operation whose answer does not depend on the unit (comparison, sort,
// join and group keys, min/max) and for the datetime functions below, which
// read the unit from the argument's Substrait type:
//   - timestamp, timestamp_tz, time: microseconds (since the epoch, since
//     midnight); their precision_ forms: 10^-P seconds;
//   - interval_day<P>: the whole interval in 10^-P seconds (6 when unset);
//   - interval_year: months.
//
// Such a value must never leave the plan as an Int64 or meet an operation
// that reads it as a number: a plan whose output holds one ends in a
// physical.Retype that gives it its Arrow type (retype_temporal.go; a
// split plan is refused, refuseTemporalOutput), casts of them are refused,
// and literals of these types are refused everywhere but in VirtualTables
// (values()).

// temporal describes a temporal Substrait type.
type temporal struct {
	class  temporalClass
	perSec int64 // units per second (timestamps, times, day intervals)
	tz     bool
}

type temporalClass uint8

const (
	tsClass temporalClass = iota + 1
	timeClass
	idayClass
	iyearClass
)

func pow10(p int32) (int64, bool) {
	if p < 0 || p > 12 {
		return 0, false
	}
	v := int64(1)
	for i := int32(0); i < p; i++ {
		v *= 10
	}
	return v, true
}

// temporalOf reports whether t is a temporal type the Int64 carriage holds.
func temporalOf(t types.Type) (temporal, bool) {
	if t == nil {
		return temporal{}, false
	}
	var p int32 = 6
	var out temporal
	tp, err := substrait.TypeProto(t)
	if err != nil {
		return temporal{}, false
	}
	switch k := tp.Kind.(type) {
	case *proto.Type_Timestamp_:
		out = temporal{class: tsClass}
	case *proto.Type_TimestampTz:
		out = temporal{class: tsClass, tz: true}
	case *proto.Type_PrecisionTimestamp_:
		out, p = temporal{class: tsClass}, k.PrecisionTimestamp.GetPrecision()
	case *proto.Type_PrecisionTimestampTz:
		out, p = temporal{class: tsClass, tz: true}, k.PrecisionTimestampTz.GetPrecision()
	case *proto.Type_Time_:
		out = temporal{class: timeClass}
	case *proto.Type_PrecisionTime_:
		out, p = temporal{class: timeClass}, k.PrecisionTime.GetPrecision()
	case *proto.Type_IntervalDay_:
		out = temporal{class: idayClass}
		if k.IntervalDay.Precision != nil {
			p = k.IntervalDay.GetPrecision()
		}
	case *proto.Type_IntervalYear_:
		return temporal{class: iyearClass}, true
	default:
		return temporal{}, false
	}
	per, ok := pow10(p)
	if !ok {
		return temporal{}, false
	}
	out.perSec = per
	return out, true
}

// rescale converts v from 10^-from to 10^-to units; exact only when
// to >= from (the caller refuses the other direction).
func rescale(v, fromPer, toPer int64) (int64, error) {
	if fromPer == toPer {
		return v, nil
	}
	if toPer < fromPer || toPer%fromPer != 0 {
		return 0, unsupported("a temporal literal more precise than its type")
	}
	f := toPer / fromPer
	if v > math.MaxInt64/f || v < math.MinInt64/f {
		return 0, fmt.Errorf("temporal literal %d out of range", v)
	}
	return v * f, nil
}

func rescaled(v int64, err error) (int64, bool, error) { return v, false, err }

// temporalValue reads a literal of temporal type tt in the carriage units.
func temporalValue(l expr.Literal, tt temporal) (v int64, null bool, err error) {
	switch x := literalProto(l).LiteralType.(type) {
	case *proto.Expression_Literal_Null:
		return 0, true, nil
	case *proto.Expression_Literal_Timestamp:
		return rescaled(rescale(x.Timestamp, 1e6, tt.perSec))
	case *proto.Expression_Literal_TimestampTz:
		return rescaled(rescale(x.TimestampTz, 1e6, tt.perSec))
	case *proto.Expression_Literal_Time:
		return rescaled(rescale(x.Time, 1e6, tt.perSec))
	case *proto.Expression_Literal_PrecisionTimestamp_:
		per, _ := pow10(x.PrecisionTimestamp.GetPrecision())
		return rescaled(rescale(x.PrecisionTimestamp.GetValue(), per, tt.perSec))
	case *proto.Expression_Literal_PrecisionTimestampTz:
		per, _ := pow10(x.PrecisionTimestampTz.GetPrecision())
		return rescaled(rescale(x.PrecisionTimestampTz.GetValue(), per, tt.perSec))
	case *proto.Expression_Literal_PrecisionTime_:
		per, _ := pow10(x.PrecisionTime.GetPrecision())
		return rescaled(rescale(x.PrecisionTime.GetValue(), per, tt.perSec))
	case *proto.Expression_Literal_IntervalYearToMonth_:
		m := int64(x.IntervalYearToMonth.GetYears())*12 + int64(x.IntervalYearToMonth.GetMonths())
		return m, false, nil
	case *proto.Expression_Literal_IntervalDayToSecond_:
		d := x.IntervalDayToSecond
		sub, subPer := int64(d.GetMicroseconds()), int64(1e6)
		if _, ok := d.GetPrecisionMode().(*proto.Expression_Literal_IntervalDayToSecond_Precision); ok {
			sub = d.GetSubseconds()
			per, ok := pow10(d.GetPrecision())
			if !ok {
				return 0, false, fmt.Errorf("interval literal with precision %d", d.GetPrecision())
			}
			subPer = per
		}
		total := new(big.Int).Mul(big.NewInt(int64(d.GetDays())*86400+int64(d.GetSeconds())), big.NewInt(subPer))
		total.Add(total, big.NewInt(sub))
		if !total.IsInt64() {
			return 0, false, fmt.Errorf("interval literal out of range")
		}
		v, err := rescale(total.Int64(), subPer, tt.perSec)
		return v, false, err
	}
	return 0, false, unsupported(fmt.Sprintf("literal %s as %v", l, tt))
}

// valuesTemporal gives a VirtualTable column of temporal type its Int64
// carriage (ok false: not a temporal type).
func valuesTemporal(ft types.Type) (gpu.Type, bool) {
	if _, ok := temporalOf(ft); !ok {
		return gpu.Type{}, false
	}
	return gpu.Type{Kind: gpu.Int64, Nullable: ft.GetNullability() != types.NullabilityRequired}, true
}

// valuesTemporalCell reads one VirtualTable cell of a temporal column.
func valuesTemporalCell(e expr.Expression, ft types.Type) (gpu.Value, bool, error) {
	tt, ok := temporalOf(ft)
	if !ok {
		return gpu.Value{}, false, nil
	}
	l, isLit := e.(expr.Literal)
	if !isLit {
		return gpu.Value{}, true, unsupported("VirtualTable with non-literal values")
	}
	v, null, err := temporalValue(l, tt)
	return gpu.Value{I64: v, Null: null}, true, err
}

// refuseTemporalOutput refuses a plan whose result holds a timestamp, time
// or interval: on the device it is an Int64 that would reach the caller as
// one.
func refuseTemporalOutput(root plan.Rel) error {
	if root == nil {
		return nil
	}
	for i, t := range root.RecordType().Types() {
		if _, ok := temporalOf(t); ok {
			return unsupported(fmt.Sprintf("result column %d of type %s (no device type for timestamps, times and intervals)", i, t))
		}
	}
	return nil
}

// refuseTemporalCast refuses a cast of a timestamp, time or interval, whose
// Int64 carriage the cast would read as a number.
func refuseTemporalCast(c *expr.Cast) error {
	if _, ok := temporalOf(c.Input.GetType()); ok {
		return unsupported(fmt.Sprintf("cast of %s to %s", c.Input.GetType(), c.Type))
	}
	return nil
}
