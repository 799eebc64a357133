package gpu

// Datetime operations over dates, timestamps and times. Timestamps,
// times and intervals have no Kind: the translator carries them as Int64 in
// the units of their Substrait type (translate/temporal.go), and these
// operations take the unit as a constant argument. The CUDA code generator
// refuses them for now (ErrUnsupported naming the op).
const (
	// OpTimePart: Args = [x, part, perSec]: the calendar or clock field
	// part (a TimePart, an Int64 constant) of x, as Int64; null in, null
	// out. x is a Date32, or an Int64 count of 1/perSec seconds (perSec an
	// Int64 constant > 0) since 1970-01-01 00:00:00 (a timestamp, in UTC)
	// or since midnight (a time). Calendar fields are the proleptic
	// Gregorian calendar's; indexes count from 1 (QUARTER 1-4, MONTH 1-12,
	// DAY 1-31, DAY_OF_YEAR 1-366, day of week 1-7, ISO week 1-53).
	OpTimePart Op = 129 + iota
	// OpAddMonths: Args = [d Date32, months Int64]: d plus months calendar
	// months, the day clamped to the last day of the resulting month
	// (2020-01-31 + 1 month = 2020-02-29); ErrOverflow beyond int32 days.
	OpAddMonths
	// OpAddDayInterval: Args = [d Date32, v Int64, perSec Int64 constant]:
	// d plus the day interval v given in 1/perSec seconds; an interval that
	// is not a whole number of days is an error for that row (the result
	// is a date); ErrOverflow beyond int32 days.
	OpAddDayInterval
)

// TimePart is the field OpTimePart extracts.
type TimePart int64

const (
	PartYear      TimePart = iota + 1
	PartISOYear            // ISO 8601 week-numbering year
	PartQuarter            // 1-4
	PartMonth              // 1-12
	PartDay                // 1-31
	PartDayOfYear          // 1-366
	PartMondayDOW          // Monday 1 .. Sunday 7
	PartSundayDOW          // Sunday 1 .. Saturday 7
	PartISOWeek            // 1-53
	PartHour               // 0-23
	PartMinute             // 0-59
	PartSecond             // 0-59
	PartSubsecond          // microseconds since the last full second
	PartUnixTime           // whole seconds since the epoch (floor)
	partEnd
)

// Valid reports whether p is a known part.
func (p TimePart) Valid() bool { return p >= PartYear && p < partEnd }

func init() {
	opNames[OpTimePart] = "time_part"
	opNames[OpAddMonths] = "add_months"
	opNames[OpAddDayInterval] = "add_day_interval"
}

// DuckDB's make_date, in rigel's extension (translate/fn_sign_makedate.go).
// Numbered from 232 so that they never collide with the numeric (64+),
// string (128+) and temporal (192+) operators. The CUDA code generator
// refuses them for now (ErrUnsupported naming the op: the engine runs that
// part of the plan elsewhere).
const (
	// OpMakeDate: Args = [year, month, day Int64]: the Date32 of that day
	// of the proleptic Gregorian calendar (astronomical years: year 0 is
	// 1 BC), DuckDB's make_date; null when an argument is null. ErrDomain
	// when the arguments name no day (month outside 1-12, day outside the
	// month) or a day outside DuckDB's DATE range, 5877642-06-25 BC
	// (year -5877641) to 5881580-07-10.
	OpMakeDate Op = 232 + iota
)

func init() {
	opNames[OpMakeDate] = "make_date"
}
