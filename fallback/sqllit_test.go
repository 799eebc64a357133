package fallback

import (
	"context"
	"database/sql"
	"encoding/binary"
	"math"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

func decimalBytes(v int64) []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint64(b, uint64(v))
	hi := uint64(0)
	if v < 0 {
		hi = math.MaxUint64
	}
	binary.LittleEndian.PutUint64(b[8:], hi)
	return b
}

// Each literal written for DuckDB has the value and the type the plan
// says, as DuckDB prints them.
func TestLiteralsInDuckDB(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type L = proto.Expression_Literal
	i32 := &proto.Type{Kind: &proto.Type_I32_{I32: &proto.Type_I32{}}}
	cases := []struct {
		lit       *L
		value, ty string
	}{
		{&L{LiteralType: &proto.Expression_Literal_I8{I8: -5}}, "-5", "TINYINT"},
		{&L{LiteralType: &proto.Expression_Literal_I64{I64: math.MinInt64}}, "-9223372036854775808", "BIGINT"},
		{&L{LiteralType: &proto.Expression_Literal_Fp64{Fp64: 1.5}}, "1.5", "DOUBLE"},
		{&L{LiteralType: &proto.Expression_Literal_Fp64{Fp64: math.NaN()}}, "nan", "DOUBLE"},
		{&L{LiteralType: &proto.Expression_Literal_Fp32{Fp32: -0.25}}, "-0.25", "FLOAT"},
		{&L{LiteralType: &proto.Expression_Literal_String_{String_: "it's"}}, "it's", "VARCHAR"},
		{&L{LiteralType: &proto.Expression_Literal_Date{Date: 10470}}, "1998-09-01", "DATE"},
		{&L{LiteralType: &proto.Expression_Literal_Date{Date: -1}}, "1969-12-31", "DATE"},
		{&L{LiteralType: &proto.Expression_Literal_Decimal_{Decimal: &proto.Expression_Literal_Decimal{Value: decimalBytes(-12345), Precision: 10, Scale: 2}}}, "-123.45", "DECIMAL(10,2)"},
		{&L{LiteralType: &proto.Expression_Literal_Decimal_{Decimal: &proto.Expression_Literal_Decimal{Value: decimalBytes(5), Precision: 4, Scale: 3}}}, "0.005", "DECIMAL(4,3)"},
		{&L{LiteralType: &proto.Expression_Literal_Timestamp{Timestamp: 1_500_000}}, "1970-01-01 00:00:01.5", "TIMESTAMP"},
		{&L{LiteralType: &proto.Expression_Literal_Time{Time: 3_723_000_001}}, "01:02:03.000001", "TIME"},
		{&L{LiteralType: &proto.Expression_Literal_IntervalYearToMonth_{IntervalYearToMonth: &proto.Expression_Literal_IntervalYearToMonth{Years: 1, Months: 2}}}, "1 year 2 months", "INTERVAL"},
		{&L{LiteralType: &proto.Expression_Literal_IntervalDayToSecond_{IntervalDayToSecond: &proto.Expression_Literal_IntervalDayToSecond{Days: 3, Seconds: 4}}}, "3 days 00:00:04", "INTERVAL"},
		{&L{LiteralType: &proto.Expression_Literal_Null{Null: i32}}, "NULL", "INTEGER"},
		{&L{LiteralType: &proto.Expression_Literal_Binary{Binary: []byte{0, 'a', 0xff}}}, `\x00a\xFF`, "BLOB"},
		{&L{LiteralType: &proto.Expression_Literal_List_{List: &proto.Expression_Literal_List{Values: []*L{
			{LiteralType: &proto.Expression_Literal_I32{I32: 1}}, {LiteralType: &proto.Expression_Literal_Null{Null: i32}}}}}}, "[1, NULL]", "INTEGER[]"},
	}
	for _, c := range cases {
		s, err := protoLiteral(c.lit)
		if err != nil {
			t.Fatalf("%v: %v", c.lit, err)
		}
		var v sql.NullString
		var ty string
		if err := db.QueryRowContext(context.Background(), "SELECT CAST(x AS VARCHAR), typeof(x) FROM (SELECT "+s+" AS x)").Scan(&v, &ty); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		got := v.String
		if !v.Valid {
			got = "NULL"
		}
		if got != c.value || ty != c.ty {
			t.Errorf("%s: got %s %s, want %s %s", s, got, ty, c.value, c.ty)
		}
	}
}

// A literal DuckDB cannot hold exactly is an error, not a rounded value.
func TestLiteralRefusals(t *testing.T) {
	ts := &proto.Expression_Literal{LiteralType: &proto.Expression_Literal_PrecisionTimestamp_{
		PrecisionTimestamp: &proto.Expression_Literal_PrecisionTimestamp{Precision: 9, Value: 1_000_000_001}}}
	if _, err := protoLiteral(ts); err == nil {
		t.Fatal("a nanosecond timestamp was written without its nanoseconds")
	}
}

// Substrait's greatest and least are null when any argument is; DuckDB's
// pass over nulls, as Substrait's _skip_null forms do: each written form
// gives Substrait's answer in DuckDB.
func TestGreatestLeastInDuckDB(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"greatest", []string{"1", "NULL", "3"}, "NULL"},
		{"least", []string{"2", "5"}, "2"},
		{"greatest_skip_null", []string{"1", "NULL", "3"}, "3"},
		{"least_skip_null", []string{"NULL", "7", "4"}, "4"},
		{"least_skip_null", []string{"NULL", "NULL"}, "NULL"},
	} {
		q, err := scalarFuncs[c.name](c.args, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got sql.NullString
		if err := db.QueryRowContext(context.Background(), "SELECT CAST("+q+" AS VARCHAR)").Scan(&got); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if s := map[bool]string{true: got.String, false: "NULL"}[got.Valid]; s != c.want {
			t.Errorf("%s(%v) as %s: %s, want %s", c.name, c.args, q, s, c.want)
		}
	}
}
