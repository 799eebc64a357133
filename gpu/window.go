package gpu

import (
	"context"
	"math"
	"math/big"
)

// Window functions (SQL's OVER) are built by package physical from a sort
// and the two primitives below, over rows sorted by the partition keys and
// then the order keys:
//   - SegmentStarts marks where a partition (or a peer group: rows whose
//     order keys are equal) begins;
//   - SegmentedScan runs a scan within those segments: row_number is a
//     running count, rank the running maximum of the row numbers at peer
//     starts, dense_rank a running count of peer starts, a running sum a
//     running sum; run backwards with ScanFill it hands a segment's last
//     value to all its rows (a whole-partition aggregate, or a RANGE frame
//     whose peers share the value of the last of them).
//
// Functions that take another row's value (lag, lead, first_value,
// last_value, sliding frames' sums) gather at places the scans compute.
//
// The same scan serves every function, as in the segmented-scan designs
// of GPU databases (a partitioned sort, then scans keyed by segment flags).

// ScanOp is the operator of a SegmentedScan.
type ScanOp uint8

const (
	ScanSum  ScanOp = iota + 1 // running sum: Int64 and Decimal64 wrap (callers bound them: counts, places), Decimal128 overflows with ErrOverflow
	ScanMin                    // running minimum
	ScanMax                    // running maximum
	ScanFill                   // every row takes its segment's first value (in scan order)
)

func (o ScanOp) String() string {
	switch o {
	case ScanSum:
		return "sum"
	case ScanMin:
		return "min"
	case ScanMax:
		return "max"
	case ScanFill:
		return "fill"
	}
	return "scan op ?"
}

// Windower is implemented by devices that run the window primitives.
type Windower interface {
	// SegmentStarts returns a non-null Bool column of n rows (the length of
	// keys and starts): row i is true when i == 0, when starts
	// (which may be nil) is true at i, or when some key column's value at
	// i differs from its value at i-1. Two nulls are equal, a null and a
	// value differ; floats compare as values (0.0 = -0.0) with every NaN
	// equal to every other; Dict keys compare codes (the rows of one
	// column share its dictionary). Str keys are refused (ErrUnsupported):
	// plans keep window keys in dictionaries.
	SegmentStarts(ctx context.Context, n int, keys []Column, starts Column) (Column, error)

	// SegmentedScan returns the inclusive scan of vals by op within the
	// segments whose first rows starts marks (as SegmentStarts gives). A
	// reverse scan runs from the last row to the first: each segment is
	// then scanned from its last row. vals is non-null Int64, Decimal128
	// or Float64; the result has its type, non-null.
	SegmentedScan(ctx context.Context, vals, starts Column, op ScanOp, reverse bool) (Column, error)

	// FrameSums returns for every row i the sum of vals' rows from[i]
	// through to[i] (places from 0, both included; -1 in both: an empty
	// frame, whose sum is 0), added in the order of DuckDB's window
	// segment tree over all of vals (segmenttree.go). vals is non-null
	// Float64; from and to are non-null JoinIndexType of vals' length. The
	// result is non-null Float64.
	FrameSums(ctx context.Context, vals, from, to Column) (Column, error)
}

// ScanKind reports whether SegmentedScan takes values of kind k.
func ScanKind(k Kind) bool { return k == Int64 || k == Decimal64 || k == Decimal128 || k == Float64 }

// ScanIdentity is the value op leaves unchanged in a scan of kind k, which
// callers stand in for null values: 0 for sums, the largest value of the
// kind for minimums and the smallest for maximums (+-(10^p - 1) for
// decimals of the largest precision p the kind holds; for floats, in SQL's
// order, NaN above +Inf for minimums and -Inf for maximums: an identity of
// +Inf made a running min over a null then a NaN +Inf, where DuckDB says
// NaN). ScanFill has none (the zero Value).
func ScanIdentity(op ScanOp, k Kind) Value {
	sign := int64(1)
	switch op {
	case ScanMin:
	case ScanMax:
		sign = -1
	default:
		if k == Decimal128 {
			return Value{I128: new(big.Int)}
		}
		return Value{}
	}
	switch k {
	case Float64:
		if sign > 0 {
			return Value{F64: math.NaN()}
		}
		return Value{F64: math.Inf(-1)}
	case Decimal64:
		return Value{I64: sign * (1e18 - 1)}
	case Decimal128:
		v := new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil)
		v.Sub(v, big.NewInt(1))
		return Value{I128: v.Mul(v, big.NewInt(sign))}
	}
	if sign > 0 {
		return Value{I64: math.MaxInt64}
	}
	return Value{I64: math.MinInt64}
}
