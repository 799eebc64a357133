package fallback

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/internal/arrowrec"
	"github.com/rigel-db/rigel/internal/duckguard"
	"github.com/rigel-db/rigel/internal/sqltext"
)

// Runner runs the SQL of fallback subtrees on a DuckDB database, over
// inputs that other operators computed (physical.SQLRunner).
type Runner struct {
	DB *sql.DB
	// MaxBytes bounds the answer RunOver holds (0: no bound); past it,
	// RunOver fails with arrowrec.ErrTooLarge.
	MaxBytes int64
}

// RunOver registers each input record as a temporary table of the given
// name on one connection, runs query there and returns its whole result.
//
// Inputs are copied into temporary tables rather than scanned as Arrow
// streams: a stream can be read once, and DuckDB may scan an input more
// than once (a decorrelated subquery reads its outer side again).
// Temporary tables live in the connection's own catalog, so they work on a
// read-only database and are invisible to other queries; they are dropped
// before the connection goes back to the pool.
func (r Runner) RunOver(ctx context.Context, query string, names []string, inputs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if r.DB == nil {
		return nil, errors.New("fallback: no database")
	}
	if len(names) != len(inputs) {
		return nil, fmt.Errorf("fallback: %d input names for %d inputs", len(names), len(inputs))
	}
	conn, err := r.DB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("fallback: opening a DuckDB connection: %w", err)
	}
	defer conn.Close()
	var created []string
	defer func() {
		// A background context: the tables must go even when ctx ended.
		for _, n := range created {
			_, _ = conn.ExecContext(context.Background(), "DROP TABLE IF EXISTS temp."+sqltext.Ident(n))
		}
	}()
	var out arrow.RecordBatch
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return errors.New("fallback: the database is not a DuckDB database")
		}
		for i, rec := range inputs {
			created = append(created, names[i])
			if err := loadInput(ctx, c, dc, names[i], rec); err != nil {
				return err
			}
		}
		a, err := duckguard.Arrow(dc)
		if err != nil {
			return fmt.Errorf("fallback: %w", err)
		}
		release := duckguard.Statement()
		rr, err := a.QueryContext(ctx, query)
		release()
		if err != nil {
			return err
		}
		defer rr.Release()
		out, err = arrowrec.ReadAllWithin(rr, r.MaxBytes)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// loadInput copies rec into a new temporary table name: the table is made
// with the DuckDB types of rec's columns (arrowSQLType), then filled a
// vector at a time from rec's Arrow buffers (duckarrow's AppendRecord:
// DuckDB converts whole vectors, where duckdb-go's appender took a Go
// value a cell: bench/results/2026-11-28-build-dictionary-load-fallback-inputs.md).
// A temporary table lives in the connection's own catalog,
// so a read-only database takes it too.
func loadInput(ctx context.Context, c driver.Conn, dc any, name string, rec arrow.RecordBatch) error {
	cols := make([]string, rec.NumCols())
	for i, f := range rec.Schema().Fields() {
		t, err := arrowSQLType(f.Type)
		if err != nil {
			return fmt.Errorf("fallback: input %s column %s: %w", name, f.Name, err)
		}
		cols[i] = sqltext.Ident(f.Name) + " " + t
	}
	ex, ok := c.(driver.ExecerContext)
	if !ok {
		return errors.New("fallback: the DuckDB connection cannot execute statements")
	}
	stmt := fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s (%s)", sqltext.Ident(name), strings.Join(cols, ", "))
	if _, err := ex.ExecContext(ctx, stmt, nil); err != nil {
		return fmt.Errorf("fallback: input %s: %w", name, err)
	}
	a, err := duckguard.Arrow(dc)
	if err != nil {
		return fmt.Errorf("fallback: %w", err)
	}
	if err := a.AppendRecord("temp", "main", name, rec); err != nil {
		return fmt.Errorf("fallback: input %s: %w", name, err)
	}
	return nil
}

// arrowSQLType is the DuckDB column type of a device result's Arrow type
// (gpu.ArrowType's range).
func arrowSQLType(t arrow.DataType) (string, error) {
	switch d := t.(type) {
	case *arrow.BooleanType:
		return "BOOLEAN", nil
	case *arrow.Int8Type:
		return "TINYINT", nil
	case *arrow.Int16Type:
		return "SMALLINT", nil
	case *arrow.Int32Type:
		return "INTEGER", nil
	case *arrow.Int64Type:
		return "BIGINT", nil
	case *arrow.Float32Type:
		return "FLOAT", nil
	case *arrow.Float64Type:
		return "DOUBLE", nil
	case *arrow.Date32Type:
		return "DATE", nil
	case *arrow.StringType:
		return "VARCHAR", nil
	case *arrow.Decimal128Type:
		return fmt.Sprintf("DECIMAL(%d, %d)", d.Precision, d.Scale), nil
	}
	return "", fmt.Errorf("arrow type %s has no DuckDB column type here", t)
}
