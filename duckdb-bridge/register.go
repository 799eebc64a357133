package duckdbbridge

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rigel-db/rigel/internal/duckguard"
	"github.com/rigel-db/rigel/internal/sqltext"
)

var registerSeq atomic.Int64

// RegisterArrow makes the batches of rr a table of the engine's catalog
// under name (replacing a table of that name), for SQL and Substrait plans
// alike. The rows are copied into DuckDB's in-memory storage, so the table
// can be scanned any number of times; rr is read to its end, not released.
// The catalog must be writable (CatalogSpec.Writable).
func (e *Engine) RegisterArrow(ctx context.Context, name string, rr array.RecordReader) error {
	if name == "" {
		return errors.New("register: the table needs a name")
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	view := fmt.Sprintf("__rigel_register_%d", registerSeq.Add(1))
	var release func()
	err = conn.Raw(func(dc any) error {
		a, err := duckguard.Arrow(dc)
		if err != nil {
			return fmt.Errorf("register: the catalog: %w", err)
		}
		defer duckguard.Statement()() // RegisterView creates the view
		release, err = a.RegisterView(rr, view)
		if err != nil {
			return fmt.Errorf("register %s: %w", name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The view lives on this connection until released.
	defer release()
	_, err = conn.ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE TABLE %s AS SELECT * FROM %s", sqltext.Ident(name), sqltext.Ident(view)))
	if err != nil {
		return fmt.Errorf("register %s: %w", name, err)
	}
	e.tableChanged()
	return nil
}

// tableChanged forgets what depends on the tables' contents: cached plans
// (DuckDB's depend on statistics) and cached device columns.
func (e *Engine) tableChanged() {
	e.forgetPlans()
	e.DropCache()
}
