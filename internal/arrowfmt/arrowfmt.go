// Package arrowfmt renders Arrow values as text the way DuckDB prints them
// (decimals with their scale, dates as YYYY-MM-DD) and compares two results
// the way rigel's tests judge them: exact for everything but floats.
package arrowfmt

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Null is how a null value is rendered.
const Null = "NULL"

// Value renders row i of a column.
func Value(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return Null
	}
	switch c := a.(type) {
	case *array.Decimal128:
		scale := c.DataType().(*arrow.Decimal128Type).Scale
		return c.Value(i).ToString(scale)
	case *array.Date32:
		return c.Value(i).ToTime().Format("2006-01-02")
	case *array.Float64:
		return strconv.FormatFloat(c.Value(i), 'g', -1, 64)
	case *array.Float32:
		return strconv.FormatFloat(float64(c.Value(i)), 'g', -1, 32)
	case *array.String:
		return c.Value(i)
	case *array.LargeString:
		return c.Value(i)
	case *array.StringView:
		return c.Value(i)
	}
	return a.ValueStr(i)
}

// Rows renders a record as rows of strings.
func Rows(rec arrow.RecordBatch) [][]string {
	rows := make([][]string, rec.NumRows())
	for r := range rows {
		row := make([]string, rec.NumCols())
		for c := range row {
			row[c] = Value(rec.Column(c), r)
		}
		rows[r] = row
	}
	return rows
}

// isFloat reports whether column c holds floats (compared with a tolerance).
func isFloat(rec arrow.RecordBatch, c int) bool {
	switch rec.Column(c).DataType().ID() {
	case arrow.FLOAT32, arrow.FLOAT64:
		return true
	}
	return false
}

// RelTol is the relative tolerance for floating-point values.
const RelTol = 1e-9

// Compare reports the first difference between a result and the expected
// one, or nil. Values compare exactly except floats (relative tolerance).
// With ordered false, rows are compared as multisets.
func Compare(got, want arrow.RecordBatch, ordered bool) error {
	return compare(got, want, ordered, RelTol)
}

// CompareExact is Compare with floats equal only where their shortest
// decimal texts are: byte-equal DOUBLEs, which rigel owes DuckDB wherever
// it can follow DuckDB's order of operations.
func CompareExact(got, want arrow.RecordBatch, ordered bool) error {
	return compare(got, want, ordered, 0)
}

func compare(got, want arrow.RecordBatch, ordered bool, tol float64) error {
	if got.NumCols() != want.NumCols() {
		return fmt.Errorf("%d columns, want %d", got.NumCols(), want.NumCols())
	}
	if got.NumRows() != want.NumRows() {
		return fmt.Errorf("%d rows, want %d", got.NumRows(), want.NumRows())
	}
	g, w := Rows(got), Rows(want)
	floats := make([]bool, got.NumCols())
	for c := range floats {
		floats[c] = isFloat(want, c) || isFloat(got, c)
	}
	if !ordered {
		sortRows(g, floats)
		sortRows(w, floats)
	}
	if r, c, ok := firstDifference(g, w, floats, tol); ok {
		return fmt.Errorf("row %d column %q: got %s, want %s (row got %v, want %v)",
			r, want.ColumnName(c), g[r][c], w[r][c], g[r], w[r])
	}
	return nil
}

// firstDifference is the first row and column where g and w (rows of the
// same length) differ, floats within tol; ok is false where none does.
func firstDifference(g, w [][]string, floats []bool, tol float64) (r, c int, ok bool) {
	for r := range g {
		for c := range g[r] {
			if !equalValue(g[r][c], w[r][c], floats[c], tol) {
				return r, c, true
			}
		}
	}
	return 0, 0, false
}

// sortRows sorts by the exact columns first, so that float noise cannot
// change the order, then by the float columns' values (nulls first), so
// that rows equal in every exact column still meet their counterparts.
func sortRows(rows [][]string, floats []bool) {
	sort.SliceStable(rows, func(i, j int) bool {
		for c := range rows[i] {
			if !floats[c] && rows[i][c] != rows[j][c] {
				return rows[i][c] < rows[j][c]
			}
		}
		for c := range rows[i] {
			if floats[c] {
				if d := compareFloatText(rows[i][c], rows[j][c]); d != 0 {
					return d < 0
				}
			}
		}
		return false
	})
}

// compareFloatText orders two rendered floats: nulls first, then by value
// (text that does not parse, such as NaN, after every number).
func compareFloatText(a, b string) int {
	if a == b {
		return 0
	}
	if a == Null || b == Null {
		if a == Null {
			return -1
		}
		return 1
	}
	x, errX := strconv.ParseFloat(a, 64)
	y, errY := strconv.ParseFloat(b, 64)
	switch {
	case errX != nil || errY != nil:
		return strings.Compare(a, b)
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func equalValue(a, b string, float bool, tol float64) bool {
	if a == b {
		return true
	}
	if !float || a == Null || b == Null {
		return false
	}
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	return math.Abs(x-y) <= tol*math.Max(math.Abs(x), math.Abs(y))
}
