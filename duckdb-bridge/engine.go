package duckdbbridge

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/rigel-db/rigel/internal/colstore"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rigel-db/rigel/fallback"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowrec"
	"github.com/rigel-db/rigel/internal/duckguard"
	"github.com/rigel-db/rigel/internal/ipcfiles"
	"github.com/rigel-db/rigel/physical"
	"github.com/rigel-db/rigel/substrait"
	"github.com/rigel-db/rigel/translate"
)

// Where says where a query ran.
type Where string

const (
	OnGPU      Where = "GPU"
	OnHost     Where = "host"     // rigel's reference device, plain Go
	OnFallback Where = "fallback" // DuckDB ran the whole query
)

// Engine runs SQL against a DuckDB database: DuckDB plans the query, rigel
// runs the plan on its device, and what rigel cannot run falls back to
// DuckDB with the reason recorded.
type Engine struct {
	db     *sql.DB
	dev    gpu.Device // nil: every query falls back (no device chosen)
	exec   *physical.Executor
	tables *Tables
	// NoDeviceReason explains why dev is nil (for the one-time notice).
	NoDeviceReason string

	// plans caches prepared statements by SQL text. Only a read-only
	// database gets one: DuckDB's plans depend on the data (statistics), and
	// a read-only open keeps every writer out (DuckDB's file lock), so a plan
	// stays valid for the engine's lifetime.
	plans   map[string]*Prepared
	plansMu sync.Mutex
	// catalog: the producer's catalog lookups, kept for a read-only
	// database alone (catalogmemo.go); nil otherwise.
	catalog *catalogMemo

	// checked remembers the SQL texts CheckQuery passed; names hands the
	// output column names its prepare found to the plan made next.
	checked queryMemo
	names   nameHandoff

	// maxAnswer bounds the bytes of a DuckDB answer the engine holds whole
	// (a fallback subtree's, a plan's run on DuckDB, Query's): a quarter
	// of the machine's memory, as the host device's budget (gpu/host).
	// Answers streamed (QueryStream) are not held.
	maxAnswer int64

	// files says which files a plan's LocalFiles reads may read (rigel's
	// Arrow IPC reader; DuckDB's readers follow its own settings, which
	// RestrictFiles sets to match): any regular file unless RestrictFiles
	// narrowed it.
	files ipcfiles.Access

	// devTurn admits one query at a time to the device (a queue): the
	// device, its column cache and its statistics serve one run at a time.
	// DuckDB fallbacks do not queue. A query waiting here leaves the queue
	// when its context ends.
	devTurn chan struct{}
}

// NewEngine wraps an open DuckDB database. dev may be nil, then every query
// runs on DuckDB (reason says why, shown with each result). Open db with
// OpenCatalog (or through internal/duckguard's connector) when other
// goroutines use it while the engine plans: plan production changes a
// global DuckDB setting, which crashes DuckDB under a statement that an
// unguarded connection is running.
func NewEngine(db *sql.DB, id string, dev gpu.Device, reason string) *Engine {
	warmExtensions()
	e := &Engine{db: db, dev: dev, tables: NewTables(db, id), NoDeviceReason: reason, devTurn: make(chan struct{}, 1), files: ipcfiles.AllFiles(0),
		maxAnswer: host.DefaultMemoryLimit()}
	if readOnly(db) {
		e.plans = map[string]*Prepared{}
		e.catalog = &catalogMemo{}
	}
	if dev != nil {
		e.exec = &physical.Executor{Dev: dev, Source: e.tables, Cache: physical.NewColumnCache(), SQL: e.runner(), Files: e.files}
	}
	return e
}

// warmExtensions reads the Substrait extension files (every plan names its
// functions by them) in the background, once a process: the first plan
// otherwise waits for them (70 ms on the build machine, the most of a
// first plan of TPC-H Q1: bench/results/2026-11-28-h100-tpch-sf10-load-scatter-store-v32.md).
// OpenCatalog starts it too, while DuckDB opens its file.
func warmExtensions() {
	warmOnce.Do(func() { go substrait.Collection() })
}

var warmOnce sync.Once

