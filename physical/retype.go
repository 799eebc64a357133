package physical

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
)

// Timestamps, times and intervals have no gpu.Kind: the device computes
// them as Int64 counts of their Substrait unit (translate/temporal.go).
// Retype, the root of such a plan, gives the downloaded Int64 columns their
// Arrow types when the result is handed over; like Slice it is bookkeeping
// on the Arrow batch, not device work.

// RetypeKind says what a result column's Int64 values count.
type RetypeKind uint8

const (
	RetypeNone      RetypeKind = iota // left as it is
	RetypeTimestamp                   // 1/PerSec seconds since 1970-01-01 00:00:00 UTC
	RetypeTime                        // 1/PerSec seconds since midnight
	RetypeDayTime                     // interval_day: 1/PerSec seconds
	RetypeMonths                      // interval_year: months
)

// RetypeCol describes one result column; PerSec is 10^P for P in 0..9
// (timestamps, times and day intervals); TZ marks a timestamp with time
// zone (UTC instants).
type RetypeCol struct {
	Kind   RetypeKind
	PerSec int64
	TZ     bool
}

// Retype gives its input's Int64 columns the Arrow types Cols describe. It
// is only valid at the root of a plan (above a Slice, if any).
type Retype struct {
	Input Node
	Cols  []RetypeCol
}

func (r *Retype) OutputTypes() []gpu.Type { return r.Input.OutputTypes() }
func (r *Retype) Children() []Node        { return []Node{r.Input} }
func (r *Retype) Describe() string {
	parts := make([]string, len(r.Cols))
	for i, c := range r.Cols {
		t, err := c.ArrowType()
		switch {
		case c.Kind == RetypeNone:
			parts[i] = "-"
		case err != nil:
			parts[i] = "?"
		default:
			parts[i] = t.String()
		}
	}
	return "Retype [" + strings.Join(parts, ", ") + "]"
}

// Validate reports a column spec the result cannot be given.
func (c RetypeCol) Validate() error {
	switch c.Kind {
	case RetypeNone, RetypeMonths:
		return nil
	case RetypeTimestamp, RetypeTime, RetypeDayTime:
		for p, per := 0, int64(1); p <= 9; p, per = p+1, per*10 {
			if per == c.PerSec {
				return nil
			}
		}
		return fmt.Errorf("a result in units of 1/%d seconds (precision above 9 has no Arrow type)", c.PerSec)
	}
	return fmt.Errorf("result retype kind %d", c.Kind)
}

// arrowUnit picks the coarsest Arrow unit at least as fine as 1/PerSec
// seconds, and the factor that converts to it.
func (c RetypeCol) arrowUnit() (arrow.TimeUnit, int64) {
	switch {
	case c.PerSec <= 1:
		return arrow.Second, 1
	case c.PerSec <= 1_000:
		return arrow.Millisecond, 1_000 / c.PerSec
	case c.PerSec <= 1_000_000:
		return arrow.Microsecond, 1_000_000 / c.PerSec
	}
	return arrow.Nanosecond, 1_000_000_000 / c.PerSec
}

// ArrowType is the Arrow type of the column: a timestamp of the unit that
// holds the precision (UTC for timestamp_tz), time64 (us or ns), a
// month_day_nano interval (interval_day) or a month interval
// (interval_year).
func (c RetypeCol) ArrowType() (arrow.DataType, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	unit, _ := c.arrowUnit()
	switch c.Kind {
	case RetypeTimestamp:
		tz := ""
		if c.TZ {
			tz = "UTC"
		}
		return &arrow.TimestampType{Unit: unit, TimeZone: tz}, nil
	case RetypeTime:
		if c.PerSec <= 1_000_000 {
			return arrow.FixedWidthTypes.Time64us, nil
		}
		return arrow.FixedWidthTypes.Time64ns, nil
	case RetypeDayTime:
		return arrow.FixedWidthTypes.MonthDayNanoInterval, nil
	case RetypeMonths:
		return arrow.FixedWidthTypes.MonthInterval, nil
	}
	return nil, fmt.Errorf("no retype for kind %d", c.Kind)
}

func scaleExact(v, f int64) (int64, bool) {
	if f == 1 {
		return v, true
	}
	if v > math.MaxInt64/f || v < math.MinInt64/f {
		return 0, false
	}
	return v * f, true
}

// apply converts one downloaded Int64 column (it takes over a's reference;
// the caller releases the result).
func (c RetypeCol) apply(a arrow.Array) (arrow.Array, error) {
	if c.Kind == RetypeNone {
		return a, nil
	}
	defer a.Release()
	in, ok := a.(*array.Int64)
	if !ok {
		return nil, fmt.Errorf("a temporal result column downloaded as %s, not int64", a.DataType())
	}
	dt, err := c.ArrowType()
	if err != nil {
		return nil, err
	}
	b := array.NewBuilder(memory.DefaultAllocator, dt)
	defer b.Release()
	b.Reserve(in.Len())
	_, f := c.arrowUnit()
	if c.Kind == RetypeTime && c.PerSec <= 1_000_000 {
		f = 1_000_000 / c.PerSec
	}
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			b.AppendNull()
			continue
		}
		v := in.Value(i)
		switch bb := b.(type) {
		case *array.TimestampBuilder:
			x, ok := scaleExact(v, f)
			if !ok {
				return nil, fmt.Errorf("timestamp %d/%d s beyond the range of %s: %w", v, c.PerSec, dt, gpu.ErrOverflow)
			}
			bb.Append(arrow.Timestamp(x))
		case *array.Time64Builder:
			x, ok := scaleExact(v, f)
			if !ok {
				return nil, fmt.Errorf("time %d/%d s beyond the range of %s: %w", v, c.PerSec, dt, gpu.ErrOverflow)
			}
			bb.Append(arrow.Time64(x))
		case *array.MonthDayNanoIntervalBuilder:
			// Whole days (truncated toward zero, so both parts carry the
			// interval's sign) and the rest in nanoseconds.
			perDay := 86400 * c.PerSec
			days := v / perDay
			nanos, ok := scaleExact(v-days*perDay, 1_000_000_000/c.PerSec)
			if !ok || days > math.MaxInt32 || days < math.MinInt32 {
				return nil, fmt.Errorf("interval %d/%d s beyond the range of %s: %w", v, c.PerSec, dt, gpu.ErrOverflow)
			}
			bb.Append(arrow.MonthDayNanoInterval{Days: int32(days), Nanoseconds: nanos})
		case *array.MonthIntervalBuilder:
			if v > math.MaxInt32 || v < math.MinInt32 {
				return nil, fmt.Errorf("interval of %d months beyond the range of %s: %w", v, dt, gpu.ErrOverflow)
			}
			bb.Append(arrow.MonthInterval(v))
		default:
			return nil, fmt.Errorf("no retype into %s", dt)
		}
	}
	return b.NewArray(), nil
}

// retypeArrays converts the downloaded result columns in place (each
// replaced array is released; on error the slots hold what is left to
// release).
func retypeArrays(ctx context.Context, r *Retype, arrays []arrow.Array) error {
	if len(r.Cols) != len(arrays) {
		return fmt.Errorf("retype of %d columns over a result of %d", len(r.Cols), len(arrays))
	}
	for i, c := range r.Cols {
		if err := gpu.CtxErr(ctx); err != nil {
			return err
		}
		a := arrays[i]
		arrays[i] = nil
		out, err := c.apply(a)
		if err != nil {
			return fmt.Errorf("result column %d: %w", i, err)
		}
		arrays[i] = out
	}
	return nil
}
