package duckdbbridge

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
	"github.com/rigel-db/rigel/substrait"
)

// TestUnsignedPlanTypes: the producer writes each unsigned type as the
// signed type that holds all its values, literals included (a UBIGINT
// constant above 2^63 is a decimal(20,0) literal).
func TestUnsignedPlanTypes(t *testing.T) {
	db := openCorpusDB(t)
	p, err := ProducePlan(context.Background(), testConn(t, db),
		"SELECT uti, usi, ui, ubi, 18446744073709551615::UBIGINT AS big FROM u WHERE ubi <> 9223372036854775808")
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := substrait.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ty := range loaded.Root.RecordType().Types() {
		got = append(got, ty.String())
	}
	want := []string{"i16?", "i32?", "i64?", "decimal?<20,0>", "decimal<20,0>"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("root types %v, want %v", got, want)
	}
}

// TestUnsignedRefusals: what widening would change is refused with a reason
// naming it, and the engine then gives DuckDB's own answer or error.
func TestUnsignedRefusals(t *testing.T) {
	db := openCorpusDB(t)
	conn := testConn(t, db)
	e := NewEngine(db, "unsigned-refusals", host.New(), "")
	for _, c := range []struct{ q, reason, duckErr string }{
		// 255 + 255 is an error in UTINYINT, 510 in the widened i16.
		{"SELECT uti + uti AS a FROM u", "function +(UTINYINT, UTINYINT) -> UTINYINT", "Overflow in addition"},
		{"SELECT uti - 1 AS a FROM u", "function -(UTINYINT, UTINYINT) -> UTINYINT", "Overflow in subtraction"},
		{"SELECT abs(ubi) AS a FROM u", "function abs(UBIGINT) -> UBIGINT", ""},
		// -1 cannot become UTINYINT: DuckDB's conversion error.
		{"SELECT CAST(ti AS UTINYINT) AS a FROM w", "cast from TINYINT to UTINYINT", "out of range"},
		// 65535 does not fit UTINYINT.
		{"SELECT CAST(usi AS UTINYINT) AS a FROM u", "cast from USMALLINT to UTINYINT", "out of range"},
		{"SELECT CAST(s AS UBIGINT) AS a FROM w WHERE id = 1", "cast from VARCHAR to UBIGINT", "Could not convert"},
	} {
		_, err := ProducePlan(context.Background(), conn, c.q)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%s: producer error %v, want a refusal naming %q", c.q, err, c.reason)
			continue
		}
		res, err := e.Query(context.Background(), c.q)
		if c.duckErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.duckErr) {
				t.Errorf("%s: engine error %v, want DuckDB's %q", c.q, err, c.duckErr)
			}
			if res != nil {
				res.Release()
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if res.Where != OnFallback {
			t.Errorf("%s: ran on %s, want DuckDB", c.q, res.Where)
		}
		res.Release()
	}
}

// TestUnsignedOnDevice: queries over unsigned columns run on the device,
// equal DuckDB's answer, and come back in DuckDB's Arrow types (uint8 ...
// uint64 where DuckDB's result is unsigned).
func TestUnsignedOnDevice(t *testing.T) {
	db := openCorpusDB(t)
	e := NewEngine(db, "unsigned-device", host.New(), "")
	for _, q := range []string{
		"SELECT id, uti, usi, ui, ubi FROM u WHERE ubi > 1000 OR uti = 0",
		"SELECT id, ubi FROM u WHERE ubi >= 9223372036854775808",
		"SELECT id, uti, usi FROM u WHERE uti IN (128, 255) OR usi BETWEEN 30000 AND 40000",
		"SELECT uti, count(*) AS n, min(ubi) AS lo, max(ubi) AS hi, sum(ubi) AS s, sum(uti) AS t FROM u GROUP BY uti",
		"SELECT min(uti), max(usi), min(ui), max(ubi), count(ubi) FROM u",
		"SELECT a.id, b.id AS other, a.ubi FROM u a JOIN u b ON a.ubi = b.ubi AND a.id < b.id",
		"SELECT u.id, w.id AS wid, u.uti, w.ti FROM u JOIN w ON u.uti = w.ti",
		"SELECT u.id, w.id AS wid, u.ubi FROM u LEFT JOIN w ON u.ubi = w.bi",
		"SELECT id, CAST(uti AS INTEGER) AS a, CAST(ubi AS HUGEINT) AS b, CAST(uti AS USMALLINT) AS c, CAST(ui AS UBIGINT) AS d FROM u",
		"SELECT id, CAST(ubi AS BIGINT) AS a, CAST(ui AS INTEGER) AS b FROM u WHERE id NOT IN (3, 13, 14)",
		"SELECT DISTINCT usi FROM u",
		"SELECT id, coalesce(ubi, 7) AS a, CASE WHEN uti > 100 THEN uti END AS b FROM u",
	} {
		t.Run(q, func(t *testing.T) { checkDeviceTypes(t, e, q) })
	}
}

