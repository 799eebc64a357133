package duckguard

import (
	"fmt"

	"github.com/rigel-db/rigel/internal/duckarrow"
)

// Arrow returns the Arrow interface (duckarrow) over the duckdb-go
// connection beneath dc (a driver connection as conn.Raw hands it). Its
// statements take Statement: release it when the reader comes back.
func Arrow(dc any) (*duckarrow.Arrow, error) {
	c, ok := Unwrap(dc)
	if !ok {
		return nil, fmt.Errorf("not a DuckDB connection (%T)", dc)
	}
	return duckarrow.New(c)
}
