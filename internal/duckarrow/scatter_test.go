package duckarrow

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// scatterExprs are columns of every type ScatterColumn copies.
var scatterExprs = []string{
	"(i % 100)::TINYINT", "(i % 30000)::SMALLINT - 15000", "i::INTEGER * 7", "i::BIGINT * 1000000007", "(i / 7)::FLOAT", "(i / 7)::DOUBLE",
	"DATE '1992-01-01' + (i % 2500)::INTEGER", "TIMESTAMP '2000-01-01' + to_seconds(i * 37)",
	"((i % 1999) * 0.5)::DECIMAL(4,1)", "(i * 1.25)::DECIMAL(9,2) - 500", "(i * 1.25)::DECIMAL(15,2) - 5000",
	"(i * 1.5)::DECIMAL(30,3) - 1e6", "(i::HUGEINT * 100000000000000000)::DECIMAL(38,0)",
	"'v' || (i % 13)", "repeat('long string ', i % 4) || i", "''",
}

// ScatterColumn's array equals QueryColumn's for every type it copies,
// with nulls nowhere, some or everywhere, for tables of none, one, a few
// thousand and several row groups of rows (DuckDB's threads then write
// side by side, also into the same validity words at their chunks' ends).
// The same rows written in another order (not a chunk a run of rowids)
// give the same array.
func TestScatterColumnMatchesQueryColumn(t *testing.T) {
	ctx := context.Background()
	withConn(t, func(a *Arrow) {
		exec(t, a, "SET threads = 4")
		nulls := []string{"", "CASE WHEN i % 11 = 3 OR i % 4099 < 70 THEN NULL ELSE ", "CASE WHEN i >= 0 THEN NULL ELSE "}
		for _, rows := range []int{0, 1, 5000, 300001} {
			sel, k := "i", 0
			for _, e := range scatterExprs {
				for _, n := range nulls {
					c := e
					if n != "" {
						c = n + e + " END"
					}
					sel += ", " + c + " AS c" + itoa(k)
					k++
				}
			}
			exec(t, a, "CREATE OR REPLACE TABLE t AS SELECT "+sel+" FROM range("+itoa(rows)+") r(i)")
			for c := range k {
				name := "c" + itoa(c)
				want, err := a.QueryColumn(ctx, "SELECT "+sqlQuote(name)+" FROM t", typeOf(t, a, name), nil)
				if err != nil {
					t.Fatal(err)
				}
				got, err := a.ScatterColumn(ctx, "t", sqlQuote(name), want.DataType(), nil)
				if err != nil {
					t.Fatalf("%d rows, %s: %v", rows, name, err)
				}
				same(t, "rows "+itoa(rows)+" "+name, got, want)
				got.Release()
				if rows > 1 && c%5 == 0 {
					spec, made, _ := scatterSpecOf(want.DataType())
					shuffled, err := a.scatter(ctx, "(SELECT rowid AS r, "+sqlQuote(name)+" AS v FROM t ORDER BY hash(rowid)) s", "r", "v", made, spec, int64(rows))
					if spec.strings != 0 {
						// Strings are gathered a run of rowids at a time:
						// rows out of order are refused, read another way.
						if !errors.Is(err, ErrNotScattered) {
							t.Fatalf("%s in another order: %v, want ErrNotScattered", name, err)
						}
					} else {
						if err != nil {
							t.Fatalf("%s in another order: %v", name, err)
						}
						same(t, "another order "+name, shuffled, want)
						shuffled.Release()
					}
				}
				want.Release()
			}
		}
	})
}

