package duckdbbridge

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rigel-db/rigel/fallback"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/internal/colstore"
	"github.com/rigel-db/rigel/internal/duckarrow"
	"github.com/rigel-db/rigel/internal/sqltext"
	"github.com/rigel-db/rigel/physical"
)

// ErrUnknownTable: a plan names a table the catalog does not have.
var ErrUnknownTable = errors.New("unknown table")

// Tables reads DuckDB tables for rigel's scans (physical.TableSource).
//
// Table names are "table", "schema.table" or "catalog.schema.table" (the
// NamedTable names ProducePlan writes, joined with dots); a bare name is
// looked up in the current database's current schema. Table and column
// names match case-insensitively, as in DuckDB's SQL; an exact match wins
// over a case-insensitive one.
//
// Arrow types are exactly those duckdb-go's Arrow API produces (the schema
// is read from a zero-row query): DECIMAL is decimal128(p, s), DATE date32,
// VARCHAR utf8 (string_view only when the connection's
// produce_arrow_string_view setting asks for it), TIMESTAMP timestamp[us],
// HUGEINT decimal128(38, 0); unsigned integers are widened to the signed
// types the producer declares for them (tables_unsigned.go). Field
// nullability comes from the catalog (NOT NULL columns are not nullable).
type Tables struct {
	db     *sql.DB
	id     string
	stores columnStores // tables_store.go
}

var _ physical.TableSource = (*Tables)(nil)

// NewTables reads tables of db; id names the database (its file path) in
// cache keys and messages.
func NewTables(db *sql.DB, id string) *Tables { return &Tables{db: db, id: id} }

// ID names the source.
func (t *Tables) ID() string { return t.id }

// tableRef is a resolved table: its exact catalog, schema and name.
type tableRef struct{ catalog, schema, name string }

func (r tableRef) sql() string {
	return sqltext.Ident(r.catalog) + "." + sqltext.Ident(r.schema) + "." + sqltext.Ident(r.name)
}

// resolve finds the table a (possibly qualified) name designates.
func (t *Tables) resolve(ctx context.Context, table string) (tableRef, error) {
	parts := strings.Split(table, ".")
	if table == "" || len(parts) > 3 {
		return tableRef{}, fmt.Errorf("duckdb tables: invalid table name %q", table)
	}
	var catalog, schema any // nil: the current database/schema
	switch len(parts) {
	case 2:
		schema = parts[0]
	case 3:
		catalog, schema = parts[0], parts[1]
	}
	name := parts[len(parts)-1]
	// Views count as tables (a catalog over an attached file names its
	// tables through views; rigel reads a view's rows like a table's).
	rows, err := t.db.QueryContext(ctx, `SELECT database_name, schema_name, name FROM (
			SELECT database_name, schema_name, table_name AS name FROM duckdb_tables()
			UNION ALL SELECT database_name, schema_name, view_name FROM duckdb_views() WHERE NOT internal)
		WHERE lower(database_name) = lower(coalesce(?, current_database()))
		  AND lower(schema_name) = lower(coalesce(?, current_schema()))
		  AND lower(name) = lower(?)`, catalog, schema, name)
	if err != nil {
		return tableRef{}, fmt.Errorf("duckdb tables: looking up table %q: %w", table, err)
	}
	defer rows.Close()
	var found []tableRef
	for rows.Next() {
		var r tableRef
		if err := rows.Scan(&r.catalog, &r.schema, &r.name); err != nil {
			return tableRef{}, fmt.Errorf("duckdb tables: looking up table %q: %w", table, err)
		}
		found = append(found, r)
	}
	if err := rows.Err(); err != nil {
		return tableRef{}, fmt.Errorf("duckdb tables: looking up table %q: %w", table, err)
	}
	switch len(found) {
	case 0:
		return tableRef{}, fmt.Errorf("duckdb tables: table %q does not exist in %s: %w", table, t.id, ErrUnknownTable)
	case 1:
		return found[0], nil
	}
	for _, r := range found {
		if r.name == name {
			return r, nil
		}
	}
	return tableRef{}, fmt.Errorf("duckdb tables: table name %q is ambiguous (%d tables differ only in case)", table, len(found))
}

