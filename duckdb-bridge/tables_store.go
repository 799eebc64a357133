package duckdbbridge

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rigel-db/rigel/fallback"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/internal/arrowrec"
	"github.com/rigel-db/rigel/internal/colstore"
	"github.com/rigel-db/rigel/physical"
)

// The column store (internal/colstore): the columns Tables reads from a
// database file are kept in files next to it, and another process on the
// same, unchanged file reads them from there instead of scanning DuckDB.
// RIGEL_COLUMN_STORE=off turns it off; a folder puts the stores there
// instead of next to the databases (a database's folder may not be
// writable: then nothing is kept).

// columnStores are the stores of the database files Tables reads, by path.
type columnStores struct {
	mu     sync.Mutex
	stores map[string]*colstore.Store
}

// stored returns the column q reads in the given form from its database
// file's store, or reads it (read) and keeps it there. Views, temporary
// tables and in-memory databases are read, never kept.
func (t *Tables) stored(ctx context.Context, q scanSQL, form string, read func() (arrow.Array, error)) (arrow.Array, error) {
	s, k, err := t.storeKey(ctx, q.ref, q.values[0], form)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return read()
	}
	if arr, ok := s.Get(k); ok {
		return arr, nil
	}
	arr, err := read()
	if err != nil {
		return nil, err
	}
	if unchanged(s, k) && keepable(arr, form) {
		s.Put(k, arr)
	}
	return arr, nil
}

// storeKey is the column store of the table r and the key of one of its
// columns (column: the SQL that reads it) in form, under the database
// file's identity now; no store (nil) where the table has none or the
// identity cannot be read.
func (t *Tables) storeKey(ctx context.Context, r tableRef, column, form string) (*colstore.Store, colstore.Key, error) {
	s, err := t.storeOf(ctx, r)
	if err != nil || s == nil {
		return nil, colstore.Key{}, err
	}
	id, err := s.Identity()
	if err != nil {
		return nil, colstore.Key{}, nil
	}
	return s, colstore.Key{Identity: id, Table: r.sql(), Column: column, Form: form}, nil
}

// unchanged says whether the database file still has the identity k was
// made under: only then is what was read that identity's column.
func unchanged(s *colstore.Store, k colstore.Key) bool {
	now, err := s.Identity()
	return err == nil && now == k.Identity
}

// keepable says whether arr is the form asked for (a dictionary read that
// came back as plain strings is not kept as a dictionary).
func keepable(arr arrow.Array, form string) bool {
	_, dict := arr.DataType().(*arrow.DictionaryType)
	return dict == (form == colstore.FormDictionary)
}

// storeOf is the store of the database file that holds the base table r,
// or nil (a view, a temporary table, an in-memory database, the store
// turned off); an error for a RIGEL_COLUMN_STORE_MAX that is not a size.
func (t *Tables) storeOf(ctx context.Context, r tableRef) (*colstore.Store, error) {
	setting := os.Getenv("RIGEL_COLUMN_STORE")
	if setting == "off" {
		return nil, nil
	}
	var path sql.NullString
	err := t.db.QueryRowContext(ctx, `SELECT d.path FROM duckdb_tables() t JOIN duckdb_databases() d USING (database_name)
		WHERE t.database_name = ? AND t.schema_name = ? AND t.table_name = ? AND NOT t.temporary`,
		r.catalog, r.schema, r.name).Scan(&path)
	if err != nil || !path.Valid || path.String == "" || path.String == ":memory:" {
		return nil, nil
	}
	t.stores.mu.Lock()
	defer t.stores.mu.Unlock()
	if s, ok := t.stores.stores[path.String]; ok {
		return s, nil
	}
	limit, err := storeLimit(path.String)
	if err != nil {
		return nil, err
	}
	s, err := colstore.For(path.String, setting)
	if err != nil {
		s = nil // no store: the columns are read, not kept
	} else {
		s.SetLimit(limit)
	}
	if t.stores.stores == nil {
		t.stores.stores = map[string]*colstore.Store{}
	}
	t.stores.stores[path.String] = s
	return s, nil
}

// storeLimit is the bytes a database's column store may take:
// RIGEL_COLUMN_STORE_MAX (a size, e.g. 50GB), else four times the
// database file (TPC-H SF10's columns as the GPU holds them take 2.5
// times its file: bench/results/2026-11-28-h100-tpch-sf10-load-scatter-store-v32.md),
// at least 1 GB.
func storeLimit(db string) (int64, error) {
	if v := os.Getenv("RIGEL_COLUMN_STORE_MAX"); v != "" {
		n, err := gpu.ParseSize(v)
		if err != nil {
			return 0, fmt.Errorf("RIGEL_COLUMN_STORE_MAX: %w (a size such as 50GB, or unset for four times the database file)", err)
		}
		return n, nil
	}
	var size int64
	if st, err := os.Stat(db); err == nil {
		size = st.Size()
	}
	return max(4*size, 1<<30), nil
}

// Flush waits for the column files being written (colstore.Store.Put
// writes in the background), telling progress first when there are some.
func (t *Tables) Flush(progress func(msg string)) {
	// The stores are listed under the lock and waited for outside it:
	// loads meanwhile still find their store.
	t.stores.mu.Lock()
	var stores []*colstore.Store
	for _, s := range t.stores.stores {
		if s != nil {
			stores = append(stores, s)
		}
	}
	t.stores.mu.Unlock()
	for _, s := range stores {
		if n := s.Pending(); n > 0 && progress != nil {
			progress(fmt.Sprintf("writing %d column file(s) to %s for the next run (RIGEL_COLUMN_STORE=off skips it)", n, s.Dir()))
		}
		s.Wait()
	}
}

