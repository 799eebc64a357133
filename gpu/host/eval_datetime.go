package host

import (
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

// Datetime operations (gpu/ir_datetime.go): OpTimePart,
// OpAddMonths, OpAddDayInterval.

func constArg(e *gpu.Expr, i int) (int64, bool) {
	if i >= len(e.Args) || e.Args[i].Op != gpu.OpConst || e.Args[i].Const.Null || e.Args[i].Type.Kind != gpu.Int64 {
		return 0, false
	}
	return e.Args[i].Const.I64, true
}

// checkTemporal type-checks the datetime operations.
func checkTemporal(e *gpu.Expr) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("ill-typed expression %s: %s", e, fmt.Sprintf(format, a...))
	}
	switch e.Op {
	case gpu.OpTimePart:
		if len(e.Args) != 3 || e.Type.Kind != gpu.Int64 {
			return bad("time_part takes (value, part, perSec) and gives int64")
		}
		part, ok1 := constArg(e, 1)
		per, ok2 := constArg(e, 2)
		if !ok1 || !ok2 || !gpu.TimePart(part).Valid() {
			return bad("part and perSec must be int64 constants, part a gpu.TimePart")
		}
		switch e.Args[0].Type.Kind {
		case gpu.Date32:
		case gpu.Int64:
			if per <= 0 {
				return bad("perSec %d must be positive", per)
			}
		default:
			return bad("value is %s, not date32 or int64", e.Args[0].Type)
		}
	case gpu.OpAddMonths:
		if len(e.Args) != 2 || e.Args[0].Type.Kind != gpu.Date32 || e.Args[1].Type.Kind != gpu.Int64 || e.Type.Kind != gpu.Date32 {
			return bad("add_months takes (date32, int64) and gives date32")
		}
	case gpu.OpAddDayInterval:
		per, ok := constArg(e, 2)
		if len(e.Args) != 3 || e.Args[0].Type.Kind != gpu.Date32 || e.Args[1].Type.Kind != gpu.Int64 || e.Type.Kind != gpu.Date32 || !ok || per <= 0 {
			return bad("add_day_interval takes (date32, int64, positive int64 constant) and gives date32")
		}
	}
	return nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// daysFromCivil is the inverse of civil (H. Hinnant's days_from_civil).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func daysInMonth(y, m int64) int64 {
	if m == 12 {
		return 31
	}
	return daysFromCivil(y, m+1, 1) - daysFromCivil(y, m, 1)
}

