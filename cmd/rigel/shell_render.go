package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/mattn/go-runewidth"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// shellModes lists the output modes of .mode, the default first.
var shellModes = []string{"duckbox", "box", "csv", "line", "markdown", "json", "list"}

// duckboxMaxRows is how many rows duckbox shows before it shows only the
// first and last half of them, as DuckDB's CLI does (its max_rows).
const duckboxMaxRows = 40

// renderResult writes a result in one of shellModes. maxWidth, when not 0,
// is the terminal's width: duckbox fits its table into it.
func renderResult(w io.Writer, t *table, mode string, maxWidth int) error {
	switch mode {
	case "duckbox":
		writeBox(w, t, true, maxWidth)
	case "box":
		writeBox(w, t, false, 0)
	case "csv":
		return writeCSV(w, t)
	case "line":
		writeLines(w, t)
	case "markdown":
		writeMarkdown(w, t)
	case "json":
		return writeJSONRows(w, t)
	case "list":
		writeList(w, t)
	default:
		return fmt.Errorf("unknown mode %q", mode)
	}
	return nil
}

// table is a result as the modes show it: an Arrow record from the engine,
// or rows DuckDB returned through database/sql (statements that are not
// queries: PRAGMA, SHOW, ...).
type table struct {
	names []string
	types []string // DuckDB's type names, for duckbox's second header row
	right []bool   // right-aligned (numbers)
	nrows int
	// text renders a cell (NULL for a null); json gives its JSON value.
	text func(r, c int) string
	json func(r, c int) any
}

// arrowTable shows an Arrow record; only the cells shown are rendered (a
// duckbox of millions of rows renders 40).
func arrowTable(rec arrow.RecordBatch) *table {
	n := int(rec.NumCols())
	t := &table{names: make([]string, n), types: make([]string, n), right: make([]bool, n), nrows: int(rec.NumRows())}
	for c := range n {
		dt := rec.Column(c).DataType()
		t.names[c], t.types[c], t.right[c] = rec.ColumnName(c), duckTypeName(dt), rightAligned(dt)
	}
	t.text = func(r, c int) string {
		col := rec.Column(c)
		switch f := col.(type) {
		case *array.Float64:
			if !f.IsNull(r) {
				return floatText(f.Value(r))
			}
		case *array.Float32:
			if !f.IsNull(r) && (math.IsInf(float64(f.Value(r)), 0) || math.IsNaN(float64(f.Value(r)))) {
				return floatText(float64(f.Value(r)))
			}
		}
		return arrowfmt.Value(col, r)
	}
	t.json = func(r, c int) any {
		col := rec.Column(c)
		if col.IsNull(r) {
			return nil
		}
		return jsonValue(col.DataType(), arrowfmt.Value(col, r))
	}
	return t
}

// row renders row r.
func (t *table) row(r int) []string {
	row := make([]string, len(t.names))
	for c := range row {
		row[c] = t.text(r, c)
	}
	return row
}

// rightAligned: numbers are right-aligned, as in DuckDB's boxes.
func rightAligned(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32,
		arrow.UINT64, arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL32, arrow.DECIMAL64,
		arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	}
	return false
}

// duckTypeName names an Arrow type the way DuckDB's duckbox header does.
func duckTypeName(dt arrow.DataType) string {
	switch t := dt.(type) {
	case *arrow.Decimal128Type:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case *arrow.Decimal256Type:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case *arrow.TimestampType:
		if t.TimeZone != "" {
			return "timestamp with time zone"
		}
		return "timestamp"
	}
	switch dt.ID() {
	case arrow.BOOL:
		return "boolean"
	case arrow.FLOAT32:
		return "float"
	case arrow.FLOAT64:
		return "double"
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return "varchar"
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW:
		return "blob"
	case arrow.DATE32, arrow.DATE64:
		return "date"
	case arrow.TIME32, arrow.TIME64:
		return "time"
	case arrow.INTERVAL_MONTH_DAY_NANO, arrow.INTERVAL_DAY_TIME, arrow.INTERVAL_MONTHS:
		return "interval"
	}
	return dt.String() // int8 ... uint64 read the same in both
}

