package host

import (
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

// OpMakeDate (gpu/ir_corpus.go): DuckDB's make_date.

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