// TestResultDecimalPrecision: a cast that only widens a decimal's precision
// (which the translator drops) still comes back in DuckDB's Arrow type.
func TestResultDecimalPrecision(t *testing.T) {
	e := NewEngine(openCorpusDB(t), "decimal-precision", host.New(), "")
	checkDeviceTypes(t, e, "SELECT id, CAST(d2 AS DECIMAL(18,2)) AS a, CAST(d10 AS DECIMAL(38,10)) AS b, CAST(d4 AS DECIMAL(30,4)) AS c FROM w")
}

// checkDeviceTypes runs q on the device: it must run there whole, equal
// DuckDB's answer and have DuckDB's Arrow types.
func checkDeviceTypes(t *testing.T, e *Engine, q string) {
	t.Helper()
	got, err := e.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if got.Where != OnHost || got.Reason != "" {
		t.Errorf("ran on %s (%s), want the device", got.Where, got.Reason)
	}
	want, err := e.RunOnDuckDB(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Release()
	if err := arrowfmt.Compare(got.Record, want.Record, false); err != nil {
		t.Fatal(err)
	}
	for i, f := range want.Record.Schema().Fields() {
		if g := got.Record.Schema().Field(i).Type; !arrow.TypeEqual(g, f.Type) {
			t.Errorf("column %s: Arrow type %s, DuckDB's is %s", f.Name, g, f.Type)
		}
	}
}

// TestUnsignedCastOverflow: a cast from an unsigned type to a narrower
// signed one fails on the device where DuckDB's fails (4294967295 as
// INTEGER, 2^64-1 as BIGINT), instead of wrapping.
func TestUnsignedCastOverflow(t *testing.T) {
	db := openCorpusDB(t)
	e := NewEngine(db, "unsigned-overflow", host.New(), "")
	for _, q := range []string{
		"SELECT CAST(ui AS INTEGER) AS a FROM u",
		"SELECT CAST(ubi AS BIGINT) AS a FROM u",
		"SELECT CAST(uti AS TINYINT) AS a FROM u",
	} {
		if _, err := e.RunOnDuckDB(context.Background(), q); err == nil {
			t.Fatalf("%s: DuckDB gives no error, the test's premise is wrong", q)
		}
		p, err := e.Prepare(context.Background(), q)
		if err != nil || p.Reason != "" {
			t.Fatalf("%s: not planned for the device: %v %s", q, err, p.Reason)
		}
		res, err := e.Query(context.Background(), q)
		if err == nil {
			res.Release()
			t.Errorf("%s: the engine gave an answer, DuckDB an error", q)
		}
	}
}

// TestTablesWidenUnsigned: Tables hands scans the widened types, with the
// same values.
func TestTablesWidenUnsigned(t *testing.T) {
	db := openCorpusDB(t)
	tb := NewTables(db, "unsigned-tables")
	s, err := tb.TableSchema(context.Background(), "u")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"int32", "int16", "int32", "int64", "decimal(20, 0)"}
	for i, f := range s.Fields() {
		if f.Type.String() != want[i] {
			t.Errorf("column %s: %s, want %s", f.Name, f.Type, want[i])
		}
	}
	rr, err := tb.ScanColumns(context.Background(), "u", []string{"ubi", "uti"})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	seen := map[string]bool{}
	for rr.Next() {
		rec := rr.RecordBatch()
		ubi := rec.Column(0).(*array.Decimal128)
		uti := rec.Column(1).(*array.Int16)
		for i := 0; i < int(rec.NumRows()); i++ {
			if !ubi.IsNull(i) {
				seen["ubi "+ubi.Value(i).BigInt().String()] = true
			}
			if !uti.IsNull(i) {
				seen["uti "+strconv.Itoa(int(uti.Value(i)))] = true
			}
		}
	}
	for _, k := range []string{"ubi 18446744073709551615", "ubi 9223372036854775808", "uti 255", "uti 128"} {
		if !seen[k] {
			t.Errorf("scan lacks %s", k)
		}
	}
}

// TestRetypeUnsignedRange: a widened result value outside the unsigned
// range is an error, never wrapped; nulls stay null.
func TestRetypeUnsignedRange(t *testing.T) {
	build := func(vals []int16, valid []bool) arrow.RecordBatch {
		b := array.NewInt16Builder(memory.DefaultAllocator)
		defer b.Release()
		b.AppendValues(vals, valid)
		a := b.NewArray()
		defer a.Release()
		s := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int16, Nullable: true}}, nil)
		return array.NewRecordBatch(s, []arrow.Array{a}, int64(len(vals)))
	}
	u8 := []arrow.DataType{arrow.PrimitiveTypes.Uint8}
	rec, err := retypeResult(build([]int16{0, 255, 7}, []bool{true, true, false}), u8)
	if err != nil {
		t.Fatal(err)
	}
	col := rec.Column(0).(*array.Uint8)
	if col.Value(0) != 0 || col.Value(1) != 255 || !col.IsNull(2) {
		t.Errorf("retyped to %v", col)
	}
	rec.Release()
	for _, bad := range []int16{-1, 256} {
		if rec, err := retypeResult(build([]int16{bad}, nil), u8); err == nil {
			rec.Release()
			t.Errorf("%d retyped as UTINYINT without an error", bad)
		}
	}
}
