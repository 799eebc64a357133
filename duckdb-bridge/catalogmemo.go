package duckdbbridge

import "sync"

// catalogMemo remembers, for a read-only database, what the producer asks
// DuckDB's catalog about each scanned table (its columns and their NOT
// NULL constraints) and the default database's name: one DuckDB query per
// table per plan otherwise, which a read-only catalog answers the same
// every time. Planning the 22 TPC-H queries anew took 417 ms without it
// and 263 ms with it on the 2-core build machine (`go test -run '^$'
// -bench PlanTPCH ./conformance/`). Engine.TablesChanged
// forgets it with the plans (a temporary table or an ATTACH changes even a
// read-only file's catalog).
type catalogMemo struct {
	mu        sync.Mutex
	defaultDB string
	tables    map[string][]catalogColumn // by catalog, schema and table
}

// maxMemoTables bounds the memo (a catalog of many tables, or names a
// client made up, cannot grow it without end).
const maxMemoTables = 4096

func (m *catalogMemo) table(key string) ([]catalogColumn, bool) {
	if m == nil {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cols, ok := m.tables[key]
	return cols, ok
}

func (m *catalogMemo) putTable(key string, cols []catalogColumn) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tables == nil || len(m.tables) >= maxMemoTables {
		m.tables = map[string][]catalogColumn{}
	}
	m.tables[key] = cols
}

func (m *catalogMemo) database() (string, bool) {
	if m == nil {
		return "", false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.defaultDB, m.defaultDB != ""
}

func (m *catalogMemo) putDatabase(name string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.defaultDB = name
}

// forget drops every lookup (the catalog changed: a write through the
// engine, a temporary table, an ATTACH).
func (m *catalogMemo) forget() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.defaultDB, m.tables = "", nil
}