// SetProgress sends progress lines of long work (loading tables into device
// memory) to f.
func (e *Engine) SetProgress(f func(msg string)) {
	if e.exec != nil {
		e.exec.Cache.Progress = f
	}
}

// Flush waits for the engine's background writes: the column files that
// keep what it loaded for the next process (duckdb-bridge's column store).
// Call it before the process ends; writes cut short leave no file.
func (e *Engine) Flush() {
	var progress func(string)
	if e.exec != nil {
		progress = e.exec.Cache.Progress
	}
	e.tables.Flush(progress)
}

// ColumnStoreStats is what the column store did for this engine.
func (e *Engine) ColumnStoreStats() colstore.Stats { return e.tables.StoreStats() }

// CachedColumns lists the table columns the engine holds on its device,
// with their device and plain sizes (rigel bench load); none without a
// device.
func (e *Engine) CachedColumns() []physical.CachedColumn {
	if e.exec == nil {
		return nil
	}
	return e.exec.Cache.Columns(e.exec.Source.ID())
}

// DB returns the engine's DuckDB database (the catalog).
func (e *Engine) DB() *sql.DB { return e.db }

// Device returns the engine's device (nil when it has none).
func (e *Engine) Device() gpu.Device { return e.dev }

// Result is a query's answer and how it was obtained.
type Result struct {
	Record arrow.RecordBatch
	Where  Where
	Reason string // why it fell back; empty otherwise
	Plan   string // the physical plan (EXPLAIN text), when rigel ran it
	Stats  *physical.RunStats
	// Timings of the phases, for benchmarks.
	PlanNanos, ExecNanos int64
	// Notes say where rigel departed from a Substrait plan's declarations
	// (substrait.Plan.Notes); the EXPLAIN text starts with them.
	Notes []string
}

// Release frees the result's record.
func (r *Result) Release() {
	if r.Record != nil {
		r.Record.Release()
	}
}

// Prepared is a query planned for rigel's device, or the reason it cannot be.
type Prepared struct {
	SQL    string
	Names  []string
	Root   physical.Node
	Reason string // non-empty: falls back
	Plan   string // EXPLAIN text of Root, rendered once
	Notes  []string
	// resultTypes: the Arrow types DuckDB gives result columns where the
	// device's may differ (result_types.go); nil when none may.
	resultTypes []arrow.DataType
	// transient: the Reason holds for this run only (DuckDB was busy), so
	// the plan cache does not keep it.
	transient bool
	// onDuckDB: the relation kinds this plan leaves to DuckDB because the
	// device refused them while running an earlier plan of the query
	// (retryRefused).
	onDuckDB map[physical.RefusedOp]string
}

// Prepare plans a query: DuckDB's optimized plan, turned into Substrait,
// loaded and translated. SQL errors come back as DuckDB wrote them; what
// rigel cannot run gives a Prepared with a Reason.
func (e *Engine) Prepare(ctx context.Context, query string) (_ *Prepared, err error) {
	defer recoverBug(&err)
	if e.plans == nil {
		return e.prepare(ctx, query)
	}
	e.plansMu.Lock()
	p, ok := e.plans[query]
	e.plansMu.Unlock()
	if ok {
		return p, nil
	}
	p, err = e.prepare(ctx, query)
	if err != nil || p.transient {
		return p, err
	}
	e.plansMu.Lock()
	if len(e.plans) >= maxCachedPlans {
		// A client sending ever new texts must not grow the cache
		// without end; plans are cheap to make again.
		clear(e.plans)
	}
	e.plans[query] = p
	e.plansMu.Unlock()
	return p, nil
}

// forgetPlans drops the cached plans and catalog lookups of a read-only
// database (its tables or catalog changed).
func (e *Engine) forgetPlans() {
	e.names.clear()
	if e.plans == nil {
		return
	}
	e.plansMu.Lock()
	clear(e.plans)
	e.plansMu.Unlock()
	e.catalog.forget()
}

// MaxDevicePlanSQL bounds the SQL texts the engine plans for the device.
// Taking DuckDB's plan holds every other statement of the database back
// (json_serialize_plan runs under duckguard's exclusive lock), and its time
// grows with the text: about 5 s for a 1 MB IN list. Analytic queries are
// a few KiB; a longer text runs on DuckDB, which does not stop the others.
const MaxDevicePlanSQL = 256 << 10

