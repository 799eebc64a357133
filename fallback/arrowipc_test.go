package fallback_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/fallback"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// Arrow IPC files read through LocalFiles: the same rows, written by
// arrow-go as an IPC file (two record batches) and an IPC stream (two
// record batches), read by rigel's engines (the host device, and DuckDB
// alone when there is no device) and compared exactly, types included,
// with DuckDB's answer over the same rows as SQL VALUES.

// ipcRow is one row of the test data; nil pointers are nulls.
type ipcRow struct {
	id   int64
	i32  *int32
	amt  *big.Int // decimal(12,2), unscaled
	huge *big.Int // decimal(38,4), unscaled
	day  *int32   // days since 1970-01-01
	s    *string
	f    *float64
	b    *bool
}

func ptr[T any](v T) *T { return &v }

func ipcRows(from, to int) []ipcRow {
	var rows []ipcRow
	for r := from; r < to; r++ {
		x := ipcRow{id: int64(r)}
		if r%5 != 3 {
			x.i32 = ptr(int32(r*7 - 20))
		}
		if r%4 != 1 {
			x.amt = big.NewInt(int64(r)*12345 - 50000)
		}
		if r%6 != 2 {
			h, _ := new(big.Int).SetString("123456789012345678901234567890123", 10)
			x.huge = h.Mul(h, big.NewInt(int64(r-8)))
			x.huge.Div(x.huge, big.NewInt(int64(r%3+1)))
		}
		if r%7 != 4 {
			x.day = ptr(int32(r*397 - 1000))
		}
		switch {
		case r%3 == 2:
		case r%9 == 0:
			x.s = ptr("")
		default:
			x.s = ptr(fmt.Sprintf("s%d-é'%d", r, r%4))
		}
		if r%8 != 5 {
			x.f = ptr(float64(r)*0.25 - 1)
		}
		if r%10 != 7 {
			x.b = ptr(r%2 == 0)
		}
		rows = append(rows, x)
	}
	return rows
}

var ipcSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "amt", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
	{Name: "huge", Type: &arrow.Decimal128Type{Precision: 38, Scale: 4}, Nullable: true},
	{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
}, nil)

// The plan's base schema for ipcSchema (names and Substrait types).
var (
	ipcNames = []string{"id", "i32", "amt", "huge", "day", "s", "f", "b"}
	ipcTypes = []string{i64T, `{"i32":{"nullability":"NULLABILITY_NULLABLE"}}`,
		`{"decimal":{"precision":12,"scale":2,"nullability":"NULLABILITY_NULLABLE"}}`,
		`{"decimal":{"precision":38,"scale":4,"nullability":"NULLABILITY_NULLABLE"}}`,
		`{"date":{"nullability":"NULLABILITY_NULLABLE"}}`, strNT,
		`{"fp64":{"nullability":"NULLABILITY_NULLABLE"}}`, boolT}
)

func ipcBatch(rows []ipcRow) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, ipcSchema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.id)
		appendOrNull(b.Field(1), r.i32 == nil, func() { b.Field(1).(*array.Int32Builder).Append(*r.i32) })
		appendOrNull(b.Field(2), r.amt == nil, func() { b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromBigInt(r.amt)) })
		appendOrNull(b.Field(3), r.huge == nil, func() { b.Field(3).(*array.Decimal128Builder).Append(decimal128.FromBigInt(r.huge)) })
		appendOrNull(b.Field(4), r.day == nil, func() { b.Field(4).(*array.Date32Builder).Append(arrow.Date32(*r.day)) })
		appendOrNull(b.Field(5), r.s == nil, func() { b.Field(5).(*array.StringBuilder).Append(*r.s) })
		appendOrNull(b.Field(6), r.f == nil, func() { b.Field(6).(*array.Float64Builder).Append(*r.f) })
		appendOrNull(b.Field(7), r.b == nil, func() { b.Field(7).(*array.BooleanBuilder).Append(*r.b) })
	}
	return b.NewRecordBatch()
}

