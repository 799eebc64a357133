package arrowfmt

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// CompareOrdered is Compare of two answers to a query whose result order
// is given by the columns keys (an ORDER BY): rows must come in the same
// order of key values, and rows equal in every key (ties, which SQL lets
// come in any order) are compared as multisets. With limited (a LIMIT
// under the ORDER BY), the run of ties that reaches the last row may hold
// any of the tied rows of the whole answer, which neither result shows:
// there only the keys are compared, and ties says so.
func CompareOrdered(got, want arrow.RecordBatch, keys []int, limited bool) (ties string, err error) {
	if got.NumCols() != want.NumCols() {
		return "", fmt.Errorf("%d columns, want %d", got.NumCols(), want.NumCols())
	}
	if got.NumRows() != want.NumRows() {
		return "", fmt.Errorf("%d rows, want %d", got.NumRows(), want.NumRows())
	}
	for _, k := range keys {
		if k < 0 || k >= int(want.NumCols()) {
			return "", fmt.Errorf("order key column %d of %d columns", k, want.NumCols())
		}
	}
	g, w := Rows(got), Rows(want)
	floats := make([]bool, got.NumCols())
	for c := range floats {
		floats[c] = isFloat(want, c) || isFloat(got, c)
	}
	for r := range w {
		for _, k := range keys {
			if !equalValue(g[r][k], w[r][k], floats[k], RelTol) {
				return "", fmt.Errorf("row %d order key %q: got %s, want %s (row got %v, want %v)", r, want.ColumnName(k), g[r][k], w[r][k], g[r], w[r])
			}
		}
	}
	sameKeys := func(a, b []string) bool {
		for _, k := range keys {
			if a[k] != b[k] {
				return false
			}
		}
		return true
	}
	reordered := false
	for start := 0; start < len(w); {
		end := start + 1
		for end < len(w) && sameKeys(w[end], w[start]) {
			end++
		}
		if limited && end == len(w) && end-start > 1 {
			return fmt.Sprintf("the %d rows tied at the LIMIT compared by their order keys", end-start), nil
		}
		gr, wr := g[start:end], w[start:end]
		if _, _, differ := firstDifference(gr, wr, floats, RelTol); differ && end-start > 1 {
			sortRows(gr, floats) // ties in another order: as multisets
			sortRows(wr, floats)
			reordered = true
		}
		if r, c, differ := firstDifference(gr, wr, floats, RelTol); differ {
			return "", fmt.Errorf("row %d column %q: got %s, want %s (row got %v, want %v; rows %d to %d tie in the order)",
				start+r, want.ColumnName(c), gr[r][c], wr[r][c], gr[r], wr[r], start, end-1)
		}
		start = end
	}
	if reordered {
		return "tied rows compared as multisets", nil
	}
	return "", nil
}