// maxCachedPlans bounds the plan cache.
const maxCachedPlans = 4096

// readOnly asks DuckDB whether the database was opened read-only.
func readOnly(db *sql.DB) bool {
	var mode string
	if err := db.QueryRow("SELECT current_setting('access_mode')").Scan(&mode); err != nil {
		return false
	}
	return strings.EqualFold(mode, "read_only")
}

func (e *Engine) prepare(ctx context.Context, query string) (*Prepared, error) {
	return e.prepareWith(ctx, query, nil)
}

// prepareWith is prepare with relations of the kinds onDuckDB names left
// to DuckDB (translate.Options.OnDuckDB).
func (e *Engine) prepareWith(ctx context.Context, query string, onDuckDB map[physical.RefusedOp]string) (*Prepared, error) {
	p := &Prepared{SQL: query, onDuckDB: onDuckDB}
	if e.dev == nil {
		p.Reason = e.NoDeviceReason
		return p, nil
	}
	if len(query) > MaxDevicePlanSQL {
		p.Reason = fmt.Sprintf("a SQL text of %d bytes: rigel plans texts up to %d bytes for the device (MaxDevicePlanSQL); longer ones (long IN lists, large literals) run on DuckDB", len(query), MaxDevicePlanSQL)
		return p, nil
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var outTypes []colType
	names, _ := e.names.take(query)
	pb, err := producePlan(ctx, conn, query, &outTypes, e.catalog, names)
	if err != nil {
		if errors.Is(err, duckguard.ErrBusy) {
			// DuckDB runs it this time; a later run plans it again.
			p.Reason, p.transient = err.Error(), true
			return p, nil
		}
		if errors.Is(err, ErrUnsupported) {
			p.Reason = err.Error()
			return p, nil
		}
		return nil, err
	}
	loaded, err := substrait.Load(pb)
	if errors.Is(err, substrait.ErrTooLarge) {
		p.Reason = err.Error() // a plan past the budgets other producers' plans get: DuckDB runs it
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("rigel produced a plan it cannot load (a bug): %w", err)
	}
	root, err := translate.TranslateWith(loaded, translate.Options{Split: true, Device: refuser(e.dev), OnDuckDB: onDuckDB})
	if err != nil {
		if errors.Is(err, translate.ErrUnsupported) || errors.Is(err, substrait.ErrNotImplemented) {
			p.Reason = err.Error()
			return p, nil
		}
		return nil, err
	}
	if root, err = e.devicePlan(ctx, root); err != nil {
		return nil, err
	}
	p.Names, p.Root = loaded.Names, root
	p.resultTypes = resultTypes(outTypes)
	p.Plan = physical.Explain(root, string(e.where()))
	return p, nil
}

// LoadColumns loads the columns query's device plan scans into the
// device's column cache and runs nothing else. It plans the query anew and
// keeps no plan, so the query's first run still plans (rigel bench tpch
// --first-run times first runs with the columns in device memory). A
// query that runs on DuckDB loads nothing.
func (e *Engine) LoadColumns(ctx context.Context, query string) (err error) {
	defer recoverBug(&err)
	if err := e.CheckQuery(ctx, query); err != nil {
		return err
	}
	p, err := e.prepare(ctx, query)
	if err != nil || p.Root == nil {
		return err
	}
	select {
	case e.devTurn <- struct{}{}:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	defer func() { <-e.devTurn }()
	return e.exec.LoadScans(ctx, p.Root)
}

// Explain returns the physical plan with where each operator runs.
func (e *Engine) Explain(ctx context.Context, query string) (string, error) {
	p, err := e.Prepare(ctx, query)
	if err != nil {
		return "", err
	}
	if p.Reason != "" {
		return fmt.Sprintf("[FALLBACK] the whole query runs on DuckDB: %s\n", p.Reason), nil
	}
	return p.Plan, nil
}

func (e *Engine) where() Where {
	if e.dev != nil && e.dev.Info().Name == "host" {
		return OnHost
	}
	return OnGPU
}

// Query runs a query (a statement CheckQuery passes) and returns its
// whole result.
func (e *Engine) Query(ctx context.Context, query string) (_ *Result, err error) {
	defer recoverBug(&err)
	start := time.Now()
	if err := e.CheckQuery(ctx, query); err != nil {
		return nil, err
	}
	p, err := e.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	planNanos := time.Since(start).Nanoseconds()
	res, reason, err := e.tryDevice(ctx, p, planNanos)
	if err != nil || res != nil {
		return res, err
	}
	res, err = e.fallback(ctx, query)
	if err != nil {
		return nil, err
	}
	res.Reason = reason
	res.PlanNanos = planNanos
	return res, nil
}

// tryDevice runs a prepared query on the device. It returns the result, or
// no result and the reason the query must fall back, or an error.
func (e *Engine) tryDevice(ctx context.Context, p *Prepared, planNanos int64) (*Result, string, error) {
	if p.Reason != "" {
		return nil, p.Reason, nil
	}
	rec, st, err := e.runOnDevice(ctx, p.Root, p.Names)
	if q := e.retryRefused(ctx, p, err); q != nil {
		return e.tryDevice(ctx, q, planNanos)
	}
	if err == nil {
		if rec, err = retypeResult(rec, p.resultTypes); err != nil {
			return nil, "", err
		}
		res := e.deviceResult(allNullable(rec), st, p.Plan, planNanos)
		res.Reason = splitReason(p.Root)
		return res, "", nil
	}
	switch {
	case errors.Is(err, gpu.ErrUnsupported), errors.Is(err, gpu.ErrOutOfMemory):
		return nil, err.Error(), nil
	case errors.Is(err, gpu.ErrOverflow), errors.Is(err, gpu.ErrDomain):
		// A value error (overflow, division by zero, a domain) is DuckDB's
		// to judge: the plan's types can be narrower than DuckDB's (a
		// HUGEINT travels as DECIMAL(38,0), which holds 38 digits of its
		// 39), and a SQL error must be DuckDB's own. The query runs on
		// DuckDB, which answers it or raises its error.
		return nil, "the device reported: " + err.Error() + "; DuckDB's answer or error stands", nil
	}
	return nil, "", err
}

// retryRefused makes p's query's plan again when err is a refusal while
// running that a plan with that kind of relation on DuckDB avoids
// (physical.RunRefusal): that plan, which replaces p in the plan cache,
// or nil (another error, a plan from Substrait without SQL, a kind p
// already leaves to DuckDB, or a plan that cannot be made).
func (e *Engine) retryRefused(ctx context.Context, p *Prepared, err error) *Prepared {
	var refusal *physical.RunRefusal
	if !errors.As(err, &refusal) || p.SQL == "" {
		return nil
	}
	if _, done := p.onDuckDB[refusal.Op]; done {
		return nil
	}
	onDuckDB := map[physical.RefusedOp]string{refusal.Op: refusal.Error()}
	for op, why := range p.onDuckDB {
		onDuckDB[op] = why
	}
	q, perr := e.prepareWith(ctx, p.SQL, onDuckDB)
	if perr != nil || q.Root == nil {
		return nil
	}
	if e.plans != nil {
		e.plansMu.Lock()
		if e.plans[p.SQL] == p {
			e.plans[p.SQL] = q
		}
		e.plansMu.Unlock()
	}
	return q
}

// allNullable marks every field of a device result nullable, as DuckDB's
// Arrow results are: the schema of a SQL query's answer must not depend on
// where it ran (clients compare it with the schema announced before the
// run). It takes over the caller's reference to rec.
func allNullable(rec arrow.RecordBatch) arrow.RecordBatch {
	fields := rec.Schema().Fields()
	changed := false
	for i := range fields {
		if !fields[i].Nullable {
			fields[i].Nullable, changed = true, true
		}
	}
	if !changed {
		return rec
	}
	defer rec.Release()
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), rec.Columns(), rec.NumRows())
}

