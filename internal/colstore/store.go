// Package colstore keeps table columns, as rigel read them from a database
// file, in Arrow IPC files on local disk next to it, so that another
// process on the same database reads them back at the speed of the disk
// (the page cache, mapped, no copy) instead of paying DuckDB's scan again.
//
// Entries are keyed by the database file's identity (device, inode, size,
// modification time, and the same of its write-ahead log): any change to
// the database, by rigel or by anyone else, changes the identity, and the
// entries of an older identity are never read again (and are removed when
// the new identity's first entry is written). A file is written under a
// temporary name and renamed into place when complete, so a reader sees
// whole files or none.
package colstore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/internal/arrowfmt"
	"github.com/rigel-db/rigel/internal/arrowrec"
	"github.com/rigel-db/rigel/internal/lrufiles"
)

// Store is the column files of one database file.
type Store struct {
	db  string // the database file's absolute path
	dir string // where its columns go: <db>.rigel-columns
	// minFree is the free space a write must leave on the store's file
	// system; a write that would leave less is skipped.
	minFree int64
	// writing is the bytes of the writes under way (guarded by mu): the
	// free space a write sees is the file system's less theirs, so that
	// columns written side by side do not each count the same free space.
	writing int64
	// limit bounds the bytes of the store's files (SetLimit); the least
	// recently used go first. 0: none.
	limit int64
	evict sync.Mutex // one eviction pass at a time

	mu      sync.Mutex
	cleaned map[string]bool // identities whose older siblings were removed
	writes  sync.WaitGroup  // Put's background writes
	pending atomic.Int64    // of them, not done yet
	stats   Stats
}

// Stats counts what a store did.
type Stats struct {
	Hits, Misses, Written, Skipped int64
	BytesRead, BytesWritten        int64
	// Unreadable counts files that were there but could not be read as
	// their column (then removed); LastError says why, for the last one.
	Unreadable int64
	LastError  string
}

// Suffix is what a database file's column folder adds to its name.
const Suffix = ".rigel-columns"

// For is the store of the database file at path, in dir (a folder of
// stores: each database's is named by a hash of its path) or, when dir is
// "", next to the database (path + Suffix).
func For(path, dir string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	where := abs + Suffix
	if dir != "" {
		h := sha256.Sum256([]byte(abs))
		where = filepath.Join(dir, filepath.Base(abs)+"-"+hex.EncodeToString(h[:6])+Suffix)
	}
	return &Store{db: abs, dir: where, minFree: 1 << 30, cleaned: map[string]bool{}}, nil
}

// SetLimit bounds the bytes the store's files may take (0: no bound
// besides the disk's free space): a write that would pass it first
// removes the files least recently read or written; a column larger than
// the bound is not kept.
func (s *Store) SetLimit(bytes int64) { s.limit = bytes }

// Dir is where the store keeps its files.
func (s *Store) Dir() string { return s.dir }

// Stats returns the store's counters.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Identity is the database file's identity now: it changes whenever the
// file or its write-ahead log does. Besides each file's device, inode,
// size and modification time, it reads the database's first 12 KB, where
// DuckDB keeps its headers with a counter every checkpoint raises: a
// checkpoint that leaves the size alike within a file system's coarse
// modification times still changes the identity.
func (s *Store) Identity() (string, error) {
	h := sha256.New()
	for _, p := range []string{s.db, s.db + ".wal"} {
		st, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) && p != s.db {
			h.Write([]byte("no wal;"))
			continue
		}
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s;", fileID(st))
	}
	f, err := os.Open(s.db)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, duckdbHeaders)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", err
	}
	h.Write(head[:n])
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}

// duckdbHeaders is the start of a DuckDB file: its main header and the two
// database headers that alternate at each checkpoint (4 KB each).
const duckdbHeaders = 12 << 10

// Key names one column's file: the identity it was read under, the table
// and the column (as the SQL that read them), and its form (what the
// reader asked for: the plain column or its dictionary encoding).
type Key struct {
	Identity, Table, Column, Form string
}

