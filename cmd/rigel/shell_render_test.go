package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// testRecord: n rows of (i int64, s utf8 with a null every third row).
func testRecord(t *testing.T, n int) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for r := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(r * 10))
		if r%3 == 2 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(strings.Repeat("x", r%3+1))
		}
	}
	rec := b.NewRecordBatch()
	t.Cleanup(rec.Release)
	return rec
}

func render(t *testing.T, rec arrow.RecordBatch, mode string) string {
	var buf bytes.Buffer
	if err := renderResult(&buf, arrowTable(rec), mode, 0); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestDuckboxSmall(t *testing.T) {
	got := render(t, testRecord(t, 3), "duckbox")
	want := `┌───────┬─────────┐
│   i   │    s    │
│ int64 │ varchar │
├───────┼─────────┤
│     0 │ x       │
│    10 │ xx      │
│    20 │ NULL    │
└───────┴─────────┘
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// A long result shows its first and last 20 rows and a row-count footer,
// as DuckDB's duckbox does; an empty one says 0 rows.
func TestDuckboxTruncatedAndEmpty(t *testing.T) {
	got := render(t, testRecord(t, 100), "duckbox")
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	// 4 header lines, 40 rows, 3 dot rows, the bottom rule, 2 footer lines.
	if len(lines) != 4+40+3+1+2 {
		t.Fatalf("%d lines:\n%s", len(lines), got)
	}
	if !strings.Contains(lines[4+19], " 190 ") || !strings.Contains(lines[4+20], "·") || !strings.Contains(lines[4+23], " 800 ") {
		t.Fatalf("wrong rows around the gap:\n%s", got)
	}
	if strings.TrimSpace(lines[len(lines)-2]) != "100 rows" || strings.TrimSpace(lines[len(lines)-1]) != "(40 shown)" {
		t.Fatalf("footer %q", lines[len(lines)-2:])
	}
	empty := render(t, testRecord(t, 0), "duckbox")
	if strings.Contains(empty, "├") || !strings.HasSuffix(empty, "└───────┴─────────┘\n      0 rows\n") {
		t.Fatalf("empty result:\n%s", empty)
	}
}

func TestOtherModes(t *testing.T) {
	rec := testRecord(t, 3)
	cases := map[string]string{
		"csv":      "i,s\n0,x\n10,xx\n20,NULL\n",
		"list":     "i|s\n0|x\n10|xx\n20|NULL\n",
		"line":     "i = 0\ns = x\n\ni = 10\ns = xx\n\ni = 20\ns = NULL\n",
		"json":     "[{\"i\":0,\"s\":\"x\"},\n{\"i\":10,\"s\":\"xx\"},\n{\"i\":20,\"s\":null}]\n",
		"markdown": "| i   | s    |\n|----:|------|\n|   0 | x    |\n|  10 | xx   |\n|  20 | NULL |\n",
		"box":      "┌────┬──────┐\n│ i  │  s   │\n├────┼──────┤\n│  0 │ x    │\n│ 10 │ xx   │\n│ 20 │ NULL │\n└────┴──────┘\n",
	}
	for mode, want := range cases {
		if got := render(t, rec, mode); got != want {
			t.Errorf("%s: got\n%s\nwant\n%s", mode, got, want)
		}
	}
}

// A table wider than the terminal: long text is cut with "…", then middle
// columns hide behind a "…" column, and the footer says so.
func TestDuckboxFitsTerminal(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "first", Type: arrow.PrimitiveTypes.Int64},
		{Name: "comment", Type: arrow.BinaryTypes.String},
		{Name: "b", Type: arrow.PrimitiveTypes.Int64},
		{Name: "c", Type: arrow.PrimitiveTypes.Int64},
		{Name: "last", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer bld.Release()
	bld.Field(0).(*array.Int64Builder).Append(1)
	bld.Field(1).(*array.StringBuilder).Append(strings.Repeat("long text ", 10))
	for f := 2; f < 5; f++ {
		bld.Field(f).(*array.Int64Builder).Append(1234567890123)
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()

	var buf bytes.Buffer
	renderResult(&buf, arrowTable(rec), "duckbox", 200)
	if strings.Contains(buf.String(), "…") {
		t.Fatalf("a table that fits was cut:\n%s", buf.String())
	}
	for _, maxWidth := range []int{80, 60, 40} {
		buf.Reset()
		renderResult(&buf, arrowTable(rec), "duckbox", maxWidth)
		out := buf.String()
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		for _, l := range lines {
			if width(l) > maxWidth {
				t.Fatalf("width %d: line of %d characters:\n%s", maxWidth, width(l), out)
			}
		}
		if !strings.Contains(lines[1], "first") || !strings.Contains(lines[1], "last") {
			t.Fatalf("width %d: want the first and last columns kept:\n%s", maxWidth, out)
		}
		if maxWidth >= 60 && (!strings.Contains(lines[4], "│ long text") || !strings.Contains(lines[4], "… │")) {
			t.Fatalf("width %d: want the long text cut and the first and last columns kept:\n%s", maxWidth, out)
		}
		hid := strings.Contains(lines[1], "│ … │")
		if hid != (maxWidth < 80) || hid != strings.Contains(out, "5 columns (") {
			t.Fatalf("width %d: hidden columns %v, footer disagrees or wrong:\n%s", maxWidth, hid, out)
		}
	}
}