// runOnDevice runs a plan when the device's turn comes. Out of device
// memory, it drops the cached table columns and tries once more, where
// they may be what fills the device: not for a request larger than the
// device's whole budget less what the cache does not hold (a cross
// product of a client's), which dropping every other query's columns
// would not help.
func (e *Engine) runOnDevice(ctx context.Context, root physical.Node, names []string) (arrow.RecordBatch, *physical.RunStats, error) {
	select {
	case e.devTurn <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, context.Cause(ctx)
	}
	defer func() { <-e.devTurn }()
	rec, st, err := e.exec.Run(ctx, root, names)
	if errors.Is(err, gpu.ErrOutOfMemory) && cacheCouldMakeRoom(err, e.exec.Cache.Stats().Bytes) {
		e.exec.Cache.FreeDeviceColumns()
		rec, st, err = e.exec.Run(ctx, root, names)
	}
	return rec, st, err
}

// cacheCouldMakeRoom says whether dropping cached columns of cached bytes
// could let a request that ran out of memory (err) through: never for the
// host's memory (gpu.ErrHostMemory), always when the device does not say
// its numbers (gpu.OutOfMemory).
func cacheCouldMakeRoom(err error, cached int64) bool {
	if cached <= 0 || errors.Is(err, gpu.ErrBeyondDevice) || errors.Is(err, gpu.ErrHostMemory) {
		return false
	}
	var oom *gpu.OutOfMemory
	if !errors.As(err, &oom) {
		return true
	}
	return oom.Asked <= oom.Budget-max(oom.InUse-cached, 0)
}

