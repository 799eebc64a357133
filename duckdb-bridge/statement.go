package duckdbbridge

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/rigel-db/rigel/internal/duckguard"
)

// ErrNotAQuery: a statement that is not a query (SELECT or EXPLAIN) where
// only queries are taken.
var ErrNotAQuery = errors.New("only queries (SELECT, EXPLAIN) are taken here")

// CheckQuery asks DuckDB what kind of statement query is (it prepares it,
// which also rejects several statements in one string) and returns
// ErrNotAQuery, naming the kind, for anything but SELECT and EXPLAIN. SQL
// errors come back as DuckDB wrote them.
func (e *Engine) CheckQuery(ctx context.Context, query string) error {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return errors.New("the catalog is not a DuckDB database")
		}
		// Prepare, not PrepareContext: duckdb-go's PrepareContext runs
		// every statement but the last of a multi-statement string;
		// Prepare refuses such a string.
		st, err := c.Prepare(query)
		if err != nil {
			if strings.Contains(err.Error(), "multi-statement") {
				return fmt.Errorf("%w; send one statement at a time (this text holds several)", ErrNotAQuery)
			}
			return err
		}
		defer st.Close()
		ds, ok := duckguard.StmtOf(st)
		if !ok {
			return errors.New("the catalog is not a DuckDB database")
		}
		kind, err := ds.StatementType()
		if err != nil {
			return err
		}
		switch kind {
		case duckdb.STATEMENT_TYPE_SELECT, duckdb.STATEMENT_TYPE_EXPLAIN:
			return nil
		}
		return fmt.Errorf("%w; this is a %s statement", ErrNotAQuery, statementKind(kind))
	})
}

func statementKind(k duckdb.StmtType) string {
	switch k {
	case duckdb.STATEMENT_TYPE_INSERT:
		return "INSERT"
	case duckdb.STATEMENT_TYPE_UPDATE:
		return "UPDATE"
	case duckdb.STATEMENT_TYPE_DELETE:
		return "DELETE"
	case duckdb.STATEMENT_TYPE_CREATE, duckdb.STATEMENT_TYPE_CREATE_FUNC:
		return "CREATE"
	case duckdb.STATEMENT_TYPE_DROP:
		return "DROP"
	case duckdb.STATEMENT_TYPE_ALTER:
		return "ALTER"
	case duckdb.STATEMENT_TYPE_COPY, duckdb.STATEMENT_TYPE_EXPORT:
		return "COPY/EXPORT"
	case duckdb.STATEMENT_TYPE_SET, duckdb.STATEMENT_TYPE_VARIABLE_SET:
		return "SET"
	case duckdb.STATEMENT_TYPE_PRAGMA:
		return "PRAGMA"
	case duckdb.STATEMENT_TYPE_ATTACH, duckdb.STATEMENT_TYPE_DETACH:
		return "ATTACH/DETACH"
	case duckdb.STATEMENT_TYPE_TRANSACTION:
		return "transaction"
	case duckdb.STATEMENT_TYPE_LOAD:
		return "LOAD"
	}
	return fmt.Sprintf("kind %d", k)
}
