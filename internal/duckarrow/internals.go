package duckarrow

import (
	"database/sql/driver"
	"fmt"
	"reflect"
	"unsafe"

	bindings "github.com/duckdb/duckdb-go-bindings"
	"github.com/duckdb/duckdb-go/v2"
)

// duckdb-go keeps the C handles this package needs in unexported fields:
// a connection's in Conn.conn, a result's in its rows' res. They are read
// here by reflection, each checked by name and type, so that a duckdb-go
// whose fields differ (its version is pinned in go.mod) gives an error
// that says so instead of reading the wrong memory; TestDuckDBGoInternals
// fails first. The handles are only passed to DuckDB's C API, as
// duckdb-go's own Arrow interface passes them.

// connHandle is the duckdb_connection beneath conn.
func connHandle(conn *duckdb.Conn) (unsafe.Pointer, error) {
	c, err := field[bindings.Connection](conn, "conn")
	if err != nil {
		return nil, err
	}
	if c.Ptr == nil {
		return nil, fmt.Errorf("the DuckDB connection is closed")
	}
	return c.Ptr, nil
}

// resultOf is the duckdb_result of rows that a duckdb-go connection's
// QueryContext returned, before any row was read.
func resultOf(rows driver.Rows) (*bindings.Result, error) {
	return field[bindings.Result](rows, "res")
}

// field is a pointer to the field name, of type T, in the struct that p
// points to.
func field[T any](p any, name string) (*T, error) {
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("duckarrow: %T is not a duckdb-go connection or result", p)
	}
	f := v.Elem().FieldByName(name)
	if !f.IsValid() || f.Type() != reflect.TypeFor[T]() {
		return nil, fmt.Errorf("duckarrow: duckdb-go's %T has no field %s of type %v: rigel is built for the duckdb-go version in its go.mod", p, name, reflect.TypeFor[T]())
	}
	return (*T)(unsafe.Pointer(f.UnsafeAddr())), nil
}