// catalogColumn is one column of a table as the catalog describes it.
type catalogColumn struct {
	name     string
	nullable bool
}

// queryer is a *sql.DB or a *sql.Conn.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// tableColumns lists a table's columns, in order, from DuckDB's catalog.
func tableColumns(ctx context.Context, q queryer, catalog, schema, table string) ([]catalogColumn, error) {
	rows, err := q.QueryContext(ctx, `SELECT column_name, is_nullable FROM duckdb_columns()
		WHERE database_name = ? AND schema_name = ? AND table_name = ? ORDER BY column_index`,
		catalog, schema, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []catalogColumn
	for rows.Next() {
		var c catalogColumn
		if err := rows.Scan(&c.name, &c.nullable); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

func (t *Tables) columns(ctx context.Context, r tableRef) ([]catalogColumn, error) {
	cols, err := tableColumns(ctx, t.db, r.catalog, r.schema, r.name)
	if err != nil {
		return nil, fmt.Errorf("duckdb tables: columns of %s: %w", r.name, err)
	}
	return cols, nil
}

// TableSchema returns the table's columns with the Arrow types that
// ScanColumns delivers and the catalog's nullability.
func (t *Tables) TableSchema(ctx context.Context, table string) (*arrow.Schema, error) {
	r, err := t.resolve(ctx, table)
	if err != nil {
		return nil, err
	}
	cols, err := t.columns(ctx, r)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	s, _, err := t.arrowSchema(ctx, r, names, cols)
	return s, err
}

// arrowSchema reads the Arrow schema of a zero-row scan of the columns, so
// that the types are exactly those duckdb-go produces (unsigned integers
// widened, tables_unsigned.go), and applies the catalog's nullability. It
// also returns the expressions that read the columns with those types.
func (t *Tables) arrowSchema(ctx context.Context, r tableRef, names []string, cols []catalogColumn) (*arrow.Schema, []string, error) {
	rr, err := fallback.RunSQL(ctx, t.db, selectSQL(r, names)+" LIMIT 0")
	if err != nil {
		return nil, nil, fmt.Errorf("duckdb tables: schema of %s: %w", r.name, err)
	}
	defer rr.Release()
	s := rr.Schema()
	if s.NumFields() != len(cols) {
		return nil, nil, fmt.Errorf("duckdb tables: schema of %s has %d fields, want %d", r.name, s.NumFields(), len(cols))
	}
	fields := make([]arrow.Field, len(cols))
	values := make([]string, len(cols))
	for i, c := range cols {
		f := s.Field(i)
		typ, _, _ := widenUnsigned(f.Type)
		fields[i] = arrow.Field{Name: c.name, Type: typ, Nullable: c.nullable, Metadata: f.Metadata}
		values[i] = scanValueSQL(names[i], f.Type)
	}
	return arrow.NewSchema(fields, nil), values, nil
}

func selectSQL(r tableRef, names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = sqltext.Ident(n)
	}
	return "SELECT " + strings.Join(quoted, ", ") + " FROM " + r.sql()
}

// ScanColumns streams the named columns of the table, in that order. The
// reader's schema is TableSchema's fields for those columns.
func (t *Tables) ScanColumns(ctx context.Context, table string, columns []string) (array.RecordReader, error) {
	if len(columns) == 0 {
		return nil, fmt.Errorf("duckdb tables: scan of %q names no columns", table)
	}
	return t.scan(ctx, table, columns, -1)
}

// Rows counts the table's rows (physical.RowCounter; DuckDB answers a base
// table's count(*) from its metadata).
func (t *Tables) Rows(ctx context.Context, table string) (int64, error) {
	r, err := t.resolve(ctx, table)
	if err != nil {
		return 0, err
	}
	var n int64
	if err := t.db.QueryRowContext(ctx, "SELECT count(*) FROM "+r.sql()).Scan(&n); err != nil {
		return 0, fmt.Errorf("duckdb tables: counting the rows of %s: %w", r.name, err)
	}
	return n, nil
}

// ReadColumn reads one whole column of the table (physical.ColumnReader)
// into one array: by DuckDB's own parallel scan writing each row at its
// rowid where it can (fallback.ReadColumn), else by copying DuckDB's
// vectors; both faster than ScanColumns' stream, which converts and
// imports a chunk of 2,048 rows at a time. The column store keeps it for
// the next process (tables_store.go).
func (t *Tables) ReadColumn(ctx context.Context, table, column string) (arrow.Array, error) {
	return t.readColumn(ctx, table, column, false)
}

// ReadDictionaryColumn reads a string column dictionary-encoded
// (physical.DictionaryReader; fallback.ReadDictionaryColumn). Other
// columns are read as ReadColumn reads them.
func (t *Tables) ReadDictionaryColumn(ctx context.Context, table, column string) (arrow.Array, error) {
	return t.readColumn(ctx, table, column, true)
}

// ReadDerivedDictionary reads a string function of one column of the
// table, computed by DuckDB (physical.DerivedReader: TPC-H Q22 loads
// substring(c_phone, 1, 2), 25 strings, instead of c_phone), as a
// dictionary array; the column store keeps it under its expression.
func (t *Tables) ReadDerivedDictionary(ctx context.Context, table, column string, f *gpu.StrFunc) (arrow.Array, error) {
	q, err := t.scanQuery(ctx, table, []string{column})
	if err != nil {
		return nil, err
	}
	if !arrow.TypeEqual(q.schema.Field(0).Type, arrow.BinaryTypes.String) {
		return nil, fmt.Errorf("duckdb tables: %s.%s is not a string column: %s of it: %w", q.ref.name, column, f.SQL(column), gpu.ErrUnsupported)
	}
	expr := f.SQL(q.values[0])
	if expr == "" {
		return nil, fmt.Errorf("duckdb tables: %s has no DuckDB form: %w", f, gpu.ErrUnsupported)
	}
	q.values = []string{expr}
	arr, err := t.stored(ctx, q, colstore.FormDictionary, func() (arrow.Array, error) {
		return fallback.ReadDictionaryColumn(ctx, t.db, q.from, expr)
	})
	if err != nil {
		return nil, q.readError(err)
	}
	return arr, nil
}

var _ physical.DerivedReader = (*Tables)(nil)

func (t *Tables) readColumn(ctx context.Context, table, column string, dict bool) (arrow.Array, error) {
	q, err := t.scanQuery(ctx, table, []string{column})
	if err != nil {
		return nil, err
	}
	f := q.schema.Field(0)
	form, read := colstore.FormPlain, func() (arrow.Array, error) {
		return fallback.ReadColumn(ctx, t.db, q.from, q.values[0], f.Type)
	}
	if dict && arrow.TypeEqual(f.Type, arrow.BinaryTypes.String) {
		form, read = colstore.FormDictionary, func() (arrow.Array, error) {
			return fallback.ReadDictionaryColumn(ctx, t.db, q.from, q.values[0])
		}
	}
	arr, err := t.stored(ctx, q, form, read)
	if err != nil {
		return nil, q.readError(err)
	}
	return arr, nil
}

// readError is the error of reading q's column.
func (q scanSQL) readError(err error) error {
	name := q.schema.Field(0).Name
	if errors.Is(err, duckarrow.ErrStringsTooLong) {
		// TPC-H SF100's o_comment (7.3 GB): the query runs on DuckDB.
		return fmt.Errorf("%s.%s holds more than 2 GB of characters, more than a device string column addresses (32-bit offsets): %w", q.ref.name, name, gpu.ErrUnsupported)
	}
	return fmt.Errorf("duckdb tables: scan of %s.%s: %w", q.ref.name, name, err)
}

// scan is ScanColumns, of the first limit rows when limit >= 0.
func (t *Tables) scan(ctx context.Context, table string, columns []string, limit int) (array.RecordReader, error) {
	q, err := t.scanQuery(ctx, table, columns)
	if err != nil {
		return nil, err
	}
	query := q.query()
	if limit >= 0 {
		query += fmt.Sprintf(" LIMIT %d", limit)
	}
	rr, err := fallback.RunSQL(ctx, t.db, query)
	if err != nil {
		return nil, fmt.Errorf("duckdb tables: scan of %s: %w", q.ref.name, err)
	}
	return &schemaReader{RecordReader: rr, schema: q.schema, refs: 1}, nil
}

// scanSQL is how to read some columns of a table: the schema the scan
// delivers (arrowSchema), the table as SQL and an expression a column.
type scanSQL struct {
	ref    tableRef
	schema *arrow.Schema
	from   string
	values []string
	// ownRowid: the table has a column named rowid, which hides DuckDB's
	// row ids.
	ownRowid bool
}

func (q scanSQL) query() string {
	sel := make([]string, len(q.values))
	for i, v := range q.values {
		sel[i] = v
		if name := sqltext.Ident(q.schema.Field(i).Name); v != name {
			sel[i] += " AS " + name
		}
	}
	return "SELECT " + strings.Join(sel, ", ") + " FROM " + q.from
}

// scanQuery resolves the table and the named columns.
func (t *Tables) scanQuery(ctx context.Context, table string, columns []string) (scanSQL, error) {
	r, err := t.resolve(ctx, table)
	if err != nil {
		return scanSQL{}, err
	}
	all, err := t.columns(ctx, r)
	if err != nil {
		return scanSQL{}, err
	}
	picked := make([]catalogColumn, len(columns))
	names := make([]string, len(columns))
	for i, want := range columns {
		c, err := findColumn(all, want)
		if err != nil {
			return scanSQL{}, fmt.Errorf("duckdb tables: table %s: %w", r.name, err)
		}
		picked[i], names[i] = c, c.name
	}
	schema, values, err := t.arrowSchema(ctx, r, names, picked)
	return scanSQL{ref: r, schema: schema, from: r.sql(), values: values, ownRowid: hasRowidColumn(all)}, err
}

func findColumn(cols []catalogColumn, name string) (catalogColumn, error) {
	var ci []catalogColumn
	for _, c := range cols {
		if c.name == name {
			return c, nil
		}
		if strings.EqualFold(c.name, name) {
			ci = append(ci, c)
		}
	}
	switch len(ci) {
	case 0:
		return catalogColumn{}, fmt.Errorf("column %q does not exist", name)
	case 1:
		return ci[0], nil
	}
	return catalogColumn{}, errors.New("column name " + name + " is ambiguous (columns differ only in case)")
}

// schemaReader presents duckdb-go's batches under the schema with the
// catalog's nullability (duckdb-go marks every field nullable). The arrays
// are shared, not copied.
type schemaReader struct {
	array.RecordReader
	schema *arrow.Schema
	cur    arrow.RecordBatch
	refs   int64
}

func (r *schemaReader) Retain() { atomic.AddInt64(&r.refs, 1) }

func (r *schemaReader) Schema() *arrow.Schema { return r.schema }

func (r *schemaReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if !r.RecordReader.Next() {
		return false
	}
	in := r.RecordReader.RecordBatch()
	r.cur = array.NewRecordBatch(r.schema, in.Columns(), in.NumRows())
	return true
}

func (r *schemaReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is the older name of RecordBatch.
func (r *schemaReader) Record() arrow.RecordBatch { return r.cur }

func (r *schemaReader) Release() {
	if atomic.AddInt64(&r.refs, -1) != 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.RecordReader.Release()
}
