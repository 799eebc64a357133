package duckarrow

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	bindings "github.com/duckdb/duckdb-go-bindings"
)

// QueryColumn's one array equals the chunks QueryContext's reader gives,
// concatenated, for every type, with and without nulls, over several of
// DuckDB's chunks, and for a type it does not copy itself.
func TestQueryColumnMatchesTheReader(t *testing.T) {
	exprs := []string{
		"(i % 100)::TINYINT", "i::SMALLINT", "i::INTEGER * 7", "i::BIGINT * 1000000007", "(i / 7)::FLOAT", "(i / 7)::DOUBLE",
		"DATE '1992-01-01' + (i % 2500)::INTEGER", "TIMESTAMP '2000-01-01' + to_seconds(i * 37)",
		"((i % 1999) * 0.5)::DECIMAL(4,1)", "(i * 1.25)::DECIMAL(9,2) - 500", "(i * 1.25)::DECIMAL(15,2) - 5000",
		"(i * 1.5)::DECIMAL(30,3) - 1e6", "(i::HUGEINT * 100000000000000000)::DECIMAL(38,0)",
		"i % 3 = 0", "'v' || (i % 13)", "repeat('long string ', i % 4) || i", "''",
		"INTERVAL (i) DAY", // not copied by QueryColumn: the chunk-at-a-time way
	}
	ctx := context.Background()
	withConn(t, func(a *Arrow) {
		for _, e := range exprs {
			for _, nulls := range []string{"", "CASE WHEN i % 11 = 3 THEN NULL ELSE ", "CASE WHEN i >= 0 THEN NULL ELSE "} {
				sel := e
				if nulls != "" {
					sel = nulls + e + " END"
				}
				for _, rows := range []int{0, 1, 5000} {
					q := "SELECT " + sel + " AS c FROM range(" + itoa(rows) + ") r(i)"
					rr, err := a.QueryContext(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					want, err := concatChunks(rr.(*reader), rr.Schema().Field(0).Type)
					rr.Release()
					if err != nil {
						t.Fatal(err)
					}
					if c := copied(t, a, q, want.DataType()); c != !strings.HasPrefix(e, "INTERVAL") {
						t.Fatalf("%s: copied by QueryColumn itself: %v", q, c)
					}
					got, err := a.QueryColumn(ctx, q, want.DataType(), nil)
					if err != nil {
						t.Fatalf("%s: %v", q, err)
					}
					if !arrow.TypeEqual(got.DataType(), want.DataType()) || !array.Equal(got, want) || got.NullN() != want.NullN() {
						t.Fatalf("%s: QueryColumn gave %s (%d nulls), the reader %s (%d nulls)", q, got.DataType(), got.NullN(), want.DataType(), want.NullN())
					}
					got.Release()
					want.Release()
				}
			}
		}
	})
}

// A column whose Arrow type is not the one asked for is an error, never
// values read as another type.
func TestQueryColumnOtherType(t *testing.T) {
	withConn(t, func(a *Arrow) {
		for _, q := range []string{"SELECT range::INTEGER FROM range(3)", "SELECT INTERVAL (range) DAY FROM range(3)"} {
			if got, err := a.QueryColumn(context.Background(), q, arrow.PrimitiveTypes.Int64, nil); err == nil {
				t.Errorf("%s as int64: %s", q, got)
			}
		}
	})
}

// copied says whether QueryColumn copies q's column itself.
func copied(t *testing.T, a *Arrow, q string, want arrow.DataType) bool {
	rows, err := a.conn.QueryContext(context.Background(), q, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	res, err := resultOf(rows)
	if err != nil {
		t.Fatal(err)
	}
	lt := bindings.ColumnLogicalType(res, 0)
	defer bindings.DestroyLogicalType(&lt)
	return newVectorCopier(lt, want) != nil
}

func itoa(n int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}
