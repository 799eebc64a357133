//go:build duckdb_arrow

package duckguard

import (
	"fmt"

	"github.com/duckdb/duckdb-go/v2"
)

// Arrow returns duckdb-go's Arrow interface over the connection beneath
// dc (a driver connection as conn.Raw hands it). Its statements take
// Statement: release it when the reader comes back.
func Arrow(dc any) (*duckdb.Arrow, error) {
	c, ok := Unwrap(dc)
	if !ok {
		return nil, fmt.Errorf("not a DuckDB connection (%T)", dc)
	}
	return duckdb.NewArrowFromConn(c)
}