func (k Key) file(dir string) string {
	h := sha256.Sum256([]byte(k.Table + "\x00" + k.Column + "\x00" + k.Form))
	return filepath.Join(dir, k.Identity, hex.EncodeToString(h[:12]))
}

// what is the key as a file's metadata, checked when it is read (a hash
// collision, or a file of another format version, then reads as a miss).
func (k Key) what() string {
	return formatVersion + "\x00" + k.Identity + "\x00" + k.Table + "\x00" + k.Column + "\x00" + k.Form
}

// formatVersion changes whenever what a file holds for a key does: a
// rigel never reads another version's files.
const formatVersion = "rigel column store 1"

// Get maps the column's file and returns its array (a dictionary array's
// codes and strings come from two files), or false. The array's buffers
// are the mapped file; its last Release unmaps it. A file of several
// segments (SegmentWriter) comes back as one array, copied together. A
// file that cannot be read as the column is removed and is a miss.
func (s *Store) Get(k Key) (arrow.Array, bool) {
	parts, ok := s.GetSegments(k)
	if !ok {
		return nil, false
	}
	if len(parts) == 1 {
		return parts[0], true
	}
	defer releaseAll(parts)
	arr, err := array.Concatenate(parts, memory.DefaultAllocator)
	if err != nil {
		return nil, false
	}
	return arr, true
}