// splitReason says which subtrees of a device plan ran on DuckDB and why
// (empty when none did), for results and the query log.
func splitReason(root physical.Node) string {
	reasons := physical.FallbackReasons(root)
	if len(reasons) == 0 {
		return ""
	}
	return fmt.Sprintf("%d subtree(s) on DuckDB: %s", len(reasons), strings.Join(reasons, "; "))
}

// deviceResult wraps what the device computed.
func (e *Engine) deviceResult(rec arrow.RecordBatch, st *physical.RunStats, plan string, planNanos int64) *Result {
	return &Result{Record: rec, Where: e.where(), Plan: plan, Stats: st, PlanNanos: planNanos, ExecNanos: st.ExecNanos}
}

// fallback runs the whole query on DuckDB.
func (e *Engine) fallback(ctx context.Context, query string) (*Result, error) {
	start := time.Now()
	rr, err := fallback.RunSQL(ctx, e.db, query)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	rec, err := arrowrec.ReadAllWithin(rr, e.maxAnswer)
	if err != nil {
		return nil, err
	}
	return &Result{Record: rec, Where: OnFallback, ExecNanos: time.Since(start).Nanoseconds()}, nil
}

// runner runs SQL over inputs on the engine's DuckDB, its answers held
// within the engine's bound.
func (e *Engine) runner() fallback.Runner {
	return fallback.Runner{DB: e.db, MaxBytes: e.maxAnswer}
}

// RunOnDuckDB runs a query on DuckDB alone (the oracle, and the baseline of
// benchmarks).
func (e *Engine) RunOnDuckDB(ctx context.Context, query string) (*Result, error) {
	return e.fallback(ctx, query)
}

// DropCache empties the device column cache (after the running query, if
// any).
func (e *Engine) DropCache() {
	if e.exec == nil {
		return
	}
	e.devTurn <- struct{}{}
	defer func() { <-e.devTurn }()
	e.exec.Cache.Invalidate(e.tables.ID(), "")
}

// DuckDBSetting reads a DuckDB setting ("threads", ...), or "?" on error.
func (e *Engine) DuckDBSetting(ctx context.Context, name string) string {
	var v string
	if err := e.db.QueryRowContext(ctx, "SELECT current_setting(?)", name).Scan(&v); err != nil {
		return "?"
	}
	return v
}

// RunPlan runs a Substrait plan (binary or JSON) whose tables are in the
// engine's database. Without SQL there is nothing to hand DuckDB yet, so
// what the device cannot run is an error naming the reason (per-subtree
// fallback of Substrait input comes with the fallback engine's next step).
func (e *Engine) RunPlan(ctx context.Context, data []byte) (_ *Result, err error) {
	defer recoverBug(&err)
	start := time.Now()
	pp, err := e.PreparePlan(data)
	if err != nil {
		if res, ok, ferr := e.planOnDuckDB(ctx, data, err); ok {
			return res, ferr
		}
		return nil, err
	}
	planNanos := time.Since(start).Nanoseconds()
	rec, st, err := e.runOnDevice(ctx, pp.Root, pp.Names)
	if err != nil {
		return nil, err
	}
	res := e.deviceResult(rec, st, pp.Plan, planNanos)
	res.Reason = splitReason(pp.Root)
	res.Notes = pp.Notes
	return res, nil
}