func appendOrNull(b array.Builder, null bool, add func()) {
	if null {
		b.AppendNull()
	} else {
		add()
	}
}

// writeIPC writes the batches as an Arrow IPC file, or as a stream.
func writeIPC(t *testing.T, path string, stream bool, batches ...[]ipcRow) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var w interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	if stream {
		w = ipc.NewWriter(f, ipc.WithSchema(ipcSchema))
	} else if w, err = ipc.NewFileWriter(f, ipc.WithSchema(ipcSchema)); err != nil {
		t.Fatal(err)
	}
	for _, rows := range batches {
		rec := ipcBatch(rows)
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// valuesSQL is the rows as DuckDB SQL, every value cast to its column's type.
func valuesSQL(rows []ipcRow) string {
	lit := func(null bool, text, typ string) string {
		if null {
			return "CAST(NULL AS " + typ + ")"
		}
		return "CAST('" + strings.ReplaceAll(text, "'", "''") + "' AS " + typ + ")"
	}
	var vals []string
	for _, r := range rows {
		var c [8]string
		c[0] = lit(false, strconv.FormatInt(r.id, 10), "BIGINT")
		c[1] = lit(r.i32 == nil, fmt.Sprint(deref(r.i32)), "INTEGER")
		c[2] = lit(r.amt == nil, decText(r.amt, 2), "DECIMAL(12,2)")
		c[3] = lit(r.huge == nil, decText(r.huge, 4), "DECIMAL(38,4)")
		day := ""
		if r.day != nil {
			day = time.Unix(int64(*r.day)*86400, 0).UTC().Format("2006-01-02")
		}
		c[4] = lit(r.day == nil, day, "DATE")
		c[5] = lit(r.s == nil, deref(r.s), "VARCHAR")
		c[6] = lit(r.f == nil, strconv.FormatFloat(deref(r.f), 'g', -1, 64), "DOUBLE")
		c[7] = lit(r.b == nil, strconv.FormatBool(deref(r.b)), "BOOLEAN")
		vals = append(vals, "("+strings.Join(c[:], ", ")+")")
	}
	return "SELECT * FROM (VALUES " + strings.Join(vals, ", ") + ") AS v(" + strings.Join(ipcNames, ", ") + ")"
}

func deref[T any](p *T) T {
	var z T
	if p == nil {
		return z
	}
	return *p
}

func decText(v *big.Int, scale int) string {
	if v == nil {
		return ""
	}
	digits := new(big.Int).Abs(v).String()
	for len(digits) <= scale {
		digits = "0" + digits
	}
	s := digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	if v.Sign() < 0 {
		s = "-" + s
	}
	return s
}

// ipcRead is a LocalFiles read of the base schema from items (JSON).
func ipcRead(items []string, extra string) string {
	types := make([]string, len(ipcNames))
	copy(types, ipcTypes)
	return ipcReadOf(ipcNames, types, items, extra)
}

func ipcReadOf(names, types, items []string, extra string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = `"` + n + `"`
	}
	return `{"read":{"common":{"direct":{}},"baseSchema":{"names":[` + strings.Join(q, ",") + `],"struct":{"types":[` +
		strings.Join(types, ",") + `],"nullability":"NULLABILITY_REQUIRED"}}` + extra + `,"localFiles":{"items":[` + strings.Join(items, ",") + `]}}}`
}

