package duckdbbridge

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/rigel-db/rigel/internal/duckguard"
	"github.com/rigel-db/rigel/internal/sqltext"
)

// ErrNotAQuery: a statement that is not a query (SELECT or EXPLAIN) where
// only queries are taken.
var ErrNotAQuery = errors.New("only queries (SELECT, EXPLAIN of a SELECT) are taken here")

// CheckQuery is the one check that a SQL text is a plain read, used by
// every door that takes SQL from someone else (the Flight SQL server's
// statements, prepared statements and tickets, the C ABI, Query and
// QueryStream). It asks DuckDB what kind of statement the text is (a
// prepare, which also refuses several statements in one string) and
// returns ErrNotAQuery, naming the kind, for anything but SELECT. An
// EXPLAIN passes when the statement it explains does: EXPLAIN ANALYZE runs
// it, so EXPLAIN ANALYZE DELETE is a DELETE. SQL errors come back as
// DuckDB wrote them.
//
// A text that passed is remembered: what kind of statement a text is
// follows from its words alone, so the answer cannot change, and a
// repeated query saves a DuckDB prepare (about a millisecond).
func (e *Engine) CheckQuery(ctx context.Context, query string) error {
	if e.checked.has(query) {
		return nil
	}
	if err := e.checkQuery(ctx, query, 0); err != nil {
		return err
	}
	e.checked.add(query)
	return nil
}

// maxExplainDepth bounds EXPLAIN EXPLAIN ... (DuckDB takes one level; the
// bound only keeps a hostile text from recursing long).
const maxExplainDepth = 4

func (e *Engine) checkQuery(ctx context.Context, query string, depth int) error {
	kind, err := e.statementKind(ctx, query)
	if err != nil {
		return err
	}
	switch kind {
	case duckdb.STATEMENT_TYPE_SELECT:
		return nil
	case duckdb.STATEMENT_TYPE_EXPLAIN:
		target, options, isExplain, readable := sqltext.Explain(query)
		if !isExplain || !readable || target == "" || depth >= maxExplainDepth {
			return fmt.Errorf("%w; this EXPLAIN cannot be read far enough to tell which statement it explains (write it as EXPLAIN [ANALYZE] SELECT ...)", ErrNotAQuery)
		}
		if err := e.checkQuery(ctx, target, depth+1); err != nil {
			if errors.Is(err, ErrNotAQuery) {
				return fmt.Errorf("EXPLAIN %s: %w", strings.TrimSpace(options), err)
			}
			return err
		}
		return nil
	}
	name := statementKindName(kind)
	article := "a"
	if strings.ContainsRune("AEIOU", rune(name[0])) {
		article = "an"
	}
	return fmt.Errorf("%w; this is %s %s statement", ErrNotAQuery, article, name)
}

// statementKind prepares query on DuckDB and returns its statement type.
func (e *Engine) statementKind(ctx context.Context, query string) (duckdb.StmtType, error) {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	var kind duckdb.StmtType
	err = conn.Raw(func(dc any) error {
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
		if kind, err = ds.StatementType(); err != nil || kind != duckdb.STATEMENT_TYPE_SELECT {
			return err
		}
		// The planner asks DuckDB for the same names next (producePlan):
		// this prepare has them. Only where no writer can change the
		// catalog in between (a read-only database, whose plans are kept).
		if e.plans != nil {
			if names, err := stmtColumnNames(ds); err == nil {
				e.names.put(query, names)
			}
		}
		return nil
	})
	return kind, err
}

// nameHandoff carries a query's output column names from CheckQuery's
// prepare to the plan made right after it, which would otherwise prepare
// the query again for them (about 3 ms of a TPC-DS query's first plan on
// the build machine), on a read-only database. A plan takes its entry, so
// a later plan of the same text asks DuckDB again; forgetPlans empties it.
type nameHandoff struct {
	mu sync.Mutex
	m  map[string][]string
}

// maxHandoffs bounds the entries waiting for a plan (a statement checked
// and never planned leaves one).
const maxHandoffs = 64

func (h *nameHandoff) put(q string, names []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil || len(h.m) >= maxHandoffs {
		h.m = map[string][]string{}
	}
	h.m[q] = names
}

func (h *nameHandoff) take(q string) ([]string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	names, ok := h.m[q]
	delete(h.m, q)
	return names, ok
}

func (h *nameHandoff) clear() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.m = nil
}

func statementKindName(k duckdb.StmtType) string {
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
	case duckdb.STATEMENT_TYPE_CALL:
		return "CALL"
	}
	return fmt.Sprintf("kind %d", k)
}

// maxCheckedQueries bounds the texts remembered as queries.
const maxCheckedQueries = 10000

// queryMemo remembers the SQL texts that passed CheckQuery.
type queryMemo struct {
	mu    sync.Mutex
	texts map[string]struct{}
	bytes int
}

// maxCheckedBytes bounds the memory the remembered texts hold: a client
// sending large distinct texts must not grow it without end.
const maxCheckedBytes = 64 << 20

func (m *queryMemo) has(q string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.texts[q]
	return ok
}

func (m *queryMemo) add(q string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.texts == nil || len(m.texts) >= maxCheckedQueries || m.bytes+len(q) > maxCheckedBytes {
		m.texts, m.bytes = map[string]struct{}{}, 0
	}
	if _, ok := m.texts[q]; !ok {
		m.texts[q] = struct{}{}
		m.bytes += len(q)
	}
}