// planOnDuckDB runs a whole Substrait plan as DuckDB SQL when there is no
// device, or when no part of it can run there (cause). ok is false when
// the plan has no SQL form either: then cause stands.
func (e *Engine) planOnDuckDB(ctx context.Context, data []byte, cause error) (*Result, bool, error) {
	if e.dev != nil && !errors.Is(cause, translate.ErrUnsupported) && !errors.Is(cause, substrait.ErrNotImplemented) {
		return nil, false, nil
	}
	pb, err := substrait.Decode(data)
	if err != nil {
		return nil, false, nil
	}
	loaded, err := substrait.Load(pb)
	if err != nil {
		return nil, false, nil
	}
	q, reads, err := fallback.PlanSQLArrow(loaded.Root, loaded.Names)
	if err != nil {
		return nil, false, nil
	}
	res, err := e.fallbackArrow(ctx, q, reads)
	if err != nil {
		return nil, true, err
	}
	res.Reason = cause.Error()
	res.Notes = loaded.Notes
	return res, true, nil
}

// devicePlan makes the choices of a translated plan that depend on the
// device and the data, before EXPLAIN shows them (physical.Rewrites).
func (e *Engine) devicePlan(ctx context.Context, root physical.Node) (physical.Node, error) {
	return e.exec.DevicePlan(ctx, root)
}

// SetDeviceMemory bounds the device memory the engine's plans may use
// (bytes, 0: the device's own): half of it holds cached table columns,
// and a plan whose tables would not fit beside each other streams its
// largest scans through the device a segment at a time (physical's
// Chunked) and runs a join whose build side would not fit a partition at
// a time (physical's PartitionedJoin). Plans prepared before keep their
// choices: call it before the first query.
func (e *Engine) SetDeviceMemory(bytes int64) error {
	if bytes < 0 {
		return fmt.Errorf("device memory must not be negative, got %d", bytes)
	}
	if e.exec == nil {
		return nil
	}
	e.exec.DeviceMemory = bytes
	return e.exec.Cache.SetLimit(bytes / 2)
}

// PreparePlan decodes, loads and translates a Substrait plan (binary or
// JSON) for the device; what the device cannot run is an error.
func (e *Engine) PreparePlan(data []byte) (_ *Prepared, err error) {
	defer recoverBug(&err)
	if e.dev == nil {
		return nil, fmt.Errorf("cannot run a Substrait plan without a device: %s", e.NoDeviceReason)
	}
	pb, err := substrait.Decode(data)
	if err != nil {
		return nil, err
	}
	loaded, err := substrait.Load(pb)
	if err != nil {
		return nil, err
	}
	// Other producers may declare column types other than the tables'
	// (Isthmus: INTEGER keys over BIGINT columns): the translator reads the
	// stored types and casts where that is safe.
	root, err := translate.TranslateWith(loaded, translate.Options{Split: true, Tables: newSchemaMemo(e.tables), Device: refuser(e.dev)})
	if err != nil {
		return nil, err
	}
	if root, err = e.devicePlan(context.Background(), root); err != nil {
		return nil, err
	}
	names := loaded.Names
	if len(names) == 0 {
		for i := range root.OutputTypes() {
			names = append(names, fmt.Sprintf("col%d", i))
		}
	}
	return &Prepared{Names: names, Root: root, Notes: loaded.Notes, Plan: notesText(loaded.Notes) + physical.Explain(root, string(e.where()))}, nil
}

// notesText is the EXPLAIN lines of a plan's notes.
func notesText(notes []string) string {
	var b strings.Builder
	for _, n := range notes {
		b.WriteString("[note] " + n + "\n")
	}
	return b.String()
}

// refuser is dev's answers to what it cannot run, where it has them
// (gpu.Refuser: the CUDA device), for the translator.
func refuser(dev gpu.Device) gpu.Refuser {
	r, _ := dev.(gpu.Refuser)
	return r
}