// GetSegments is Get's column as its file holds it: an array per segment
// (one for a file Put wrote), each a mapped array, a dictionary form's
// codes wrapped with its strings; or false.
func (s *Store) GetSegments(k Key) ([]arrow.Array, bool) {
	base := k.file(s.dir)
	arrs, n, err := readArrays(base+".arrow", k.what())
	if err == nil && k.Form == FormDictionary {
		var vals []arrow.Array
		var m int64
		vals, m, err = readArrays(base+".dict.arrow", k.what())
		if err == nil && len(vals) != 1 {
			releaseAll(vals)
			err = fmt.Errorf("colstore: %s.dict.arrow holds %d dictionaries", base, len(vals))
		}
		if err == nil {
			n += m
			for i, codes := range arrs {
				arrs[i] = array.NewDictionaryArray(&arrow.DictionaryType{IndexType: codes.DataType(), ValueType: vals[0].DataType()}, codes, vals[0])
				codes.Release()
			}
			vals[0].Release()
		} else {
			releaseAll(arrs)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.stats.Misses++
		if !errors.Is(err, os.ErrNotExist) {
			s.stats.Unreadable++
			s.stats.LastError = err.Error()
			os.Remove(base + ".arrow")
			os.Remove(base + ".dict.arrow")
		}
		return nil, false
	}
	s.stats.Hits++
	s.stats.BytesRead += n
	// Used now: SetLimit's eviction keeps it over older ones.
	now := time.Now()
	os.Chtimes(base+".arrow", now, now)
	if k.Form == FormDictionary {
		os.Chtimes(base+".dict.arrow", now, now)
	}
	return arrs, true
}

// GetRecord returns the small record kept under k (PutRecord), or false.
func (s *Store) GetRecord(k Key) ([]byte, bool) {
	b, err := os.ReadFile(k.file(s.dir) + ".record")
	if err != nil {
		return nil, false
	}
	// The key's text, then the record: a hash collision is a miss.
	what := []byte(k.what() + "\n")
	if len(b) < len(what) || string(b[:len(what)]) != string(what) {
		return nil, false
	}
	return b[len(what):], true
}

// PutRecord keeps a small record (what was decided about a column, not
// its data) under k, written whole or not at all; errors only cost the
// record.
func (s *Store) PutRecord(k Key, record []byte) {
	dir := filepath.Join(s.dir, k.Identity)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	s.removeOtherIdentities(k.Identity)
	path := k.file(s.dir) + ".record"
	f, err := os.CreateTemp(dir, filepath.Base(path)+".*.tmp")
	if err != nil {
		return
	}
	_, err = f.Write(append([]byte(k.what()+"\n"), record...))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
}

// The forms a column is kept in.
const (
	FormPlain      = "plain"
	FormDictionary = "dictionary"
)

// Put writes the column's file in the background (Wait waits for it),
// holding its own reference to arr meanwhile; a dictionary array (form
// FormDictionary) as two files, its codes and its strings. Nothing is
// written when the file system would keep less than the store's free
// space, and errors only cost the entry: a store is a cache.
func (s *Store) Put(k Key, arr arrow.Array) {
	arr.Retain()
	s.writes.Add(1)
	s.pending.Add(1)
	go func() {
		defer s.writes.Done()
		defer s.pending.Add(-1)
		defer arr.Release()
		n, err := s.put(k, arr)
		if err != nil || n == 0 {
			s.skipped(err)
			return
		}
		s.written(n)
	}()
}

// written counts a column file of n bytes written.
func (s *Store) written(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Written++
	s.stats.BytesWritten += n
}

// skipped counts a column not kept, and why (err nil: the store's limit).
func (s *Store) skipped(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Skipped++
	if err != nil {
		s.stats.LastError = err.Error()
	}
}

// Wait waits for the writes Put started.
func (s *Store) Wait() { s.writes.Wait() }

// Pending is the number of Put's writes not done yet.
func (s *Store) Pending() int { return int(s.pending.Load()) }

func (s *Store) put(k Key, arr arrow.Array) (int64, error) {
	parts := []arrow.Array{arr}
	if k.Form == FormDictionary {
		d, ok := arr.(*array.Dictionary)
		if !ok {
			return 0, fmt.Errorf("colstore: a %s column for the dictionary form", arr.DataType())
		}
		parts = []arrow.Array{d.Indices(), d.Dictionary()}
	}
	var size int64
	for _, p := range parts {
		size += arrowrec.DataBytes(p.Data())
	}
	release, err := s.room(k, size)
	if release == nil {
		return 0, err
	}
	defer release()
	base := k.file(s.dir)
	names := []string{base + ".arrow", base + ".dict.arrow"}
	for i, p := range parts {
		if err := writeArray(names[i], p, k.what()); err != nil {
			return 0, err
		}
	}
	return size, nil
}

// room readies the store for size more bytes of k's files: its
// identity's folder, the other identities' files removed, the disk space
// reserved (release gives it back once written) and the least recently
// used files removed to keep the limit. A nil release: the store keeps
// nothing more (err says why; nil for the limit).
func (s *Store) room(k Key, size int64) (release func(), err error) {
	dir := filepath.Join(s.dir, k.Identity)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if release, err = s.reserve(dir, size); err != nil {
		return nil, err
	}
	s.removeOtherIdentities(k.Identity)
	if s.limit > 0 && !s.makeRoom(dir, size) {
		release()
		return nil, nil
	}
	return release, nil
}

// reserve counts size bytes as being written to dir's file system until
// release; an error when the file system would keep less than the store's
// free space (the write is skipped: the disk is the user's, not the cache's).
func (s *Store) reserve(dir string, size int64) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if free, err := freeBytes(dir); err == nil && free-s.writing-size < s.minFree {
		return nil, fmt.Errorf("not kept: writing %s would leave less than %s free on the disk of %s (%s free, %s being written)",
			sizeText(size), sizeText(s.minFree), s.dir, sizeText(free), sizeText(s.writing))
	}
	s.writing += size
	return func() {
		s.mu.Lock()
		s.writing -= size
		s.mu.Unlock()
	}, nil
}

func sizeText(n int64) string { return fmt.Sprintf("%.2f GB", float64(n)/1e9) }

// makeRoom removes the least recently used files of dir (an identity's:
// the others are gone already) until size more bytes fit the limit; false
// when they cannot. Get marks a file used by touching it, so that order is
// the files' modification times, across processes.
func (s *Store) makeRoom(dir string, size int64) bool {
	if size > s.limit {
		return false
	}
	s.evict.Lock()
	defer s.evict.Unlock()
	every := func(string, fs.FileInfo) bool { return true }
	used, err := lrufiles.Trim(dir, s.limit-size, every, "")
	return err == nil && used+size <= s.limit
}

