package gpu

import "math"

// The IR's value semantics that devices and their checks compute the same
// way in Go (ir.go states them): the order of floats and the calendar of
// dates, the rounding of floats.

// FloatOrder is the total order of floats for comparisons, min/max,
// sorting and grouping: NaN equals NaN and is larger than every number
// (as in DuckDB), -0 equals 0. It returns -1, 0 or 1.
func FloatOrder(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// CivilFromDays converts days since 1970-01-01 to a proleptic Gregorian
// date (H. Hinnant's civil_from_days, exact for every int32 day): what
// OpYear, OpMonth and OpDay give.
func CivilFromDays(days int64) (y, m, d int64) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era-- // floor division
	}
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100) // [0, 365]
	mp := (5*doy + 2) / 153                  // [0, 11]
	d = doy - (153*mp+2)/5 + 1               // [1, 31]
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// RoundFloat rounds x to digits decimal places, ties away from zero (the
// CUDA code computes the same steps with its pow and round).
func RoundFloat(x float64, digits int64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	if digits > 308 {
		return x
	}
	if digits < -308 {
		return math.Copysign(0, x)
	}
	p := math.Pow(10, float64(digits))
	y := math.Round(x * p)
	if math.IsInf(x*p, 0) {
		return x // too many digits to change anything
	}
	return y / p
}
