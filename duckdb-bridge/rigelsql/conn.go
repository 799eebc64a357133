package rigelsql

import (
	"context"
	"database/sql/driver"
	"errors"
	"slices"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/rigel-db/rigel/internal/duckguard"
)

// Conn is one DuckDB connection wrapped by rigel. Queries without
// arguments go through rigel's engine; everything else goes to the DuckDB
// connection unchanged, and what can write invalidates the cached columns.
type Conn struct {
	c    *Connector
	duck *duckguard.Conn // its statements keep clear of plan production
	// inTx: a transaction is open on this connection. Its queries go to
	// this connection's DuckDB (rigel reads tables through its own
	// connections, which would not see the transaction's writes), and its
	// commit invalidates again (other connections may have cached the
	// rows from before the commit meanwhile).
	inTx, wroteInTx bool
	// local: the connection has state of its own that rigel's connections
	// lack (a session setting, a variable, a temporary table, USE): its
	// queries go to its own DuckDB from then on.
	local bool
}

var (
	_ driver.Conn               = (*Conn)(nil)
	_ driver.ConnBeginTx        = (*Conn)(nil)
	_ driver.ConnPrepareContext = (*Conn)(nil)
	_ driver.ExecerContext      = (*Conn)(nil)
	_ driver.QueryerContext     = (*Conn)(nil)
	_ driver.NamedValueChecker  = (*Conn)(nil)
)

// stmtInfo is what DuckDB says of a statement before it runs.
type stmtInfo struct {
	known bool // false: DuckDB could not prepare it alone (several statements, or an error)
	kind  duckdb.StmtType
	cols  []column // the result's columns, for a SELECT
}

// classify prepares the statement on this connection to learn its kind
// (and a query's column types). Prepare, not PrepareContext: duckdb-go's
// PrepareContext runs every statement but the last of a multi-statement
// string, which must not happen twice.
func (c *Conn) classify(query string) stmtInfo {
	st, err := c.duck.Prepare(query)
	if err != nil {
		return stmtInfo{}
	}
	defer st.Close()
	ds := st.(*duckguard.Stmt).Stmt
	kind, err := ds.StatementType()
	if err != nil {
		return stmtInfo{}
	}
	info := stmtInfo{known: true, kind: kind}
	if kind == duckdb.STATEMENT_TYPE_SELECT {
		info.cols, _ = resultColumns(ds) // nil: a type rigel does not convert
	}
	return info
}

// writes reports whether a statement of this kind can change tables.
// Unknown statements count as writes.
func (s stmtInfo) writes() bool {
	if !s.known {
		return true
	}
	switch s.kind {
	case duckdb.STATEMENT_TYPE_SELECT, duckdb.STATEMENT_TYPE_EXPLAIN, duckdb.STATEMENT_TYPE_PREPARE,
		duckdb.STATEMENT_TYPE_RELATION, duckdb.STATEMENT_TYPE_TRANSACTION:
		return false
	}
	// INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, COPY, ATTACH, DETACH,
	// LOAD, PRAGMA, SET, CALL, EXECUTE, VACUUM, ...: EXECUTE and CALL
	// may run anything, and the rest are rare enough to pay a reload.
	return true
}

// after records what a statement that DuckDB ran did to the connection:
// transactions begun or ended, session state, writes.
func (c *Conn) after(query string, s stmtInfo) {
	head := firstWords(query, 4)
	switch {
	case !s.known:
		// Several statements in one string (a script): their kinds are
		// unknown, so words that may begin a transaction or set session
		// state keep this connection's queries on its own DuckDB.
		if hasWord(query, "set", "reset", "use", "temp", "temporary", "begin", "start", "transaction") {
			c.local = true
		}
	case s.kind == duckdb.STATEMENT_TYPE_TRANSACTION:
		switch head[0] {
		case "begin", "start":
			c.inTx = true
		case "commit", "end":
			c.endTx(true)
		default: // rollback, abort
			c.endTx(false)
		}
		return
	case s.kind == duckdb.STATEMENT_TYPE_SET || s.kind == duckdb.STATEMENT_TYPE_VARIABLE_SET:
		// SET GLOBAL changes every connection; SET [SESSION], RESET,
		// SET VARIABLE and USE change this one.
		if !(len(head) > 1 && head[1] == "global") {
			c.local = true
		}
	case s.kind == duckdb.STATEMENT_TYPE_CREATE && slices.ContainsFunc(head[1:], func(w string) bool { return w == "temp" || w == "temporary" }):
		c.local = true
	}
	if s.writes() {
		if c.inTx {
			c.wroteInTx = true
		}
		c.c.tablesChanged()
	}
}

// hasWord reports whether the text holds one of the words (lower case),
// outside nothing: a word inside a string literal counts too.
func hasWord(text string, words ...string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if slices.Contains(words, w) {
			return true
		}
	}
	return false
}

func (c *Conn) endTx(commit bool) {
	if commit && c.wroteInTx {
		c.c.tablesChanged()
	}
	c.inTx, c.wroteInTx = false, false
}

// firstWords returns the first n words of a statement, lower case, after
// comments and blanks.
func firstWords(query string, n int) []string {
	q := strings.ToLower(query)
	var out []string
	for len(out) < n {
		q = strings.TrimLeft(q, " \t\r\n(;")
		if strings.HasPrefix(q, "--") {
			_, q, _ = strings.Cut(q, "\n")
			continue
		}
		if strings.HasPrefix(q, "/*") {
			_, q, _ = strings.Cut(q, "*/")
			continue
		}
		if q == "" {
			break
		}
		end := strings.IndexAny(q, " \t\r\n(;")
		if end < 0 {
			end = len(q)
		}
		out = append(out, q[:end])
		q = q[end:]
	}
	if len(out) == 0 {
		out = append(out, "")
	}
	return out
}

