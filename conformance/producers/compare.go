package producers

import (
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// Compare reports the first difference between rigel's answer to a
// producer's plan and DuckDB's answer to the query's SQL, row by row in
// order (every TPC-H query orders its output), or nil.
//
// The producer, not DuckDB, chose the plan's types, and rigel keeps them:
// DataFusion averages a DECIMAL(15,2) into DECIMAL(19,6) where DuckDB
// returns DOUBLE, Isthmus counts into INTEGER keys. So values compare by
// what they are, not by their Arrow type:
//   - integers and decimals exactly, as numbers (1 equals 1.00);
//   - a float against a decimal of scale s within half a unit of the s-th
//     decimal place (the decimal is the float rounded to s places), plus
//     the float tolerance;
//   - floats with arrowfmt's relative tolerance;
//   - everything else (strings, dates, nulls) by its text.
func Compare(got, want arrow.RecordBatch) error {
	if got.NumCols() != want.NumCols() {
		return fmt.Errorf("%d columns, want %d", got.NumCols(), want.NumCols())
	}
	if got.NumRows() != want.NumRows() {
		return fmt.Errorf("%d rows, want %d", got.NumRows(), want.NumRows())
	}
	for c := range int(got.NumCols()) {
		gc, wc := got.Column(c), want.Column(c)
		gk, wk := numKind(gc.DataType()), numKind(wc.DataType())
		for r := range int(got.NumRows()) {
			g, w := arrowfmt.Value(gc, r), arrowfmt.Value(wc, r)
			if !equalCell(g, w, gk, wk) {
				return fmt.Errorf("row %d column %d (%s): got %s (%s), want %s (%s)",
					r, c, want.ColumnName(c), g, gc.DataType(), w, wc.DataType())
			}
		}
	}
	return nil
}

// numeric is how a column's values compare: as text, as exact numbers, or
// as floats; scale is a decimal's scale.
type numeric struct {
	kind  int // 0 text, 1 exact, 2 float
	scale int32
}

func numKind(t arrow.DataType) numeric {
	switch d := t.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type:
		return numeric{kind: 1}
	case *arrow.Decimal128Type:
		return numeric{kind: 1, scale: d.Scale}
	case *arrow.Decimal64Type:
		return numeric{kind: 1, scale: d.Scale}
	case *arrow.Float32Type, *arrow.Float64Type:
		return numeric{kind: 2}
	}
	return numeric{}
}

func equalCell(g, w string, gk, wk numeric) bool {
	if g == w {
		return true
	}
	if g == arrowfmt.Null || w == arrowfmt.Null || gk.kind == 0 || wk.kind == 0 {
		return false
	}
	if gk.kind == 1 && wk.kind == 1 {
		x, okx := new(big.Rat).SetString(g)
		y, oky := new(big.Rat).SetString(w)
		return okx && oky && x.Cmp(y) == 0
	}
	x, err1 := strconv.ParseFloat(g, 64)
	y, err2 := strconv.ParseFloat(w, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	tol := arrowfmt.RelTol * math.Max(math.Abs(x), math.Abs(y))
	// One side exact with scale s: it is the other rounded to s places.
	for _, k := range []numeric{gk, wk} {
		if k.kind == 1 {
			tol += 0.5 * math.Pow(10, -float64(k.scale))
		}
	}
	return math.Abs(x-y) <= tol
}
