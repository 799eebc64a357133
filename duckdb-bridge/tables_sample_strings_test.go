package duckdbbridge

import (
	"context"
	"strings"
	"testing"
)

// SampleColumn reads the first rows of one column, with ScanColumns' types
// and name matching.
func TestSampleColumn(t *testing.T) {
	db := openTestDB(t, false)
	tb := NewTables(db, "test.db")
	ctx := context.Background()
	rr, err := tb.SampleColumn(ctx, "T", "S", 50)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	if f := rr.Schema().Field(0); f.Name != "s" || f.Type.String() != "utf8" {
		t.Errorf("field %s %s, want s utf8", f.Name, f.Type)
	}
	rows := 0
	for rr.Next() {
		rows += int(rr.RecordBatch().NumRows())
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	if rows != 50 {
		t.Errorf("%d rows, want 50 (the table has 200)", rows)
	}
	if _, err := tb.SampleColumn(ctx, "t", "nope", 10); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown column: %v", err)
	}
}
