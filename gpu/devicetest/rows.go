package devicetest

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/rigel-db/rigel/gpu"
)

// Cell renderings used by Rows. Every Kind has one exact text form so that
// results from two devices (or a device and a hand-computed expectation)
// compare as strings; only floats, whose last bits may legitimately differ
// between devices (FMA, summation order), carry the FloatPrefix marker and
// are compared with a relative tolerance by EqualRows.
const (
	NullCell    = "NULL"
	FloatPrefix = "~"
	cellSep     = "\t" // strings are %q-quoted, so a tab never occurs inside a cell
)

// Download copies every column back to an Arrow array, failing the test on
// error. The caller releases the arrays (see ReleaseAll).
func Download(t testing.TB, dev gpu.Device, cols []gpu.Column) []arrow.Array {
	t.Helper()
	out := make([]arrow.Array, len(cols))
	for i, c := range cols {
		a, err := dev.Download(context.Background(), c)
		if err != nil {
			ReleaseAll(out[:i])
			t.Fatalf("download column %d (%s): %v", i, c.Type(), err)
		}
		out[i] = a
	}
	return out
}

// Rows downloads cols and renders them with RowStrings, then releases the
// downloaded arrays (not the columns).
func Rows(t testing.TB, dev gpu.Device, cols []gpu.Column) []string {
	t.Helper()
	arrs := Download(t, dev, cols)
	defer ReleaseAll(arrs)
	for i, a := range arrs {
		if want := gpu.ArrowType(cols[i].Type()); !arrow.TypeEqual(a.DataType(), want) {
			t.Fatalf("download column %d: arrow type %s, want %s", i, a.DataType(), want)
		}
		if a.Len() != cols[i].Len() {
			t.Fatalf("download column %d: %d values, column has %d", i, a.Len(), cols[i].Len())
		}
	}
	return RowStrings(arrs)
}

// ReleaseAll releases every non-nil array.
func ReleaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}

// FormatCell renders value i of arr in the exact text form described above.
func FormatCell(arr arrow.Array, i int) string {
	if arr.IsNull(i) {
		return NullCell
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Int8:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Float32:
		return FloatPrefix + formatFloat(float64(a.Value(i)))
	case *array.Float64:
		return FloatPrefix + formatFloat(a.Value(i))
	case *array.Date32:
		return FormatDate(int32(a.Value(i)))
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		return a.Value(i).ToString(dt.Scale)
	case *array.String:
		return strconv.Quote(a.Value(i))
	case *array.LargeString:
		return strconv.Quote(a.Value(i))
	}
	return fmt.Sprintf("<unsupported %s>", arr.DataType())
}

func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// FormatDate renders days since 1970-01-01 as YYYY-MM-DD (proleptic Gregorian).
func FormatDate(days int32) string {
	return time.Unix(int64(days)*86400, 0).UTC().Format("2006-01-02")
}

// FormatDecimal renders the unscaled value v (a Decimal128's: it fits 128
// bits) with scale digits after the point, exactly: FormatDecimal(-5, 2) =
// "-0.05".
func FormatDecimal(v *big.Int, scale int32) string {
	return decimal128.FromBigInt(v).ToString(scale)
}

// RowStrings renders equally long arrays as one string per row (cells joined
// by a tab), in row order.
func RowStrings(arrs []arrow.Array) []string {
	if len(arrs) == 0 {
		return nil
	}
	n := arrs[0].Len()
	rows := make([]string, n)
	cells := make([]string, len(arrs))
	for i := 0; i < n; i++ {
		for j, a := range arrs {
			if i >= a.Len() {
				cells[j] = "<missing>"
				continue
			}
			cells[j] = FormatCell(a, i)
		}
		rows[i] = strings.Join(cells, cellSep)
	}
	return rows
}

// Row joins already formatted cells into one row string (for expectations).
func Row(cells ...string) string { return strings.Join(cells, cellSep) }

// EqualRows compares two row lists. With ordered false both are sorted
// first (aggregate output order is unspecified). Cells marked as floats
// compare with relative tolerance tol (absolute below 1); everything else
// must match exactly. The error lists the first few differences.
func EqualRows(got, want []string, ordered bool, tol float64) error {
	if !ordered {
		got = append([]string(nil), got...)
		want = append([]string(nil), want...)
		sort.Strings(got)
		sort.Strings(want)
	}
	var diffs []string
	if len(got) != len(want) {
		diffs = append(diffs, fmt.Sprintf("row count: got %d, want %d", len(got), len(want)))
	}
	for i := 0; i < len(got) && i < len(want) && len(diffs) < 8; i++ {
		if !rowEqual(got[i], want[i], tol) {
			diffs = append(diffs, fmt.Sprintf("row %d:\n  got  %s\n  want %s", i, got[i], want[i]))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("results differ:\n%s", strings.Join(diffs, "\n"))
}

func rowEqual(a, b string, tol float64) bool {
	if a == b {
		return true
	}
	ca, cb := strings.Split(a, cellSep), strings.Split(b, cellSep)
	if len(ca) != len(cb) {
		return false
	}
	for i := range ca {
		if ca[i] == cb[i] {
			continue
		}
		if !strings.HasPrefix(ca[i], FloatPrefix) || !strings.HasPrefix(cb[i], FloatPrefix) {
			return false
		}
		x, err1 := strconv.ParseFloat(ca[i][len(FloatPrefix):], 64)
		y, err2 := strconv.ParseFloat(cb[i][len(FloatPrefix):], 64)
		if err1 != nil || err2 != nil || !floatClose(x, y, tol) {
			return false
		}
	}
	return true
}

func floatClose(x, y, tol float64) bool {
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.IsNaN(x) && math.IsNaN(y)
	}
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return x == y
	}
	d := math.Abs(x - y)
	m := math.Max(math.Abs(x), math.Abs(y))
	if m < 1 {
		return d <= tol
	}
	return d <= tol*m
}
