package fallback

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkRunOverInputs hands DuckDB a device result of 1,000,000 rows
// (an integer, a decimal, a date, a string, nulls in one column) and
// counts it: what a fallback subtree above a device operator pays for its
// input. go test -run '^$' -bench RunOverInputs ./fallback
func BenchmarkRunOverInputs(b *testing.B) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	const rows = 1_000_000
	for i := range rows {
		if i%10 == 3 {
			rb.Field(0).AppendNull()
		} else {
			rb.Field(0).(*array.Int64Builder).Append(int64(i))
		}
		rb.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i) * 37))
		rb.Field(2).(*array.Date32Builder).Append(arrow.Date32(8000 + i%2500))
		rb.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("customer %d", i%5000))
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	r := Runner{DB: db}
	b.ResetTimer()
	for range b.N {
		out, err := r.RunOver(context.Background(), "SELECT count(*) FROM rigel_input_0", []string{"rigel_input_0"}, []arrow.RecordBatch{rec})
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
}