// width is how many terminal cells s takes: two for East Asian wide
// characters and most emoji, none for combining marks.
func width(s string) int { return runewidth.StringWidth(s) }

func pad(s string, w int, right bool) string {
	gap := max(w-width(s), 0)
	if right {
		return strings.Repeat(" ", gap) + s
	}
	return s + strings.Repeat(" ", gap)
}

func center(s string, w int) string {
	gap := max(w-width(s), 0)
	return strings.Repeat(" ", gap/2) + s + strings.Repeat(" ", gap-gap/2)
}

// oneLineCell keeps a cell on one line of the box (DuckDB shows control
// characters escaped too).
func oneLineCell(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s)
}

// writeBox draws DuckDB's duckbox (with a type row, and only the first and
// last rows of a long result, with a row-count footer) or sqlite's box.
func writeBox(w io.Writer, t *table, duck bool, maxWidth int) {
	n := t.nrows
	ncol := len(t.names)
	// The rows shown: all, or duckbox's first and last halves.
	shown := make([]int, 0, min(n, duckboxMaxRows))
	truncated := duck && n > duckboxMaxRows
	if truncated {
		for r := range duckboxMaxRows / 2 {
			shown = append(shown, r)
		}
		for r := n - duckboxMaxRows/2; r < n; r++ {
			shown = append(shown, r)
		}
	} else {
		for r := range n {
			shown = append(shown, r)
		}
	}
	names, types, right := t.names, t.types, t.right
	widths := make([]int, ncol)
	for c := range ncol {
		widths[c] = width(names[c])
		if duck {
			widths[c] = max(widths[c], width(types[c]))
		}
	}
	cells := make([][]string, len(shown))
	for i, r := range shown {
		row := make([]string, ncol)
		for c := range ncol {
			row[c] = oneLineCell(t.text(r, c))
			widths[c] = max(widths[c], width(row[c]))
		}
		cells[i] = row
	}
	hidden := 0
	if maxWidth > 0 && ncol > 0 {
		var f boxFit
		f, hidden = fitBox(boxFit{names, types, right, widths, cells}, maxWidth)
		names, types, right, widths, cells = f.names, f.types, f.right, f.widths, f.cells
		ncol = len(names)
	}
	var footer []string
	if duck && (truncated || n == 0 || hidden > 0) {
		footer = []string{plural(int64(n), "row")}
		if truncated {
			footer = append(footer, fmt.Sprintf("(%d shown)", len(shown)))
		}
		if hidden > 0 {
			footer = append(footer, fmt.Sprintf("%d columns (%d shown)", len(t.names), len(t.names)-hidden))
		}
	}
	// The box is at least as wide as its footer (DuckDB widens it too).
	if ncol > 0 {
		inner := 0
		for _, wd := range widths {
			inner += wd + 3
		}
		inner--
		for _, f := range footer {
			if extra := width(f) - (inner - 2); extra > 0 {
				widths[ncol-1] += extra
				inner += extra
			}
		}
	}
	bar := func(l, m, r string) {
		parts := make([]string, ncol)
		for c, wd := range widths {
			parts[c] = strings.Repeat("─", wd+2)
		}
		fmt.Fprintln(w, l+strings.Join(parts, m)+r)
	}
	line := func(cells []string, align func(c int, s string) string) {
		parts := make([]string, ncol)
		for c, s := range cells {
			parts[c] = align(c, s)
		}
		fmt.Fprintln(w, "│ "+strings.Join(parts, " │ ")+" │")
	}
	centered := func(c int, s string) string { return center(s, widths[c]) }
	aligned := func(c int, s string) string { return pad(s, widths[c], right[c]) }
	if ncol == 0 {
		fmt.Fprintln(w, "(no columns)")
		return
	}
	bar("┌", "┬", "┐")
	line(names, centered)
	if duck {
		line(types, centered)
	}
	if len(cells) > 0 {
		bar("├", "┼", "┤")
	}
	for i, row := range cells {
		if truncated && i == duckboxMaxRows/2 {
			dots := make([]string, ncol)
			for c := range dots {
				dots[c] = "·"
			}
			for range 3 {
				line(dots, aligned)
			}
		}
		line(row, aligned)
	}
	bar("└", "┴", "┘")
	total := 1
	for _, wd := range widths {
		total += wd + 3
	}
	for _, f := range footer {
		// Centered inside the box's borders, as DuckDB places it.
		fmt.Fprintln(w, strings.TrimRight(" "+center(f, total-2), " "))
	}
}