func noDeviceEngine(t *testing.T) *duckdbbridge.Engine {
	t.Helper()
	tpchEngine(t) // makes the database file when missing
	db, err := sql.Open("duckdb", tpchPath+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return duckdbbridge.NewEngine(db, tpchPath, nil, "no device in this test")
}

func TestArrowIPCFiles(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one")
	if err := os.MkdirAll(one, 0o755); err != nil {
		t.Fatal(err)
	}
	fileA := filepath.Join(one, "a.arrow")
	streamB := filepath.Join(one, "b.arrows")
	writeIPC(t, fileA, false, ipcRows(0, 6), ipcRows(6, 10))
	writeIPC(t, streamB, true, ipcRows(10, 13), nil, ipcRows(13, 17))
	all, rowsA := ipcRows(0, 17), ipcRows(0, 10)
	items := []string{`{"uriFile":"file://` + fileA + `","arrow":{}}`, `{"uriPath":"` + streamB + `","arrow":{},"partitionIndex":"1"}`}

	projected := ipcRead(items, `,"filter":`+call(fnLt, boolT, fld(1), `{"literal":{"i32":40}}`)+
		`,"projection":{"select":{"structItems":[{"field":5},{"field":3},{"field":0},{"field":4}]},"maintainSingularStruct":true}`)
	cases := []struct {
		name, rel, sql string
		names          []string
	}{
		{"two files, file and stream format", ipcRead(items, ""), valuesSQL(all), ipcNames},
		{"folder", ipcRead([]string{`{"uriFolder":"file://` + one + `/","arrow":{}}`}, ""), valuesSQL(all), ipcNames},
		{"glob", ipcRead([]string{`{"uriPathGlob":"` + one + `/*.arrow","arrow":{}}`}, ""), valuesSQL(rowsA), ipcNames},
		{"filter and projection", projected, "SELECT s, huge, id, day FROM (" + valuesSQL(all) + ") WHERE i32 < 40",
			[]string{"s", "huge", "id", "day"}},
		{"emit", `{"read":` + strings.TrimPrefix(strings.Replace(ipcRead(items, ""), `"common":{"direct":{}}`, `"common":{"emit":{"outputMapping":[2,0]}}`, 1), `{"read":`),
			"SELECT amt, id FROM (" + valuesSQL(all) + ")", []string{"amt", "id"}},
		{"aggregate over the files", `{"aggregate":{"input":` + ipcRead(items, "") + `,"groupingExpressions":[` + fld(7) + `],"groupings":[{"expressionReferences":[0]}],
			"measures":[{"measure":{"functionReference":` + fnCount + `,"outputType":` + i64T + `,"phase":"AGGREGATION_PHASE_INITIAL_TO_RESULT","invocation":"AGGREGATION_INVOCATION_ALL","arguments":[{"value":` + fld(5) + `}]}}]}}`,
			"SELECT b, count(s) FROM (" + valuesSQL(all) + ") GROUP BY b", []string{"b", "n"}},
		// A filter holding a subquery falls back to DuckDB SQL: the files
		// are then read by rigel and given to DuckDB as a table.
		{"filter with a subquery (DuckDB subtree)", ipcRead(items, `,"filter":`+call(fnLt, boolT, fld(0),
			`{"subquery":{"scalar":{"input":{"aggregate":{"input":`+region()+`,"groupings":[{}],"measures":[{"measure":{"functionReference":`+fnCountStar+
				`,"outputType":`+i64T+`,"phase":"AGGREGATION_PHASE_INITIAL_TO_RESULT","invocation":"AGGREGATION_INVOCATION_ALL"}}]}}}}}`)),
			"SELECT * FROM (" + valuesSQL(all) + ") WHERE id < (SELECT count(*) FROM region)", ipcNames},
	}
	ctx := context.Background()
	for _, eng := range []struct {
		name string
		e    *duckdbbridge.Engine
	}{{"host", tpchEngine(t)}, {"nodevice", noDeviceEngine(t)}} {
		for _, c := range cases {
			t.Run(eng.name+"/"+strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
				res, err := eng.e.RunPlan(ctx, []byte(planJSON(relCase{rel: c.rel, names: c.names})))
				if err != nil {
					t.Fatal(err)
				}
				defer res.Release()
				oracle, err := eng.e.RunOnDuckDB(ctx, c.sql)
				if err != nil {
					t.Fatal(err)
				}
				defer oracle.Release()
				for i := 0; i < int(oracle.Record.NumCols()); i++ {
					g, w := res.Record.Column(i).DataType(), oracle.Record.Column(i).DataType()
					if !arrow.TypeEqual(g, w) {
						t.Fatalf("column %d is %s, DuckDB's is %s", i, g, w)
					}
				}
				if err := arrowfmt.Compare(res.Record, oracle.Record, false); err != nil {
					t.Fatalf("differs from DuckDB: %v\n%s", err, res.Plan)
				}
				if res.Record.NumRows() == 0 {
					t.Fatal("no rows: the case tests nothing")
				}
				t.Logf("%d rows on %s; %s", res.Record.NumRows(), res.Where, res.Reason)
			})
		}
	}
}