// removeOtherIdentities removes the entries of the database's other
// identities (older versions of the file), once per identity.
func (s *Store) removeOtherIdentities(identity string) {
	s.mu.Lock()
	done := s.cleaned[identity]
	s.cleaned[identity] = true
	s.mu.Unlock()
	if done {
		return
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() != identity {
			os.RemoveAll(filepath.Join(s.dir, e.Name()))
		}
	}
}

// metaKey is the schema metadata key holding the entry's key.
const metaKey = "rigel.colstore.key"

// writeArray writes arr as the one column of an Arrow IPC file at path:
// under a temporary name, renamed into place once whole.
func writeArray(path string, arr arrow.Array, what string) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	rec := array.NewRecordBatch(columnSchema(arr.DataType(), what), []arrow.Array{arr}, int64(arr.Len()))
	defer rec.Release()
	err = arrowfmt.WriteFile(f, rec)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// columnSchema is the schema of a column file: one column of type t, the
// entry's key (what) in its metadata, which readArrays checks.
func columnSchema(t arrow.DataType, what string) *arrow.Schema {
	md := arrow.NewMetadata([]string{metaKey}, []string{what})
	return arrow.NewSchema([]arrow.Field{{Name: "c", Type: t, Nullable: true}}, &md)
}

// readArrays maps the Arrow IPC file at path and returns its column, an
// array per record batch (Put writes one, a SegmentWriter one a segment),
// whose buffers are the map (see mapping), and the file's size.
func readArrays(path, what string) ([]arrow.Array, int64, error) {
	m, err := mapFile(path)
	if err != nil {
		return nil, 0, err
	}
	var out []arrow.Array
	err = func() (err error) {
		// A damaged file must be a miss, even where the IPC reader
		// panics on it.
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("colstore: reading %s: %v", path, p)
			}
		}()
		// The reader refuses bodies over 256 MB unless told: a table
		// column is larger (TPC-H SF10's l_extendedprice: 480 MB), and a
		// body is never larger than its file.
		r, err := ipc.NewMappedFileReader(m.data, ipc.WithBodySizeLimit(int64(len(m.data))))
		if err != nil {
			return err
		}
		defer r.Close()
		if got, _ := r.Schema().Metadata().GetValue(metaKey); got != what || r.Schema().NumFields() != 1 || r.NumRecords() < 1 {
			return fmt.Errorf("colstore: %s holds another column", path)
		}
		for i := range r.NumRecords() {
			rec, err := r.RecordBatch(i)
			if err != nil {
				return err
			}
			d := m.wrap(rec.Column(0).Data())
			out = append(out, array.MakeFromData(d))
			d.Release()
		}
		return nil
	}()
	m.release() // the map's own reference: the arrays' buffers hold the rest
	if err != nil {
		releaseAll(out)
		return nil, 0, err
	}
	return out, int64(len(m.data)), nil
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		a.Release()
	}
}

// allocator is memory.Allocator for buffers that are slices of a map:
// nothing is allocated; freeing a buffer drops one reference to the map.
type allocator struct{ m *mapping }

func (a allocator) Allocate(int) []byte { panic("colstore: a mapped buffer does not grow") }
func (a allocator) Reallocate(int, []byte) []byte {
	panic("colstore: a mapped buffer does not grow")
}
func (a allocator) Free([]byte) { a.m.release() }

// wrap is d with each buffer (children's too) a new buffer over the same
// mapped bytes that holds a reference to the map.
func (m *mapping) wrap(d arrow.ArrayData) arrow.ArrayData {
	bufs := make([]*memory.Buffer, len(d.Buffers()))
	for i, b := range d.Buffers() {
		if b == nil {
			continue
		}
		m.refs.Add(1)
		bufs[i] = memory.NewBufferWithAllocator(b.Bytes(), allocator{m})
	}
	children := make([]arrow.ArrayData, len(d.Children()))
	for i, c := range d.Children() {
		children[i] = m.wrap(c)
	}
	out := array.NewData(d.DataType(), d.Len(), bufs, children, d.NullN(), d.Offset())
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	for _, c := range children {
		c.Release()
	}
	return out
}