// QueryContext runs a query on rigel's engine when it can (a SELECT
// without arguments, outside a transaction, whose column types the driver
// converts, on a connection without local state, with a device); anything
// else goes to DuckDB unchanged. When the device cannot run the query, or
// fails on it, this connection's DuckDB answers (so SQL errors are
// DuckDB's own).
func (c *Conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	info := c.classify(query)
	if len(args) == 0 && info.known && info.kind == duckdb.STATEMENT_TYPE_SELECT && info.cols != nil &&
		!c.inTx && !c.local && c.c.dev != nil && !c.hasJSON(ctx, query, info.cols) {
		if rows := c.queryOnDevice(ctx, query, info.cols); rows != nil {
			return rows, nil
		}
	}
	rows, err := c.duck.QueryContext(ctx, query, args)
	c.after(query, info)
	return rows, err
}

// queryOnDevice runs a query on the device; nil when DuckDB must answer.
func (c *Conn) queryOnDevice(ctx context.Context, query string, cols []column) driver.Rows {
	eng := c.c.eng
	p, err := eng.Prepare(ctx, query)
	if err != nil || p.Reason != "" {
		return nil
	}
	st, _, err := eng.RunPrepared(ctx, p)
	if err != nil {
		if ctx.Err() == nil {
			c.c.noteDeviceError(err)
		}
		return nil
	}
	if st == nil {
		return nil
	}
	if int(st.Schema().NumFields()) != len(cols) {
		st.Release()
		c.c.noteDeviceError(errors.New("the device's result has a different number of columns than DuckDB's"))
		return nil
	}
	return newArrowRows(st, cols)
}

// ExecContext goes to DuckDB unchanged; a statement that can write
// invalidates the database's cached columns.
func (c *Conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	info := c.classify(query)
	res, err := c.duck.ExecContext(ctx, query, args)
	c.after(query, info)
	return res, err
}

// PrepareContext prepares on DuckDB; the statement invalidates the cached
// columns each time it runs when it can write.
func (c *Conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	info := c.classify(query)
	st, err := c.duck.PrepareContext(ctx, query)
	if !info.known {
		// A multi-statement string: duckdb-go's PrepareContext has run
		// every statement but the last.
		c.after(query, info)
	}
	if err != nil {
		return nil, err
	}
	return &Stmt{Stmt: st.(*duckguard.Stmt), conn: c, query: query, info: info}, nil
}

// Prepare is PrepareContext without a context.
func (c *Conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// BeginTx begins a transaction on DuckDB.
func (c *Conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.duck.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	c.inTx = true
	return &Tx{tx: tx, conn: c}, nil
}

// Begin is BeginTx with default options.
func (c *Conn) Begin() (driver.Tx, error) { return c.BeginTx(context.Background(), driver.TxOptions{}) }

// Close closes the DuckDB connection.
func (c *Conn) Close() error { return c.duck.Close() }

// CheckNamedValue lets duckdb-go take the argument types it takes.
func (c *Conn) CheckNamedValue(nv *driver.NamedValue) error { return c.duck.CheckNamedValue(nv) }

// DuckDB returns the wrapped duckdb-go connection, for duckdb-go's own
// APIs (Appender, Arrow) through sql.Conn.Raw. Writes made through it are
// not seen by rigel: call InvalidateCache after them. A statement run on
// it while another goroutine plans a query through rigel can crash
// DuckDB: hold duckguard.Statement while it runs.
func (c *Conn) DuckDB() *duckdb.Conn { return c.duck.Conn }

// InvalidateCache drops the database's cached device columns (after a
// write rigel did not see, such as one through duckdb-go's Appender).
func (c *Conn) InvalidateCache() { c.c.tablesChanged() }

// Tx is a DuckDB transaction seen by rigel.
type Tx struct {
	tx   driver.Tx
	conn *Conn
}

func (t *Tx) Commit() error {
	err := t.tx.Commit()
	t.conn.endTx(true)
	return err
}

func (t *Tx) Rollback() error {
	err := t.tx.Rollback()
	t.conn.endTx(false)
	return err
}

// Stmt is a DuckDB prepared statement seen by rigel: it runs on DuckDB
// (its arguments are bound there), and invalidates the cached columns
// after each run when it can write.
type Stmt struct {
	*duckguard.Stmt
	conn  *Conn
	query string
	info  stmtInfo
}

func (s *Stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	res, err := s.Stmt.ExecContext(ctx, args)
	s.conn.after(s.query, s.lastKind())
	return res, err
}

func (s *Stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := s.Stmt.QueryContext(ctx, args)
	s.conn.after(s.query, s.lastKind())
	return rows, err
}

func (s *Stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), toNamed(args))
}

func (s *Stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), toNamed(args))
}

// lastKind is what running the statement does: for a multi-statement
// string, only its last statement runs again.
func (s *Stmt) lastKind() stmtInfo {
	if s.info.known {
		return s.info
	}
	kind, err := s.Stmt.StatementType()
	if err != nil {
		return stmtInfo{}
	}
	return stmtInfo{known: true, kind: kind}
}

func toNamed(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}