func (t *table) rows() [][]string {
	rows := make([][]string, t.nrows)
	for r := range rows {
		rows[r] = t.row(r)
	}
	return rows
}

func writeCSV(w io.Writer, t *table) error {
	cw := csv.NewWriter(w)
	cw.Write(t.names)
	cw.WriteAll(t.rows())
	return cw.Error()
}

// writeLines is sqlite's line mode: one "name = value" line per column,
// names right-aligned, a blank line between rows.
func writeLines(w io.Writer, t *table) {
	wd := 0
	for _, n := range t.names {
		wd = max(wd, width(n))
	}
	for r := range t.nrows {
		if r > 0 {
			fmt.Fprintln(w)
		}
		for c, v := range t.row(r) {
			fmt.Fprintf(w, "%s = %s\n", pad(t.names[c], wd, true), v)
		}
	}
}

func writeMarkdown(w io.Writer, t *table) {
	rows := t.rows()
	widths := make([]int, len(t.names))
	for c, n := range t.names {
		widths[c] = max(width(n), 3)
	}
	for r := range rows {
		for c := range rows[r] {
			rows[r][c] = strings.ReplaceAll(oneLineCell(rows[r][c]), "|", `\|`)
			widths[c] = max(widths[c], width(rows[r][c]))
		}
	}
	line := func(cells []string, align bool) {
		parts := make([]string, len(cells))
		for c, s := range cells {
			parts[c] = pad(s, widths[c], align && t.right[c])
		}
		fmt.Fprintln(w, "| "+strings.Join(parts, " | ")+" |")
	}
	line(t.names, false)
	seps := make([]string, len(t.names))
	for c := range seps {
		if t.right[c] {
			seps[c] = strings.Repeat("-", widths[c]+1) + ":"
		} else {
			seps[c] = strings.Repeat("-", widths[c]+2)
		}
	}
	fmt.Fprintln(w, "|"+strings.Join(seps, "|")+"|")
	for _, row := range rows {
		line(row, true)
	}
}

// writeJSONRows writes an array of objects, one row a line, as DuckDB's
// json mode; numbers stay numbers and nulls are null.
func writeJSONRows(w io.Writer, t *table) error {
	j := newJSONRows(w, t.names)
	j.add(t)
	return j.close()
}

// jsonRows writes the rows of one result, given in parts (a stream's
// batches), as one JSON array.
type jsonRows struct {
	w    io.Writer
	keys [][]byte
	n    int // rows written
}

func newJSONRows(w io.Writer, names []string) *jsonRows {
	keys := make([][]byte, len(names))
	for c, n := range names {
		keys[c], _ = json.Marshal(n)
	}
	return &jsonRows{w: w, keys: keys}
}

func (j *jsonRows) add(t *table) {
	for r := range t.nrows {
		if j.n == 0 {
			fmt.Fprint(j.w, "[")
		} else {
			fmt.Fprint(j.w, ",\n")
		}
		j.n++
		fmt.Fprint(j.w, "{")
		for c := range j.keys {
			if c > 0 {
				fmt.Fprint(j.w, ",")
			}
			b, err := json.Marshal(t.json(r, c))
			if err != nil {
				// NaN and infinities are no JSON numbers: written as text.
				b, _ = json.Marshal(t.text(r, c))
			}
			fmt.Fprintf(j.w, "%s:%s", j.keys[c], b)
		}
		fmt.Fprint(j.w, "}")
	}
}

func (j *jsonRows) close() error {
	if j.n == 0 {
		fmt.Fprint(j.w, "[")
	}
	_, err := fmt.Fprintln(j.w, "]")
	return err
}

// writeList is sqlite's list mode with headers: values joined by '|'.
func writeList(w io.Writer, t *table) {
	fmt.Fprintln(w, strings.Join(t.names, "|"))
	for r := range t.nrows {
		fmt.Fprintln(w, strings.Join(t.row(r), "|"))
	}
}
