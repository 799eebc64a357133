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
	arr, err := tb.SampleColumn(ctx, "T", "S", 50)
	if err != nil {
		t.Fatal(err)
	}
	defer arr.Release()
	if typ := arr.DataType().String(); typ != "utf8" {
		t.Errorf("type %s, want utf8", typ)
	}
	if arr.Len() != 50 {
		t.Errorf("%d rows, want 50 (the table has 200)", arr.Len())
	}
	// A view has no rowid: its sample is its first rows all the same.
	if _, err := db.Exec("CREATE VIEW tv AS SELECT * FROM t"); err != nil {
		t.Fatal(err)
	}
	view, err := tb.SampleColumn(ctx, "tv", "s", 50)
	if err != nil || view.Len() != 50 {
		t.Fatalf("a view's sample: %v, %v", view, err)
	}
	view.Release()
	if _, err := tb.SampleColumn(ctx, "t", "nope", 10); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown column: %v", err)
	}
}
