// Package rigelsql is rigel as a drop-in for duckdb-go: importing it
// registers the database/sql driver "rigel", which takes duckdb-go's DSN.
// Queries (SELECT) run on rigel's device with DuckDB as the fallback and
// come back with the Go types duckdb-go gives; every other statement goes
// to DuckDB unchanged and invalidates the device's cached columns when it
// can write. QueryArrow returns a query's answer as Arrow record batches.
//
// A program written for duckdb-go changes two lines:
//
//	import _ "github.com/duckdb/duckdb-go/v2"  ->  import _ "github.com/rigel-db/rigel/duckdb-bridge/rigelsql"
//	sql.Open("duckdb", dsn)                     ->  sql.Open("rigel", dsn)
package rigelsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/internal/duckguard"
	"github.com/rigel-db/rigel/physical"
)

func init() { sql.Register("rigel", Driver{}) }

// Driver is the database/sql driver "rigel".
type Driver struct{}

// Open opens one connection (database/sql calls OpenConnector instead).
func (d Driver) Open(dsn string) (driver.Conn, error) {
	c, err := d.OpenConnector(dsn)
	if err != nil {
		return nil, err
	}
	return c.Connect(context.Background())
}

// OpenConnector opens the database a DSN names: DuckDB (duckdb-go's
// connector for the DSN without rigel's options), the device, and the
// engine that all connections of the *sql.DB share.
func (Driver) OpenConnector(dsn string) (driver.Connector, error) {
	return NewConnector(dsn)
}

// Connector is a rigel database: connections to DuckDB, and one engine
// with one device column cache for all of them.
type Connector struct {
	cfg    config
	duck   *duckguard.Connector
	engDB  *sql.DB // the engine's own connections (catalog, table scans)
	eng    *duckdbbridge.Engine
	dev    gpu.Device
	closed sync.Once
	// deviceErrors counts queries the device failed on (not "unsupported":
	// a real error) that DuckDB then answered.
	mu           sync.Mutex
	deviceErrors int64
	lastDevErr   error
	// jsonCols remembers, by query text, whether a query's result has a
	// JSON column (json.go); cleared by every write.
	jsonCols map[string]bool
}

// NewConnector opens a database (duckdb-go's DSN with rigel's options);
// sql.OpenDB(connector) makes it a *sql.DB.
func NewConnector(dsn string) (*Connector, error) {
	cfg, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	dev, reason, err := duckdbbridge.OpenDevice(cfg.device)
	if err != nil {
		return nil, fmt.Errorf("rigel: %w", err)
	}
	if dev == nil && cfg.device == "duckdb" {
		reason = "rigel_device=duckdb"
	}
	duck, err := duckguard.NewConnector(cfg.duckDSN, nil)
	if err != nil {
		if dev != nil {
			dev.Close()
		}
		return nil, err
	}
	id := cfg.path
	if id == "" {
		id = fmt.Sprintf(":memory:%p", duck)
	}
	// The engine's *sql.DB owns duck: closing it closes DuckDB.
	engDB := sql.OpenDB(duck)
	c := &Connector{cfg: cfg, duck: duck, engDB: engDB, dev: dev, eng: duckdbbridge.NewEngine(engDB, id, dev, reason)}
	if cfg.deviceMemory > 0 {
		if err := c.eng.SetDeviceMemory(cfg.deviceMemory); err != nil {
			c.Close()
			return nil, err
		}
	}
	if cfg.hasSize { // after the device memory, which sets a cache size of its own
		if err := c.SetCacheSize(cfg.cacheSize); err != nil {
			c.Close()
			return nil, err
		}
	}
	register(c)
	return c, nil
}

// Connect opens a DuckDB connection wrapped by rigel.
func (c *Connector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.duck.Connect(ctx)
	if err != nil {
		return nil, err
	}
	d, ok := dc.(*duckguard.Conn)
	if !ok {
		dc.Close()
		return nil, errors.New("rigel: duckdb-go returned a connection of an unknown kind")
	}
	return &Conn{c: c, duck: d}, nil
}

// Driver returns the rigel driver.
func (c *Connector) Driver() driver.Driver { return Driver{} }