// ScatterDictionary's indices, looked up in its dictionary, are the
// column's strings (QueryColumn's), nulls where they are null; the
// dictionary holds each distinct string once, in byte order (strings
// inline in DuckDB's vectors and not, empty, a prefix of another,
// non-ASCII), whatever order DuckDB's threads wrote the rows in.
func TestScatterDictionaryMatchesQueryColumn(t *testing.T) {
	ctx := context.Background()
	exprs := []string{
		"'v' || (i % 13)", "repeat('long string ', i % 4) || (i % 5)", "''", "['ab', 'abc', 'a', 'é', 'z', 'ab '][1 + i % 6]",
		"'row ' || i", "CASE WHEN i % 7 = 0 THEN NULL ELSE chr(65 + (i % 3)::INTEGER) END", "CASE WHEN i >= 0 THEN NULL ELSE 'x' END",
	}
	withConn(t, func(a *Arrow) {
		exec(t, a, "SET threads = 4")
		for _, rows := range []int{0, 1, 5000, 300001} {
			sel := "i"
			for k, e := range exprs {
				sel += ", " + e + " AS s" + itoa(k)
			}
			exec(t, a, "CREATE OR REPLACE TABLE t AS SELECT "+sel+" FROM range("+itoa(rows)+") r(i)")
			for k := range exprs {
				name := "s" + itoa(k)
				want, err := a.QueryColumn(ctx, "SELECT "+name+" FROM t", arrow.BinaryTypes.String, nil)
				if err != nil {
					t.Fatal(err)
				}
				got, err := a.ScatterDictionary(ctx, "t", name, nil)
				if err != nil {
					t.Fatalf("%d rows, %s: %v", rows, exprs[k], err)
				}
				sameStrings(t, exprs[k], got, want)
				got.Release()
				want.Release()
			}
		}
	})
}

// What ScatterColumn cannot read it refuses with ErrNotScattered, having
// read nothing: a type it does not copy, a table whose rowids have a gap
// (a deleted row), a view, a column asked for as another type. ran is
// called once in every case.
func TestScatterColumnRefuses(t *testing.T) {
	ctx := context.Background()
	withConn(t, func(a *Arrow) {
		exec(t, a, "CREATE TABLE g AS SELECT i::INTEGER AS i, 'x' || i AS s FROM range(10000) r(i)")
		exec(t, a, "CREATE VIEW v AS SELECT i FROM g")
		cases := []struct {
			table, column string
			want          arrow.DataType
		}{
			{"g", "s", arrow.BinaryTypes.LargeString},
			{"g", "i", arrow.PrimitiveTypes.Int64},
			{"v", "i", arrow.PrimitiveTypes.Int32},
		}
		check := func(c struct {
			table, column string
			want          arrow.DataType
		}) {
			ran := 0
			got, err := a.ScatterColumn(ctx, c.table, c.column, c.want, func() { ran++ })
			if !errors.Is(err, ErrNotScattered) {
				t.Errorf("%s.%s as %s: %v, %v; want ErrNotScattered", c.table, c.column, c.want, got, err)
			}
			if ran != 1 {
				t.Errorf("%s.%s: ran called %d times", c.table, c.column, ran)
			}
		}
		for _, c := range cases {
			check(c)
		}
		// A column named rowid hides the row ids: its values repeat here
		// (0, 0, 2, ...) while count and max look dense.
		exec(t, a, "CREATE TABLE own AS SELECT CASE WHEN i = 1 THEN 0 ELSE i END AS rowid, i::INTEGER AS i FROM range(100) r(i)")
		check(struct {
			table, column string
			want          arrow.DataType
		}{"own", "i", arrow.PrimitiveTypes.Int32})
		// A gap: the rowids run to 10,000 but 9,999 rows remain.
		exec(t, a, "DELETE FROM g WHERE i = 17")
		check(cases[0])
		check(struct {
			table, column string
			want          arrow.DataType
		}{"g", "i", arrow.PrimitiveTypes.Int32})
	})
}

