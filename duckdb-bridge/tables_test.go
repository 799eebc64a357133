package duckdbbridge

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
)

func TestTableSchema(t *testing.T) {
	db := openTestDB(t, false)
	tb := NewTables(db, "test.db")
	ctx := context.Background()
	s, err := tb.TableSchema(ctx, "LineItem")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"l_orderkey": "int64", "l_linenumber": "int32", "l_quantity": "decimal(15, 2)",
		"l_shipdate": "date32", "l_returnflag": "utf8",
	}
	for name, typ := range want {
		idx := s.FieldIndices(name)
		if len(idx) != 1 {
			t.Fatalf("lineitem has no field %s", name)
		}
		f := s.Field(idx[0])
		if f.Type.String() != typ || f.Nullable {
			t.Errorf("%s: %s nullable=%v, want %s NOT NULL", name, f.Type, f.Nullable, typ)
		}
	}
	ts, err := tb.TableSchema(ctx, "main.T")
	if err != nil {
		t.Fatal(err)
	}
	if ts.NumFields() != 10 || ts.Field(0).Nullable || !ts.Field(1).Nullable || ts.Field(5).Type.String() != "decimal(38, 0)" {
		t.Errorf("schema of t: %s", ts)
	}
	if _, err := tb.TableSchema(ctx, "no_such_table"); err == nil || !strings.Contains(err.Error(), "no_such_table") {
		t.Errorf("unknown table: %v", err)
	}
	if tb.ID() != "test.db" {
		t.Errorf("ID %q", tb.ID())
	}
}

// TestScanColumns: the Arrow scan gives the same values as database/sql.
func TestScanColumns(t *testing.T) {
	db := openTestDB(t, false)
	tb := NewTables(db, "test.db")
	ctx := context.Background()
	rr, err := tb.ScanColumns(ctx, "t", []string{"S", "a", "b", "d", "h"})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	if got := rr.Schema().Field(0).Name; got != "s" {
		t.Errorf("first field %q", got)
	}
	var arrowRows [][]any
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]any, rec.NumCols())
			for c := range row {
				row[c] = arrowCell(rec.Column(c), i)
			}
			arrowRows = append(arrowRows, row)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	sqlRows := queryRows(t, db, `SELECT s, a, b, d, h FROM t`)
	compareRows(t, arrowRows, sqlRows)
	if len(arrowRows) != 200 {
		t.Errorf("%d rows", len(arrowRows))
	}
	if _, err := tb.ScanColumns(ctx, "t", []string{"nope"}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown column: %v", err)
	}
}

// arrowCell normalizes one Arrow value for comparison with database/sql.
func arrowCell(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch x := a.(type) {
	case *array.Int32:
		return int64(x.Value(i))
	case *array.Int64:
		return x.Value(i)
	case *array.String:
		// Value aliases the batch's buffer, which is freed with the batch.
		return strings.Clone(x.Value(i))
	case *array.Float64:
		return x.Value(i)
	case *array.Boolean:
		return x.Value(i)
	case *array.Date32:
		return x.Value(i).ToTime().Format("2006-01-02")
	case *array.Decimal128:
		dt := x.DataType().(*arrow.Decimal128Type)
		return "dec:" + x.Value(i).BigInt().String() + "e-" + string(rune('0'+dt.Scale))
	}
	return a.ValueStr(i)
}

// sqlCell normalizes one database/sql value the same way.
func sqlCell(v any) any {
	switch x := v.(type) {
	case int32:
		return int64(x)
	case duckdb.Decimal:
		return "dec:" + x.Value.String() + "e-" + string(rune('0'+int(x.Scale)))
	case interface{ Format(string) string }:
		return x.Format("2006-01-02")
	case interface{ String() string }:
		if _, ok := v.(interface{ Sign() int }); ok { // *big.Int (HUGEINT)
			return "dec:" + x.String() + "e-0"
		}
	}
	return v
}