// Bad files and reads rigel does not implement: clear errors naming the
// file (or item), on every engine, never a panic.
func TestArrowIPCFileErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.arrow")
	writeIPC(t, good, false, ipcRows(0, 6), ipcRows(6, 10))
	goodStream := filepath.Join(dir, "good.arrows")
	writeIPC(t, goodStream, true, ipcRows(0, 6), ipcRows(6, 10))
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	sdata, err := os.ReadFile(goodStream)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	csvFile := write("text.arrow", []byte("id,s\n1,a\n"))
	truncated := write("truncated.arrow", data[:len(data)/2])
	truncatedStream := write("truncated.arrows", sdata[:len(sdata)*2/3])
	garbage := write("garbage.arrow", append([]byte("ARROW1\x00\x00"), []byte(strings.Repeat("\xff\x01junk", 40)+"ARROW1")...))
	missing := filepath.Join(dir, "missing.arrow")
	item := func(p string) []string { return []string{`{"uriFile":"file://` + p + `","arrow":{}}`} }

	i32Types := append([]string(nil), ipcTypes...)
	i32Types[0] = `{"i32":{"nullability":"NULLABILITY_REQUIRED"}}`
	notNull := append([]string(nil), ipcTypes...)
	notNull[1] = `{"i32":{"nullability":"NULLABILITY_REQUIRED"}}`
	wrongScale := append([]string(nil), ipcTypes...)
	wrongScale[2] = `{"decimal":{"precision":12,"scale":3,"nullability":"NULLABILITY_NULLABLE"}}`
	renamed := append([]string(nil), ipcNames...)
	renamed[5] = "name"
	cases := []struct {
		name, rel  string
		want       []string // every one must be in the error
		deviceOnly bool     // the no-device engine answers "no device" (its SQL writer refuses it first)
	}{
		{"missing file", ipcRead(item(missing), ""), []string{missing, "no such file"}, false},
		{"not Arrow IPC", ipcRead(item(csvFile), ""), []string{csvFile, "is not an Arrow IPC file"}, false},
		{"truncated file", ipcRead(item(truncated), ""), []string{truncated, "truncated or damaged"}, false},
		{"truncated stream", ipcRead(item(truncatedStream), ""), []string{truncatedStream, "truncated or damaged"}, false},
		{"garbage after the magic", ipcRead(item(garbage), ""), []string{garbage}, false},
		{"second file missing", ipcRead(append(item(good), item(missing)...), ""), []string{missing}, false},
		{"type mismatch", ipcReadOf(ipcNames, i32Types, item(good), ""), []string{good, "column id", "int64"}, false},
		{"decimal scale mismatch", ipcReadOf(ipcNames, wrongScale, item(good), ""), []string{good, "column amt", "decimal(12, 2)"}, false},
		{"no such column", ipcReadOf(renamed, ipcTypes, item(good), ""), []string{good, "no column name", "s utf8"}, false},
		{"nulls in a NOT NULL column", ipcReadOf(ipcNames, notNull, item(good), ""), []string{good, "column i32 holds nulls"}, false},
		{"glob without files", ipcRead([]string{`{"uriPathGlob":"` + dir + `/*.nothing","arrow":{}}`}, ""), []string{"matches no file"}, false},
		{"byte range", ipcRead([]string{`{"uriFile":"file://` + good + `","arrow":{},"start":"8","length":"100"}`}, ""), []string{"byte range"}, true},
		{"mixed formats", ipcRead(append(item(good), `{"uriFile":"file://`+good+`","parquet":{}}`), ""), []string{"one read has one file format"}, true},
		{"another host", ipcRead([]string{`{"uriFile":"file://elsewhere/x.arrow","arrow":{}}`}, ""), []string{"names another host"}, true},
	}
	ctx := context.Background()
	for _, eng := range []struct {
		name string
		e    *duckdbbridge.Engine
	}{{"host", tpchEngine(t)}, {"nodevice", noDeviceEngine(t)}} {
		for _, c := range cases {
			t.Run(eng.name+"/"+strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
				res, err := eng.e.RunPlan(ctx, []byte(planJSON(relCase{rel: c.rel, names: ipcNames})))
				if err == nil {
					res.Release()
					t.Fatalf("ran (on %s), want an error", res.Where)
				}
				want := c.want
				if c.deviceOnly && eng.name == "nodevice" {
					want = []string{"no device in this test"}
				}
				for _, w := range want {
					if !strings.Contains(err.Error(), w) {
						t.Fatalf("error %q, want one containing %q", err, w)
					}
				}
				t.Logf("%v", err)
			})
		}
	}
}

