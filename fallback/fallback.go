// Package fallback runs on DuckDB what rigel's device cannot run and returns
// the result as Arrow record batches: whole SQL queries (RunSQL), and
// Substrait subtrees written as DuckDB SQL (Writer, PlanSQL) that run over
// the Arrow output of device subtrees (Runner).
package fallback

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/internal/duckarrow"
	"github.com/rigel-db/rigel/internal/duckguard"
)

// RunSQL runs query on DuckDB and streams its result as Arrow record batches
// through duckdb-go's Arrow API (one batch per DuckDB data chunk). The
// reader holds one connection of db until it is released; the caller must
// call Release. Errors DuckDB reports (syntax, binding, runtime) are
// returned as duckdb-go gives them, so that Error() is DuckDB's message
// unchanged.
func RunSQL(ctx context.Context, db *sql.DB, query string, args ...any) (array.RecordReader, error) {
	var rr array.RecordReader
	conn, err := onArrow(ctx, db, func(a *duckarrow.Arrow) (err error) {
		release := duckguard.Statement()
		defer release()
		rr, err = a.QueryContext(ctx, query, args...)
		return err
	})
	if err != nil {
		return nil, err
	}
	// The reader keeps using the driver connection after Raw returns. That
	// is safe because the *sql.Conn is not returned to the pool (nobody
	// else can use the connection) until the reader is released.
	return &connReader{RecordReader: rr, conn: conn, refs: 1}, nil
}

// ReadColumn reads one whole column of a table (from: the table as SQL;
// value: the expression that reads the column) as one array of type want,
// or Decimal64 for a decimal of precision at most 18 (ScatterColumn).
// DuckDB's parallel scan writes each row at its rowid where it can
// (duckarrow.ScatterColumn); otherwise (a type it does not copy, a table
// whose rowids have gaps, a view) DuckDB's vectors are copied from the
// query's result (duckarrow.QueryColumn).
func ReadColumn(ctx context.Context, db *sql.DB, from, value string, want arrow.DataType) (arrow.Array, error) {
	return readArray(ctx, db, func(a *duckarrow.Arrow) (arrow.Array, error) {
		out, err := a.ScatterColumn(ctx, from, value, want, duckguard.Statement())
		if errors.Is(err, duckarrow.ErrNotScattered) {
			return queried(ctx, a, from, value, want)
		}
		return out, err
	})
}

// ReadDictionaryColumn reads one whole string column of a table (from and
// value as ReadColumn's) as a dictionary array, its strings sorted in byte
// order, where DuckDB's parallel scan can write it
// (duckarrow.ScatterDictionary); otherwise as plain strings, as
// ReadColumn.
func ReadDictionaryColumn(ctx context.Context, db *sql.DB, from, value string) (arrow.Array, error) {
	return readArray(ctx, db, func(a *duckarrow.Arrow) (arrow.Array, error) {
		out, err := a.ScatterDictionary(ctx, from, value, duckguard.Statement())
		if errors.Is(err, duckarrow.ErrNotScattered) {
			return queried(ctx, a, from, value, arrow.BinaryTypes.String)
		}
		return out, err
	})
}

// ReadColumnSegments reads a column as ReadColumn (ReadDictionaryColumn
// when dict is set) does, per rows at a time in row order, handing each
// segment to put, which owns it (duckarrow.ScatterSegments): the host holds
// one segment instead of the column. Where DuckDB's scan cannot write the
// column by rowid, the column is read whole, as ReadColumn reads it, and
// put once.
func ReadColumnSegments(ctx context.Context, db *sql.DB, from, value string, want arrow.DataType, dict bool, per int64, put func(arrow.Array) error) error {
	conn, err := onArrow(ctx, db, func(a *duckarrow.Arrow) error {
		err := a.ScatterSegments(ctx, from, value, want, dict, per, put, duckguard.Statement())
		if !errors.Is(err, duckarrow.ErrNotScattered) {
			return err
		}
		whole, err := queried(ctx, a, from, value, want)
		if err != nil {
			return err
		}
		return put(whole)
	})
	if err != nil {
		return err
	}
	return closeQuietly(conn)
}

// queried reads a whole column from its query's result (DuckDB's vectors
// copied: duckarrow.QueryColumn), where DuckDB's scan cannot write it by
// rowid (duckarrow.ErrNotScattered).
func queried(ctx context.Context, a *duckarrow.Arrow, from, value string, want arrow.DataType) (arrow.Array, error) {
	return a.QueryColumn(ctx, "SELECT "+value+" FROM "+from, want, duckguard.Statement())
}

// QueryColumn runs a query of one column of type want on DuckDB and
// returns its whole result as one array (duckarrow.QueryColumn: DuckDB's
// vectors copied, not converted a chunk at a time).
func QueryColumn(ctx context.Context, db *sql.DB, query string, want arrow.DataType) (arrow.Array, error) {
	return readArray(ctx, db, func(a *duckarrow.Arrow) (arrow.Array, error) {
		return a.QueryColumn(ctx, query, want, duckguard.Statement())
	})
}

// readArray is the array read reads on a connection of db.
func readArray(ctx context.Context, db *sql.DB, read func(a *duckarrow.Arrow) (arrow.Array, error)) (arrow.Array, error) {
	var out arrow.Array
	conn, err := onArrow(ctx, db, func(a *duckarrow.Arrow) (err error) {
		out, err = read(a)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := closeQuietly(conn); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// onArrow opens a connection of db and runs fn on its Arrow interface. The
// caller closes the connection it gets back; on an error it is closed.
func onArrow(ctx context.Context, db *sql.DB, fn func(a *duckarrow.Arrow) error) (*sql.Conn, error) {
	if db == nil {
		return nil, errors.New("fallback: no database")
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("fallback: opening a DuckDB connection: %w", err)
	}
	err = conn.Raw(func(dc any) error {
		a, err := duckguard.Arrow(dc)
		if err != nil {
			return fmt.Errorf("fallback: %w", err)
		}
		return fn(a)
	})
	if err != nil {
		return nil, errors.Join(err, closeQuietly(conn))
	}
	return conn, nil
}

func closeQuietly(c *sql.Conn) error {
	if err := c.Close(); err != nil && !errors.Is(err, sql.ErrConnDone) {
		return err
	}
	return nil
}

// connReader is a RecordReader that returns its connection to the pool when
// its last reference is released.
type connReader struct {
	array.RecordReader
	conn *sql.Conn
	refs int64
}

func (r *connReader) Retain() {
	atomic.AddInt64(&r.refs, 1)
	r.RecordReader.Retain()
}

func (r *connReader) Release() {
	n := atomic.AddInt64(&r.refs, -1)
	r.RecordReader.Release()
	if n == 0 {
		_ = closeQuietly(r.conn)
	}
}
