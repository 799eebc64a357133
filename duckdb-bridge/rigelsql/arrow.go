package rigelsql

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/fallback"
	"github.com/rigel-db/rigel/internal/duckguard"
)

// QueryArrow runs a query (SELECT or EXPLAIN, without arguments) through
// rigel and returns its answer as Arrow record batches: the device's
// result when the device runs it, else DuckDB's, both on the database's
// own connections. The caller must Release the reader. The reader is a
// *duckdbbridge.Stream when rigel's engine answered (its Where says where
// the query ran). Other statements are refused: run them with db.Exec.
func QueryArrow(ctx context.Context, db *sql.DB, query string) (array.RecordReader, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var eng *Connector
	err = conn.Raw(func(dc any) error {
		c, err := rigelConn(dc)
		if err != nil {
			return err
		}
		if err := c.checkQuery(query); err != nil {
			return err
		}
		eng = c.c
		return nil
	})
	if err != nil {
		return nil, err
	}
	return eng.queryArrow(ctx, query)
}

// QueryArrowConn is QueryArrow on one connection. A connection inside a
// transaction, or with state of its own (SET, temporary tables), runs the
// query on its own DuckDB connection, so that the answer sees what the
// connection sees; the reader then reads from that connection, which must
// not run anything else until the reader is released.
func QueryArrowConn(ctx context.Context, conn *sql.Conn, query string) (array.RecordReader, error) {
	var rr array.RecordReader
	var eng *Connector
	err := conn.Raw(func(dc any) error {
		c, err := rigelConn(dc)
		if err != nil {
			return err
		}
		if err := c.checkQuery(query); err != nil {
			return err
		}
		if !c.inTx && !c.local {
			eng = c.c
			return nil
		}
		a, err := duckguard.Arrow(c.duck)
		if err != nil {
			return err
		}
		defer duckguard.Statement()()
		rr, err = a.QueryContext(ctx, query)
		return err
	})
	if err != nil || rr != nil {
		return rr, err
	}
	return eng.queryArrow(ctx, query)
}

func rigelConn(dc any) (*Conn, error) {
	c, ok := dc.(*Conn)
	if !ok {
		return nil, fmt.Errorf("rigel: this database was not opened with the rigel driver (its connection is a %T)", dc)
	}
	return c, nil
}

// checkQuery refuses what is not a query, naming its kind; SQL errors are
// DuckDB's.
func (c *Conn) checkQuery(query string) error {
	st, err := c.duck.Prepare(query)
	if err != nil {
		return err
	}
	defer st.Close()
	kind, err := st.(*duckguard.Stmt).StatementType()
	if err != nil {
		return err
	}
	if kind != duckdb.STATEMENT_TYPE_SELECT && kind != duckdb.STATEMENT_TYPE_EXPLAIN {
		return fmt.Errorf("rigel: QueryArrow: %w; run other statements with Exec", duckdbbridge.ErrNotAQuery)
	}
	return nil
}

// queryArrow runs a query on the device, or on DuckDB (the engine's
// connections) when the device cannot run it or fails on it.
func (c *Connector) queryArrow(ctx context.Context, query string) (array.RecordReader, error) {
	eng := c.eng
	p, err := eng.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	st, reason, err := eng.RunPrepared(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		c.noteDeviceError(err)
		reason = err.Error()
	}
	if st != nil {
		return st, nil
	}
	rr, err := fallback.RunSQL(ctx, eng.DB(), query)
	if err != nil {
		return nil, err
	}
	return &duckdbbridge.Stream{RecordReader: rr, Where: duckdbbridge.OnFallback, Reason: reason}, nil
}