func exec(t *testing.T, a *Arrow, q string) {
	t.Helper()
	rows, err := a.conn.QueryContext(context.Background(), q, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	rows.Close()
}

func typeOf(t *testing.T, a *Arrow, name string) arrow.DataType {
	rr, err := a.QueryContext(context.Background(), "SELECT "+sqlQuote(name)+" FROM t LIMIT 0")
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	return rr.Schema().Field(0).Type
}

func sqlQuote(name string) string {
	out := `"`
	for _, r := range name {
		if r == '"' {
			out += `""`
		} else {
			out += string(r)
		}
	}
	return out + `"`
}

// same fails unless got (ScatterColumn's) holds want's values (QueryColumn's):
// the same array, or for a decimal of precision at most 18 a Decimal64
// one of the same values.
func same(t *testing.T, what string, got, want arrow.Array) {
	t.Helper()
	if d64, ok := got.(*array.Decimal64); ok {
		w, ok := want.(*array.Decimal128)
		wt := want.DataType().(*arrow.Decimal128Type)
		gt := got.DataType().(*arrow.Decimal64Type)
		if !ok || gt.Precision != wt.Precision || gt.Scale != wt.Scale || wt.Precision > 18 || got.Len() != want.Len() || got.NullN() != want.NullN() {
			t.Fatalf("%s: ScatterColumn gave %s (%d rows, %d nulls), QueryColumn %s (%d rows, %d nulls)", what,
				got.DataType(), got.Len(), got.NullN(), want.DataType(), want.Len(), want.NullN())
		}
		for i := range w.Len() {
			if w.IsNull(i) != d64.IsNull(i) || w.IsValid(i) && (int64(w.Value(i).LowBits()) != int64(d64.Value(i)) || w.Value(i).HighBits() != int64(d64.Value(i))>>63) {
				t.Fatalf("%s: row %d: %v, want %v", what, i, d64.Value(i), w.Value(i))
			}
		}
		return
	}
	if !arrow.TypeEqual(got.DataType(), want.DataType()) || got.NullN() != want.NullN() || !array.Equal(got, want) {
		t.Fatalf("%s: ScatterColumn gave %s (%d rows, %d nulls), QueryColumn %s (%d rows, %d nulls)", what,
			got.DataType(), got.Len(), got.NullN(), want.DataType(), want.Len(), want.NullN())
	}
}

// The scatter function is in the database's catalog, for any SQL to call:
// only the statement holding a column's token writes into it; any other
// call is an error that writes nothing.
func TestScatterFunctionNeedsTheToken(t *testing.T) {
	ctx := context.Background()
	withConn(t, func(a *Arrow) {
		exec(t, a, "CREATE TABLE k AS SELECT i::INTEGER AS i FROM range(100) r(i)")
		if err := a.registerScatter(); err != nil {
			t.Fatal(err)
		}
		spec, _, _ := scatterSpecOf(arrow.PrimitiveTypes.Int32)
		job, err := newScatterJob(spec, 100)
		if err != nil {
			t.Fatal(err)
		}
		defer job.close()
		token := job.token()
		for _, bad := range []int64{0, token + int64(len(scatterSlots.used)), token - 1} {
			if _, err := a.queryInt64(ctx, fmt.Sprintf("SELECT sum(rigel_scatter_column(%d, rowid, i))::BIGINT FROM k", bad)); err == nil {
				t.Errorf("token %d (the column's is %d) was let through", bad, token)
			}
		}
		for _, b := range append(job.data.B, job.valid.B...) {
			if b != 0 {
				t.Fatal("a refused call wrote into the column")
			}
		}
		// The token itself writes.
		n, err := a.queryInt64(ctx, fmt.Sprintf("SELECT sum(rigel_scatter_column(%d, rowid, i))::BIGINT FROM k", token))
		if err != nil || n != 100 {
			t.Fatalf("the column's own token: %d rows, %v", n, err)
		}
		arr, err := job.array(arrow.PrimitiveTypes.Int32)
		if err != nil {
			t.Fatal(err)
		}
		defer arr.Release()
		if v := arr.(*array.Int32).Value(99); v != 99 {
			t.Fatalf("row 99 holds %d", v)
		}
	})
}

// ScatterSegments' segments, put one after the other, are the column
// ScatterColumn (and ScatterDictionary) reads whole: for segments smaller
// than a row group, a few row groups, and larger than the table; for
// every type ScatterColumn copies with nulls, and for dictionaries, whose
// segments share one dictionary. An empty table is one empty segment.
func TestScatterSegmentsMatchWholeColumn(t *testing.T) {
	ctx := context.Background()
	withConn(t, func(a *Arrow) {
		exec(t, a, "SET threads = 4")
		for _, rows := range []int{0, 300001} {
			sel := "i"
			for k, e := range scatterExprs {
				sel += ", CASE WHEN i % 11 = 3 THEN NULL ELSE " + e + " END AS c" + itoa(k)
			}
			exec(t, a, "CREATE OR REPLACE TABLE t AS SELECT "+sel+" FROM range("+itoa(rows)+") r(i)")
			for _, per := range []int64{50000, 250000, 1 << 20} {
				for k := range scatterExprs {
					name := "c" + itoa(k)
					for _, dict := range []bool{false, true} {
						typ := typeOf(t, a, name)
						if dict && !arrow.TypeEqual(typ, arrow.BinaryTypes.String) {
							continue
						}
						var want arrow.Array
						var err error
						if dict {
							want, err = a.ScatterDictionary(ctx, "t", name, nil)
						} else {
							want, err = a.ScatterColumn(ctx, "t", name, typ, nil)
						}
						if err != nil {
							t.Fatal(err)
						}
						var parts []arrow.Array
						ran := 0
						err = a.ScatterSegments(ctx, "t", name, typ, dict, per, func(s arrow.Array) error {
							parts = append(parts, s)
							return nil
						}, func() { ran++ })
						what := fmt.Sprintf("%d rows in segments of %d, %s (dictionary %v)", rows, per, scatterExprs[k], dict)
						if err != nil || ran != 1 {
							t.Fatalf("%s: %v (ran called %d times)", what, err, ran)
						}
						if wantParts := max(1, (int64(rows)+per-1)/per); int64(len(parts)) != wantParts {
							t.Fatalf("%s: %d segments, want %d", what, len(parts), wantParts)
						}
						got, err := array.Concatenate(parts, memory.DefaultAllocator)
						if err != nil {
							t.Fatal(err)
						}
						for _, p := range parts {
							p.Release()
						}
						if !array.Equal(got, want) {
							t.Fatalf("%s: the segments differ from the whole column", what)
						}
						got.Release()
						want.Release()
					}
				}
			}
		}
	})
}

// A dictionary of more than 2^18 strings is indexed by several threads at
// once (rg_dict_index): every row still finds its own string's code.
func TestScatterDictionaryLargeIndex(t *testing.T) {
	ctx := context.Background()
	withConn(t, func(a *Arrow) {
		exec(t, a, "SET threads = 4")
		exec(t, a, "CREATE OR REPLACE TABLE big AS SELECT CASE WHEN i % 97 = 5 THEN NULL ELSE 'value ' || (i * 7919 % 600011) END AS s FROM range(1200000) r(i)")
		want, err := a.QueryColumn(ctx, "SELECT s FROM big", arrow.BinaryTypes.String, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer want.Release()
		got, err := a.ScatterDictionary(ctx, "big", "s", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer got.Release()
		if n := got.(*array.Dictionary).Dictionary().Len(); n < 1<<19 {
			t.Fatalf("a dictionary of %d strings does not need several index threads", n)
		}
		sameStrings(t, "600,011 strings", got, want)
	})
}

// sameStrings checks that got, a dictionary array, holds want's strings
// (nulls where it has them) and that its dictionary is strictly in byte
// order.
func sameStrings(t *testing.T, what string, got, want arrow.Array) {
	t.Helper()
	d := got.(*array.Dictionary)
	dict := d.Dictionary().(*array.String)
	for i := 1; i < dict.Len(); i++ {
		if !(dict.Value(i-1) < dict.Value(i)) {
			t.Fatalf("%s: dictionary not strictly in byte order at %d: %q, %q", what, i, dict.Value(i-1), dict.Value(i))
		}
	}
	ws := want.(*array.String)
	if d.Len() != ws.Len() || d.NullN() != ws.NullN() {
		t.Fatalf("%s: %d rows, %d nulls; want %d, %d", what, d.Len(), d.NullN(), ws.Len(), ws.NullN())
	}
	for i := range ws.Len() {
		if ws.IsNull(i) != d.IsNull(i) || ws.IsValid(i) && ws.Value(i) != dict.Value(d.GetValueIndex(i)) {
			t.Fatalf("%s: row %d differs", what, i)
		}
	}
}
