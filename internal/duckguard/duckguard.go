// Package duckguard keeps DuckDB's statements apart from a change of its
// disabled_optimizers setting.
//
// rigel takes DuckDB's optimized plan of a query with some optimizers off
// (duckdb-bridge's producer: their rewrites have no Substrait form, or
// json_serialize_plan fails on them), and disabled_optimizers is a global
// setting of a DuckDB instance: it cannot be set for one connection. DuckDB
// 1.5.3 does not guard the setting against a statement that another
// connection is optimizing at the same moment: SET and RESET of it in a
// loop beside six connections running queries crashed the process
// (SIGSEGV inside DuckDB) in 3 runs of 5, and so did rigel's C API test of
// several threads on one engine, in CI.
//
// So every DuckDB statement that rigel runs holds a shared lock while
// DuckDB prepares and runs it, and plan production holds the lock alone
// while the setting is changed and the plan taken. Connections opened
// through NewConnector take the shared lock themselves; code that runs a
// statement on the duckdb-go connection beneath (its Arrow interface)
// takes it with Statement.
package duckguard

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

// mu is process-wide: one lock for every DuckDB instance of the process,
// which costs a plan production a wait for statements of other instances
// too, and no one a crash.
var mu sync.RWMutex

// Statement takes the shared lock for a statement run on a duckdb-go
// connection directly; call the function it returns when DuckDB has
// returned the statement's result (reading its rows needs no lock).
func Statement() (release func()) {
	mu.RLock()
	return mu.RUnlock
}

// Exclusive takes the lock alone: no DuckDB statement of a guarded
// connection starts until release is called. Statements run meanwhile
// must go to the duckdb-go connection itself (Conn.Conn), or they would
// wait for the lock their own goroutine holds.
//
// It waits for the statements running now to end, but does not hold new
// ones back while it waits (sync.RWMutex.Lock would: every statement
// would then wait behind the longest one running, and DuckDB cannot
// interrupt some, such as the planning of deeply nested correlated
// subqueries, whose time doubles with each level). It gives up after
// wait, or when ctx ends, with an error wrapping ErrBusy.
func Exclusive(ctx context.Context, wait time.Duration) (release func(), err error) {
	deadline := time.Now().Add(wait)
	pause := 50 * time.Microsecond
	for !mu.TryLock() {
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: other statements kept it busy for %s", ErrBusy, wait)
		}
		time.Sleep(pause)
		pause = min(2*pause, 5*time.Millisecond)
	}
	return mu.Unlock, nil
}

// ErrBusy: Exclusive did not get DuckDB to itself in time.
var ErrBusy = errors.New("DuckDB is busy with other statements")

// Connector is a duckdb-go connector whose connections take the shared
// lock for every statement.
type Connector struct {
	*duckdb.Connector
}

// NewConnector is duckdb.NewConnector, guarded.
func NewConnector(dsn string, connInitFn func(execer driver.ExecerContext) error) (*Connector, error) {
	c, err := duckdb.NewConnector(dsn, connInitFn)
	if err != nil {
		return nil, err
	}
	return &Connector{c}, nil
}

// Connect opens a guarded connection.
func (c *Connector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	d, ok := dc.(*duckdb.Conn)
	if !ok {
		dc.Close()
		return nil, fmt.Errorf("duckguard: duckdb-go returned a connection of an unknown kind (%T)", dc)
	}
	return &Conn{d}, nil
}

// Conn is a duckdb-go connection whose statements take the shared lock.
// Conn.Conn is the connection itself, for duckdb-go's own interfaces
// (Arrow, appenders): statements run there take Statement.
type Conn struct {
	*duckdb.Conn
}

// Unwrap returns the duckdb-go connection beneath a database/sql driver
// connection (as conn.Raw hands it): a guarded one's, or one that is
// duckdb-go's already.
func Unwrap(dc any) (*duckdb.Conn, bool) {
	switch c := dc.(type) {
	case *Conn:
		return c.Conn, true
	case *duckdb.Conn:
		return c, true
	}
	return nil, false
}

func (c *Conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	defer Statement()()
	return c.Conn.QueryContext(ctx, query, args)
}

func (c *Conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	defer Statement()()
	return c.Conn.ExecContext(ctx, query, args)
}

// Prepare binds and plans the statement (DuckDB optimizes it then).
func (c *Conn) Prepare(query string) (driver.Stmt, error) {
	defer Statement()()
	return stmt(c.Conn.Prepare(query))
}

func (c *Conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	defer Statement()()
	return stmt(c.Conn.PrepareContext(ctx, query))
}

func stmt(s driver.Stmt, err error) (driver.Stmt, error) {
	if err != nil {
		return nil, err
	}
	d, ok := s.(*duckdb.Stmt)
	if !ok {
		s.Close()
		return nil, fmt.Errorf("duckguard: duckdb-go returned a statement of an unknown kind (%T)", s)
	}
	return &Stmt{d}, nil
}

// Stmt is a prepared duckdb-go statement whose runs take the shared lock
// (DuckDB may plan it again when it runs). Stmt.Stmt is the statement
// itself, for its types and kind.
type Stmt struct {
	*duckdb.Stmt
}

func (s *Stmt) Exec(args []driver.Value) (driver.Result, error) {
	defer Statement()()
	return s.Stmt.Exec(args)
}

func (s *Stmt) Query(args []driver.Value) (driver.Rows, error) {
	defer Statement()()
	return s.Stmt.Query(args)
}

func (s *Stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	defer Statement()()
	return s.Stmt.ExecContext(ctx, args)
}

func (s *Stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	defer Statement()()
	return s.Stmt.QueryContext(ctx, args)
}

func (s *Stmt) ExecBound(ctx context.Context) (driver.Result, error) {
	defer Statement()()
	return s.Stmt.ExecBound(ctx)
}

func (s *Stmt) QueryBound(ctx context.Context) (driver.Rows, error) {
	defer Statement()()
	return s.Stmt.QueryBound(ctx)
}

// StmtOf returns the duckdb-go statement beneath a prepared statement of
// a guarded connection, or one that is duckdb-go's already.
func StmtOf(st driver.Stmt) (*duckdb.Stmt, bool) {
	switch s := st.(type) {
	case *Stmt:
		return s.Stmt, true
	case *duckdb.Stmt:
		return s, true
	}
	return nil, false
}