// timePart computes one field; days and sod (second of day) and frac (the
// sub-second units, 0 <= frac < per) describe the value.
func timePart(part gpu.TimePart, days, sod, frac, per int64) int64 {
	switch part {
	case gpu.PartHour:
		return sod / 3600
	case gpu.PartMinute:
		return sod % 3600 / 60
	case gpu.PartSecond:
		return sod % 60
	case gpu.PartSubsecond:
		if per >= 1_000_000 {
			return frac / (per / 1_000_000)
		}
		return frac * (1_000_000 / per)
	case gpu.PartUnixTime:
		return days*86400 + sod
	}
	y, m, d := gpu.CivilFromDays(days)
	mondayDOW := floorMod(days+3, 7) + 1 // 1970-01-01 was a Thursday
	switch part {
	case gpu.PartYear:
		return y
	case gpu.PartQuarter:
		return (m-1)/3 + 1
	case gpu.PartMonth:
		return m
	case gpu.PartDay:
		return d
	case gpu.PartDayOfYear:
		return days - daysFromCivil(y, 1, 1) + 1
	case gpu.PartMondayDOW:
		return mondayDOW
	case gpu.PartSundayDOW:
		return mondayDOW%7 + 1
	case gpu.PartISOYear, gpu.PartISOWeek:
		thursday := days - mondayDOW + 4 // the Thursday of this ISO week
		iy, _, _ := gpu.CivilFromDays(thursday)
		if part == gpu.PartISOYear {
			return iy
		}
		return (thursday-daysFromCivil(iy, 1, 1))/7 + 1
	}
	return 0
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

func evalTemporal(e *gpu.Expr, b *batch) (*vec, error) {
	x, err := eval(e.Args[0], b)
	if err != nil {
		return nil, err
	}
	var y *vec
	if e.Op != gpu.OpTimePart {
		if y, err = eval(e.Args[1], b); err != nil {
			return nil, err
		}
	}
	r := &vec{i64: make([]int64, b.n), valid: x.valid}
	if y != nil {
		r.valid = andValid(b.n, x, y)
	}
	dateRange := bounds{-1 << 31, 1<<31 - 1}
	for i := 0; i < b.n; i++ {
		if !r.isValid(i) {
			continue
		}
		v := x.i64[i]
		switch e.Op {
		case gpu.OpTimePart:
			part, _ := constArg(e, 1)
			per, _ := constArg(e, 2)
			if e.Args[0].Type.Kind == gpu.Date32 {
				r.i64[i] = timePart(gpu.TimePart(part), v, 0, 0, 1)
				continue
			}
			secs := floorDiv(v, per)
			days := floorDiv(secs, 86400)
			r.i64[i] = timePart(gpu.TimePart(part), days, secs-days*86400, v-secs*per, per)
		case gpu.OpAddMonths:
			months := y.i64[i]
			if months > 1<<40 || months < -(1<<40) {
				return nil, overflow(e)
			}
			yy, mm, dd := gpu.CivilFromDays(v)
			total := yy*12 + mm - 1 + months
			ny := floorDiv(total, 12)
			nm := total - ny*12 + 1
			d := daysFromCivil(ny, nm, min(dd, daysInMonth(ny, nm)))
			if d < dateRange.lo || d > dateRange.hi {
				return nil, overflow(e)
			}
			r.i64[i] = d
		case gpu.OpAddDayInterval:
			perSec, _ := constArg(e, 2)
			perDay := 86400 * perSec
			iv := y.i64[i]
			if iv%perDay != 0 {
				return nil, fmt.Errorf("%s: an interval of %d/%d days is not a whole number of days (the result is a date)", e, iv, perDay)
			}
			d := v + iv/perDay
			if d < dateRange.lo || d > dateRange.hi {
				return nil, overflow(e)
			}
			r.i64[i] = d
		}
	}
	return r, nil
}

// OpMakeDate (gpu/ir_datetime.go): DuckDB's make_date.

// DuckDB's DATE range (its Date::IsValid): 5877642-06-25 BC to
// 5881580-07-10, the days just inside its -infinity and infinity.
var (
	minMakeDate = daysFromCivil(-5877641, 6, 25)
	maxMakeDate = daysFromCivil(5881580, 7, 10)
)

func checkMakeDate(e *gpu.Expr) error {
	if len(e.Args) != 3 || e.Type.Kind != gpu.Date32 {
		return fmt.Errorf("ill-typed expression %s: make_date takes (int64, int64, int64) and gives date32", e)
	}
	for _, a := range e.Args {
		if a.Type.Kind != gpu.Int64 {
			return fmt.Errorf("ill-typed expression %s: make_date takes (int64, int64, int64) and gives date32", e)
		}
	}
	return nil
}

func evalMakeDate(e *gpu.Expr, b *batch) (*vec, error) {
	args := make([]*vec, 3)
	for i := range args {
		v, err := eval(e.Args[i], b)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	r := &vec{i64: make([]int64, b.n), valid: andValid(b.n, args...)}
	for i := 0; i < b.n; i++ {
		if !r.isValid(i) {
			continue
		}
		d, err := makeDate(args[0].i64[i], args[1].i64[i], args[2].i64[i])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
		r.i64[i] = d
	}
	return r, nil
}

// makeDate is the day number of y-m-d, or ErrDomain. The year is checked
// first so that daysFromCivil never sees a year it would overflow on.
func makeDate(y, m, d int64) (int64, error) {
	if y < -5877641 || y > 5881580 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) {
		return 0, fmt.Errorf("make_date(%d, %d, %d): not a valid date (month 1-12, a day of that month): %w", y, m, d, gpu.ErrDomain)
	}
	days := daysFromCivil(y, m, d)
	if days < minMakeDate || days > maxMakeDate {
		return 0, fmt.Errorf("make_date(%d, %d, %d): outside DuckDB's date range (5877642-06-25 BC to 5881580-07-10): %w", y, m, d, gpu.ErrDomain)
	}
	return days, nil
}
