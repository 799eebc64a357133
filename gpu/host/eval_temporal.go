package host

import (
	"fmt"
	"math/bits"

	"github.com/rigel-db/rigel/gpu"
)

// Timestamp arithmetic (gpu/ir_temporal.go): OpAddMonthsTs.

func checkTemporalTs(e *gpu.Expr) error {
	per, ok := constArg(e, 2)
	if len(e.Args) != 3 || e.Args[0].Type.Kind != gpu.Int64 || e.Args[1].Type.Kind != gpu.Int64 || e.Type.Kind != gpu.Int64 || !ok || per <= 0 {
		return fmt.Errorf("ill-typed expression %s: add_months_ts takes (int64, int64, positive int64 constant) and gives int64", e)
	}
	return nil
}

func evalTemporalTs(e *gpu.Expr, b *batch) (*vec, error) {
	x, err := eval(e.Args[0], b)
	if err != nil {
		return nil, err
	}
	y, err := eval(e.Args[1], b)
	if err != nil {
		return nil, err
	}
	per, _ := constArg(e, 2)
	overflowed, perDay := bits.Mul64(86400, uint64(per))
	if overflowed != 0 || perDay > 1<<62 {
		return nil, overflow(e)
	}
	pd := int64(perDay)
	r := &vec{i64: make([]int64, b.n), valid: andValid(b.n, x, y)}
	for i := 0; i < b.n; i++ {
		if !r.isValid(i) {
			continue
		}
		ts, months := x.i64[i], y.i64[i]
		if months > 1<<40 || months < -(1<<40) {
			return nil, overflow(e)
		}
		days := floorDiv(ts, pd)
		tod := ts - days*pd
		yy, mm, dd := gpu.CivilFromDays(days)
		total := yy*12 + mm - 1 + months
		ny := floorDiv(total, 12)
		nm := total - ny*12 + 1
		nd := daysFromCivil(ny, nm, min(dd, daysInMonth(ny, nm)))
		if nd < -1<<31 || nd > 1<<31-1 {
			return nil, overflow(e)
		}
		hi, lo := bits.Mul64(uint64(absInt(nd)), uint64(pd))
		if hi != 0 || lo > 1<<62 {
			return nil, overflow(e)
		}
		v := int64(lo)
		if nd < 0 {
			v = -v
		}
		r.i64[i] = v + tod // |v| <= 2^62 and 0 <= tod < pd <= 2^62: no overflow
	}
	return r, nil
}

func absInt(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
