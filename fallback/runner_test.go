package fallback

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// inputRecord holds a column of each type a device result downloads as,
// each with a null.
func inputRecord(t *testing.T) arrow.RecordBatch {
	t.Helper()
	dec := &arrow.Decimal128Type{Precision: 20, Scale: 3}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "c0", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "c1", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "c2", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "c3", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "c4", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "c5", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "c6", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "c7", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "c8", Type: dec, Nullable: true},
		{Name: "c9", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	valid := []bool{true, false, true}
	b.Field(0).(*array.BooleanBuilder).AppendValues([]bool{true, false, false}, valid)
	b.Field(1).(*array.Int8Builder).AppendValues([]int8{-128, 0, 127}, valid)
	b.Field(2).(*array.Int16Builder).AppendValues([]int16{-32768, 0, 32767}, valid)
	b.Field(3).(*array.Int32Builder).AppendValues([]int32{-1 << 31, 0, 1<<31 - 1}, valid)
	b.Field(4).(*array.Int64Builder).AppendValues([]int64{-1 << 63, 0, 1<<63 - 1}, valid)
	b.Field(5).(*array.Float32Builder).AppendValues([]float32{-1.5, 0, 3.25}, valid)
	b.Field(6).(*array.Float64Builder).AppendValues([]float64{-1e300, 0, 0.1}, valid)
	b.Field(7).(*array.Date32Builder).AppendValues([]arrow.Date32{-1, 0, 10470}, valid)
	big := decimal128.FromI64(-123456789012345678)
	b.Field(8).(*array.Decimal128Builder).AppendValues([]decimal128.Num{big.Mul(decimal128.FromI64(100)), decimal128.FromI64(0), decimal128.FromI64(1)}, valid)
	b.Field(9).(*array.StringBuilder).AppendValues([]string{"it's", "", "ünï"}, valid)
	return b.NewRecordBatch()
}

// Inputs reach DuckDB unchanged, nulls included, can be read more than
// once, and are gone after the run. (The split tests run the same on a
// read-only database.)
func TestRunOverInputs(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // the next query sees the same connection
	in := inputRecord(t)
	defer in.Release()
	r := Runner{DB: db}
	ctx := context.Background()
	out, err := r.RunOver(ctx, "SELECT * FROM rigel_input_0", []string{"rigel_input_0"}, []arrow.RecordBatch{in})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if err := arrowfmt.Compare(out, in, true); err != nil {
		t.Fatalf("round trip: %v", err)
	}
	for i, f := range out.Schema().Fields() {
		if !arrow.TypeEqual(f.Type, in.Schema().Field(i).Type) {
			t.Errorf("column %d comes back as %s, went in as %s", i, f.Type, in.Schema().Field(i).Type)
		}
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'rigel_input_0'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("the input table is still there (%d, %v)", n, err)
	}
	// An input read twice (a self join) gives all its rows both times.
	two, err := r.RunOver(ctx, "SELECT count(*) FROM rigel_input_0 a, rigel_input_0 b", []string{"rigel_input_0"}, []arrow.RecordBatch{in})
	if err != nil {
		t.Fatal(err)
	}
	defer two.Release()
	if got := arrowfmt.Value(two.Column(0), 0); got != "9" {
		t.Fatalf("self join of 3 rows counts %s, want 9", got)
	}
	if _, err := r.RunOver(ctx, "SELECT * FROM nowhere", nil, nil); err == nil {
		t.Fatal("a bad query gave no error")
	}
}

// An input of several of DuckDB's vectors (2,048 rows each, the last one
// short) reaches DuckDB whole: every vector's rows, in order, nulls where
// they were, for every column type a device result has.
func TestRunOverInputsOfManyVectors(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	one := inputRecord(t)
	defer one.Release()
	b := array.NewRecordBuilder(memory.DefaultAllocator, one.Schema())
	defer b.Release()
	const rows = 5001
	for i := range rows {
		for c := range int(one.NumCols()) {
			f := b.Field(c)
			if (i+c)%7 == 3 {
				f.AppendNull()
				continue
			}
			switch fb := f.(type) {
			case *array.BooleanBuilder:
				fb.Append(i%3 == 0)
			case *array.Int8Builder:
				fb.Append(int8(i))
			case *array.Int16Builder:
				fb.Append(int16(i))
			case *array.Int32Builder:
				fb.Append(int32(i * 1000))
			case *array.Int64Builder:
				fb.Append(int64(i) * 1_000_000_007)
			case *array.Float32Builder:
				fb.Append(float32(i) / 4)
			case *array.Float64Builder:
				fb.Append(float64(i) / 7)
			case *array.Date32Builder:
				fb.Append(arrow.Date32(i - 2000))
			case *array.Decimal128Builder:
				fb.Append(decimal128.FromI64(int64(i)*123456789 - 5))
			case *array.StringBuilder:
				fb.Append(fmt.Sprintf("row %d %s", i, strings.Repeat("x", i%20)))
			}
		}
	}
	in := b.NewRecordBatch()
	defer in.Release()
	out, err := Runner{DB: db}.RunOver(context.Background(), "SELECT * FROM rigel_input_0", []string{"rigel_input_0"}, []arrow.RecordBatch{in})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if err := arrowfmt.Compare(out, in, true); err != nil {
		t.Fatalf("%d rows: %v", rows, err)
	}
}
