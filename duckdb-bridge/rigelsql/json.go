package rigelsql

import (
	"context"
	"database/sql/driver"
	"io"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

// DuckDB's JSON type is VARCHAR with an alias that duckdb-go's prepared
// statements do not show (ColumnTypeInfo says VARCHAR), yet duckdb-go
// returns a JSON column's values parsed (map[string]any, []any, ...), not
// as strings. So a query with a VARCHAR column asks DuckDB for its column
// type names once (a LIMIT 0 run of it, remembered per query text until
// the next write), and one with a JSON column goes to DuckDB.

// hasJSON reports whether a query's result has a JSON column; true also
// when it cannot tell (then DuckDB answers, which is always right).
func (c *Conn) hasJSON(ctx context.Context, query string, cols []column) bool {
	if !hasVarchar(cols) {
		return false
	}
	k := c.c
	k.mu.Lock()
	v, ok := k.jsonCols[query]
	k.mu.Unlock()
	if ok {
		return v
	}
	v = c.askJSON(ctx, query)
	k.mu.Lock()
	if k.jsonCols == nil || len(k.jsonCols) >= 10000 {
		k.jsonCols = map[string]bool{} // a bound on distinct query texts
	}
	k.jsonCols[query] = v
	k.mu.Unlock()
	return v
}

func hasVarchar(cols []column) bool {
	for _, col := range cols {
		if col.typ == duckdb.TYPE_VARCHAR {
			return true
		}
	}
	return false
}

func (c *Conn) askJSON(ctx context.Context, query string) bool {
	q := strings.TrimRight(strings.TrimSpace(query), "; \t\r\n")
	rows, err := c.duck.QueryContext(ctx, "SELECT * FROM (\n"+q+"\n) LIMIT 0", nil)
	if err != nil {
		return true
	}
	defer rows.Close()
	names, ok := rows.(driver.RowsColumnTypeDatabaseTypeName)
	if !ok {
		return true
	}
	for i := range rows.Columns() {
		if names.ColumnTypeDatabaseTypeName(i) == "JSON" {
			return true
		}
	}
	// Drain the (empty) result.
	dest := make([]driver.Value, len(rows.Columns()))
	for rows.Next(dest) != io.EOF {
	}
	return false
}
