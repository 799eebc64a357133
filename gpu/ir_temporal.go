package gpu

// Timestamp arithmetic of the temporal work (translate/fn_temporal.go).
// Timestamps are Int64 counts of 1/perSec seconds since 1970-01-01
// 00:00:00 UTC (see ir_datetime.go); numbered from 192 so that they never
// collide with the numeric (64+) and string (128+) operators. The CUDA code
// generator refuses it for now (ErrUnsupported naming the op).
const (
	// OpAddMonthsTs: Args = [ts Int64, months Int64, perSec Int64
	// constant > 0]: ts plus months calendar months, the time of day kept
	// and the day clamped to the last day of the resulting month (as
	// OpAddMonths does for dates); ErrOverflow when the result does not
	// fit an Int64 or lies beyond the int32 day range of Date32.
	OpAddMonthsTs Op = 192 + iota
)

func init() {
	opNames[OpAddMonthsTs] = "add_months_ts"
}