// writeArrowFile writes a DuckDB query's Arrow result as an Arrow IPC file.
func writeArrowFile(t *testing.T, db *sql.DB, path, query string) {
	t.Helper()
	rr, err := fallback.RunSQL(context.Background(), db, query)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(rr.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	for rr.Next() {
		if err := w.Write(rr.RecordBatch()); err != nil {
			t.Fatal(err)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// A column of a type the device cannot hold (a timestamp here) is not read
// when the read's projection leaves it out, and is an error naming it when
// the plan uses it.
func TestArrowIPCUnusedColumn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ts.arrow")
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	for i := int64(0); i < 3; i++ {
		b.Field(0).(*array.Int64Builder).Append(i + 10)
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(i * 1e6))
	}
	rec := b.NewRecordBatch()
	b.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema))
	if err == nil {
		err = w.Write(rec)
	}
	if err == nil {
		err = w.Close()
	}
	f.Close()
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"id", "ts"}
	types := []string{i64T, `{"precisionTimestamp":{"precision":6,"nullability":"NULLABILITY_NULLABLE"}}`}
	items := []string{`{"uriFile":"file://` + path + `","arrow":{}}`}
	eng := tpchEngine(t)
	ctx := context.Background()

	rel := ipcReadOf(names, types, items, `,"projection":{"select":{"structItems":[{"field":0}]},"maintainSingularStruct":true}`)
	res, err := eng.RunPlan(ctx, []byte(planJSON(relCase{rel: rel, names: []string{"id"}})))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	oracle, err := eng.RunOnDuckDB(ctx, "SELECT * FROM (VALUES (10::BIGINT), (11), (12))")
	if err != nil {
		t.Fatal(err)
	}
	defer oracle.Release()
	if err := arrowfmt.Compare(res.Record, oracle.Record, false); err != nil {
		t.Fatalf("differs from DuckDB: %v\n%s", err, res.Plan)
	}
	if !strings.Contains(res.Plan, "ArrowFiles") || strings.Contains(res.Plan, "ts]") || res.Reason != "" {
		t.Fatalf("want a device read of column id alone, got (%s)\n%s", res.Reason, res.Plan)
	}

	_, err = eng.RunPlan(ctx, []byte(planJSON(relCase{rel: ipcReadOf(names, types, items, ""), names: names})))
	if err == nil || !strings.Contains(err.Error(), "column ts") {
		t.Fatalf("error %v, want one naming column ts", err)
	}
	t.Log(err)
}