// StoreStats adds up the column stores' counters.
func (t *Tables) StoreStats() colstore.Stats {
	t.stores.mu.Lock()
	defer t.stores.mu.Unlock()
	var all colstore.Stats
	for _, s := range t.stores.stores {
		if s == nil {
			continue
		}
		st := s.Stats()
		all.Hits += st.Hits
		all.Misses += st.Misses
		all.Written += st.Written
		all.Skipped += st.Skipped
		all.BytesRead += st.BytesRead
		all.BytesWritten += st.BytesWritten
		all.Unreadable += st.Unreadable
		if st.LastError != "" {
			all.LastError = st.LastError
		}
	}
	return all
}

// layoutForm is the column store's form for a string column's layout
// decision (physical.LayoutKeeper).
const layoutForm = "layout"

// layoutKey is where the decision about a column is kept, or false (no
// store for the table, the column unknown).
func (t *Tables) layoutKey(ctx context.Context, table, column string) (*colstore.Store, colstore.Key, bool) {
	r, err := t.resolve(ctx, table)
	if err != nil {
		return nil, colstore.Key{}, false
	}
	s, k, err := t.storeKey(ctx, r, strings.ToLower(column), layoutForm)
	return s, k, err == nil && s != nil
}

// KeptLayout is the layout decision another process kept for the column
// of the unchanged database (physical.LayoutKeeper).
func (t *Tables) KeptLayout(ctx context.Context, table, column string) (bool, string, bool) {
	s, k, ok := t.layoutKey(ctx, table, column)
	if !ok {
		return false, "", false
	}
	b, ok := s.GetRecord(k)
	if !ok || len(b) < 2 || (b[0] != '0' && b[0] != '1') || b[1] != ' ' {
		return false, "", false
	}
	return b[0] == '1', string(b[2:]), true
}

// KeepLayout keeps a layout decision for other processes.
func (t *Tables) KeepLayout(ctx context.Context, table, column string, arrowLayout bool, why string) {
	s, k, ok := t.layoutKey(ctx, table, column)
	if !ok {
		return
	}
	flag := "0 "
	if arrowLayout {
		flag = "1 "
	}
	s.PutRecord(k, []byte(flag+why))
}

var _ physical.LayoutKeeper = (*Tables)(nil)

var _ physical.SegmentReader = (*Tables)(nil)

// ReadColumnSegments reads one column of the table a segment of at most
// per rows at a time (physical.SegmentReader), as a dictionary when dict
// is set and the column holds strings: from the database file's column
// store where it kept the column (its file's segments, cut to per rows:
// slices of the map, nothing copied), else by DuckDB's scan a segment at a
// time (fallback.ReadColumnSegments), kept in the store as it goes, a
// segment behind (colstore.SegmentWriter).
func (t *Tables) ReadColumnSegments(ctx context.Context, table, column string, dict bool, per int64, put func(arrow.Array) error) error {
	q, err := t.scanQuery(ctx, table, []string{column})
	if err != nil {
		return err
	}
	f := q.schema.Field(0)
	form := colstore.FormPlain
	if dict = dict && arrow.TypeEqual(f.Type, arrow.BinaryTypes.String); dict {
		form = colstore.FormDictionary
	}
	s, k, err := t.storeKey(ctx, q.ref, q.values[0], form)
	if err != nil {
		return err
	}
	if s != nil {
		if parts, ok := s.GetSegments(k); ok {
			return putSlices(parts, per, put)
		}
	}
	var w *colstore.SegmentWriter
	var rows int64
	if s != nil {
		// Counted before the scan, not beside it: the scan holds a
		// connection of a pool that may have no other.
		if rows, err = t.Rows(ctx, table); err != nil {
			s = nil
		}
	}
	first := true
	err = fallback.ReadColumnSegments(ctx, t.db, q.from, q.values[0], f.Type, dict, per, func(arr arrow.Array) error {
		if first && s != nil && keepable(arr, form) && arr.Len() > 0 {
			// The estimate the disk space is reserved by: this segment's
			// bytes for each segment of the table.
			w = s.NewSegmentWriter(k, arrowrec.DataBytes(arr.Data())*((rows+int64(arr.Len())-1)/int64(arr.Len())))
		}
		first = false
		if w != nil {
			if keepable(arr, form) {
				w.Append(arr)
			} else {
				w.Abort()
				w = nil
			}
		}
		return put(arr)
	})
	if w != nil {
		if err == nil && unchanged(s, k) {
			w.Commit()
		} else {
			w.Abort()
		}
	}
	if err != nil {
		return q.readError(err)
	}
	return nil
}

// putSlices hands parts to put in pieces of at most per rows (slices:
// their buffers are the parts'), and releases the parts.
func putSlices(parts []arrow.Array, per int64, put func(arrow.Array) error) error {
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	for _, p := range parts {
		n := int64(p.Len())
		for i := int64(0); i == 0 || i < n; i += per {
			if err := put(array.NewSlice(p, i, min(i+per, n))); err != nil {
				return err
			}
		}
	}
	return nil
}