// Close closes DuckDB and the device (database/sql calls it from
// sql.DB.Close, after closing the connections).
func (c *Connector) Close() error {
	var err error
	c.closed.Do(func() {
		unregister(c)
		err = c.engDB.Close()
		if c.dev != nil {
			if e := c.dev.Close(); err == nil {
				err = e
			}
		}
	})
	return err
}

// Engine returns the connector's engine.
func (c *Connector) Engine() *duckdbbridge.Engine { return c.eng }

// SetCacheSize sets the device column cache's size in bytes (0: no
// limit); the least recently used columns past it are freed.
func (c *Connector) SetCacheSize(bytes int64) error {
	cache := c.eng.Cache()
	if cache == nil {
		return nil // no device, nothing is cached
	}
	return cache.SetLimit(bytes)
}

// Stats is what a rigel database did.
type Stats struct {
	Device string // "cuda", "host", or "" (DuckDB runs every query)
	// NoDeviceReason says why there is no device.
	NoDeviceReason string
	Cache          physical.CacheStats
	// DeviceErrors counts queries the device failed on and DuckDB then
	// answered; LastDeviceError is the last such failure.
	DeviceErrors    int64
	LastDeviceError error
}

// Stats returns the connector's counters.
func (c *Connector) Stats() Stats {
	s := Stats{NoDeviceReason: c.eng.NoDeviceReason}
	if c.dev != nil {
		s.Device = c.dev.Info().Name
	}
	if cache := c.eng.Cache(); cache != nil {
		s.Cache = cache.Stats()
	}
	c.mu.Lock()
	s.DeviceErrors, s.LastDeviceError = c.deviceErrors, c.lastDevErr
	c.mu.Unlock()
	return s
}

func (c *Connector) noteDeviceError(err error) {
	c.mu.Lock()
	c.deviceErrors++
	c.lastDevErr = err
	c.mu.Unlock()
}

// Of returns the rigel connector behind a *sql.DB that sql.Open("rigel",
// ...) or sql.OpenDB(connector) made, for Stats and SetCacheSize.
func Of(db *sql.DB) (*Connector, error) {
	conn, err := db.Conn(context.Background())
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var c *Connector
	err = conn.Raw(func(dc any) error {
		rc, ok := dc.(*Conn)
		if !ok {
			return fmt.Errorf("rigel: this database was not opened with the rigel driver (its connection is a %T)", dc)
		}
		c = rc.c
		return nil
	})
	return c, err
}

// The connectors open per database file, so that a write through any of
// them invalidates the cached columns of all: duckdb-go shares one DuckDB
// instance per file among the connectors of a process, so two sql.Open
// calls of one file see each other's writes.
var openDBs struct {
	sync.Mutex
	byPath map[string][]*Connector
}

func register(c *Connector) {
	if c.cfg.path == "" {
		return // an in-memory database is its connector's alone
	}
	openDBs.Lock()
	defer openDBs.Unlock()
	if openDBs.byPath == nil {
		openDBs.byPath = map[string][]*Connector{}
	}
	openDBs.byPath[c.cfg.path] = append(openDBs.byPath[c.cfg.path], c)
}

func unregister(c *Connector) {
	openDBs.Lock()
	defer openDBs.Unlock()
	list := openDBs.byPath[c.cfg.path]
	for i, x := range list {
		if x == c {
			openDBs.byPath[c.cfg.path] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(openDBs.byPath[c.cfg.path]) == 0 {
		delete(openDBs.byPath, c.cfg.path)
	}
}

// tablesChanged invalidates what the engines of the database hold about
// its tables' contents. The driver does not find out which tables a
// statement writes (DuckDB's statement type says that it writes, not
// where), so a write drops the whole database's cached columns: correct
// first, and reloads cost a query's first run, not a wrong answer.
func (c *Connector) tablesChanged() {
	list := []*Connector{c}
	if c.cfg.path != "" {
		openDBs.Lock()
		list = append([]*Connector(nil), openDBs.byPath[c.cfg.path]...)
		openDBs.Unlock()
	}
	for _, x := range list {
		x.eng.TablesChanged()
		x.mu.Lock()
		clear(x.jsonCols)
		x.mu.Unlock()
	}
}
