// Package duckdbbridge connects rigel to DuckDB: it turns DuckDB's optimized
// logical plans (json_serialize_plan) into Substrait plans (ProducePlan) and
// streams DuckDB tables to rigel's scans as Arrow record batches (Tables).
package duckdbbridge

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/rigel-db/rigel/internal/duckguard"
	"github.com/rigel-db/rigel/internal/sqltext"
	"github.com/rigel-db/rigel/substrait"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// ErrUnsupported is wrapped by every error that reports a query the producer
// cannot express yet (an operator, expression, function or type); the
// engine then runs the query elsewhere and shows the message as the reason.
// Messages are one line, for example
// "duckdb plan: LOGICAL_COMPARISON_JOIN (MARK) is not supported by the producer yet".
var ErrUnsupported = errors.New("not supported by the DuckDB plan producer")

type unsupportedError struct{ what string }

func (e *unsupportedError) Error() string {
	return "duckdb plan: " + e.what + " is not supported by the producer yet"
}

func (e *unsupportedError) Is(target error) bool { return target == ErrUnsupported }

func unsupported(format string, args ...any) error {
	return &unsupportedError{what: fmt.Sprintf(format, args...)}
}

// DuckDBError is an error DuckDB reported while binding or planning the
// query (a syntax error, an unknown column...). Error returns DuckDB's
// message unchanged.
type DuckDBError struct {
	Type    string // DuckDB's error type, e.g. "binder", "parser"
	Message string
}

func (e *DuckDBError) Error() string { return e.Message }

// planOptimizers are the DuckDB optimizers switched off while taking a plan,
// because their output has no meaning in Substrait or breaks DuckDB's plan
// serialization:
//
//   - compressed_materialization inserts __internal_compress_* and
//     __internal_decompress_* calls around materializing operators: DuckDB
//     internal functions with no Substrait counterpart.
//   - in_clause turns large IN lists into a mark join against a collection
//     of constants; kept as an IN list, the predicate maps to Substrait's
//     SingularOrList.
//   - materialized_cte materializes CTEs into LOGICAL_MATERIALIZED_CTE /
//     CTE_REF operators; Substrait has no shared-subplan reference in the
//     plans rigel consumes, so CTEs stay inlined.
//   - common_subplan folds repeated subplans into a materialized CTE, for
//     the same reason.
//   - late_materialization rewrites TOP_N/LIMIT queries into a join that
//     re-fetches columns by row id; Substrait has no row ids.
//   - build_side_probe_side swaps join children to choose the hash table
//     side: a physical decision that rigel makes itself, and in DuckDB 1.5.3
//     json_serialize_plan fails on plans it changed ("Failed to bind column
//     reference ...: inequal types", TPC-H Q7, Q8, Q9, Q21).
//   - top_n merges ORDER BY + LIMIT into LOGICAL_TOP_N; in DuckDB 1.5.3
//     json_serialize_plan fails on TOP_N over filtered scans (its dynamic
//     filter pushdown; TPC-H Q2). Without it the plan has ORDER_BY + LIMIT,
//     which become the same SortRel + FetchRel that TOP_N would.
//   - top_n_window_elimination rewrites a filter keeping the first rows of
//     each partition by row_number() (WHERE rn <= k over a subquery,
//     QUALIFY) into arg_min/arg_max aggregates and an UNNEST, which have no
//     Substrait counterpart here, and in DuckDB 1.5.3 json_serialize_plan
//     fails on its QUALIFY form ("Failed to bind column reference ...:
//     inequal num bindings"). Without it the plan keeps the WINDOW and the
//     filter, which run on the device.
//
// deliminator stays on: it removes most delim joins of correlated
// subqueries.
var planOptimizers = []string{
	"compressed_materialization", "in_clause", "materialized_cte", "common_subplan",
	"late_materialization", "build_side_probe_side", "top_n", "top_n_window_elimination",
}

// Plan production changes disabled_optimizers, a global DuckDB setting (it
// cannot be set per connection), and restores it. DuckDB crashes when the
// setting changes while another connection optimizes a statement, so
// production holds duckguard's lock alone: no statement of a guarded
// connection runs meanwhile (and none runs with these optimizers off).

// ProducePlan asks DuckDB for the optimized logical plan of query and
// converts it into a Substrait plan with one root whose names are the
// query's output column names.
//
// Plans are built as raw protobuf messages rather than through
// substrait-go's plan builder, because the builder derives output types
// from the extension YAMLs and those differ from DuckDB's in places (DuckDB
// types sum(integer) as HUGEINT, avg(decimal) as DOUBLE, decimal products by
// its own width rules). Every expression carries exactly the type DuckDB
// wrote in its plan; functions are checked against substrait-go's standard
// extension collection as they are added.
//
// The plan reflects the data at the time it is taken: DuckDB's optimizer
// uses table statistics (it replaces a scan of an empty table by an empty
// result and drops filters that statistics prove always true), so a plan
// must be produced again after the tables change.
//
// Errors: a SQL error is a *DuckDBError with DuckDB's message unchanged; a
// query the producer cannot express wraps ErrUnsupported.
func ProducePlan(ctx context.Context, conn *sql.Conn, query string) (*pb.Plan, error) {
	return producePlan(ctx, conn, query, nil, nil, nil)
}

// producePlan is ProducePlan; when outTypes is not nil it also receives the
// DuckDB types of the plan's output columns (the engine gives unsigned ones
// their Arrow type back, result_types.go). names are the query's output
// column names where the caller has them from a prepare of the same text
// (nil: DuckDB is asked).
func producePlan(ctx context.Context, conn *sql.Conn, query string, outTypes *[]colType, catalog *catalogMemo, names []string) (*pb.Plan, error) {
	text, err := serializePlan(ctx, conn, query)
	if err != nil {
		return nil, err
	}
	dp, err := parseDuckPlan(text)
	if err != nil {
		return nil, err
	}
	if dp.Error {
		// Preparing the query reports the same error with DuckDB's full
		// text ("Binder Error: ... LINE 1: ..."), exactly as database/sql
		// users see it; the plan JSON carries only the bare message.
		msg := dp.ErrorMessage
		_, perr := prepareNames(ctx, conn, query)
		if perr == nil {
			// The query is valid SQL but DuckDB cannot serialize its plan
			// (read_csv: "CSVReaderSerialize not implemented"): DuckDB
			// runs it, as for any plan the producer cannot express.
			return nil, unsupported("a plan DuckDB cannot serialize (%s: %s)", dp.ErrorType, firstLineOf(msg))
		}
		var de *duckdb.Error
		if errors.As(perr, &de) {
			msg = de.Error()
		}
		return nil, &DuckDBError{Type: dp.ErrorType, Message: msg}
	}
	if len(dp.Plans) != 1 {
		return nil, fmt.Errorf("duckdb plan: the query has %d statements, want exactly one", len(dp.Plans))
	}
	if names == nil {
		if names, err = outputNames(ctx, conn, query); err != nil {
			return nil, err
		}
	}
	reg, err := newExtRegistry()
	if err != nil {
		return nil, err
	}
	p := &producer{ctx: ctx, conn: conn, reg: reg, tables: map[string]*tableInfo{}, ctes: map[uint64]cteDef{}, catalog: catalog}
	root, out, err := p.rel(dp.Plans[0])
	if err != nil {
		return nil, err
	}
	if len(names) != len(out) {
		return nil, fmt.Errorf("duckdb plan: the plan has %d output columns but the query has %d", len(out), len(names))
	}
	if outTypes != nil {
		*outTypes = out
	}
	return &pb.Plan{
		Version:       &pb.Version{MajorNumber: 0, MinorNumber: 85, Producer: substrait.DuckDBBridgeProducer},
		ExtensionUrns: reg.urns,
		Extensions:    reg.decls,
		Relations: []*pb.PlanRel{{RelType: &pb.PlanRel_Root{Root: &pb.RelRoot{
			Input: root, Names: names,
		}}}},
	}, nil
}

// producer holds the state of one conversion.
type producer struct {
	ctx       context.Context
	conn      *sql.Conn
	reg       *extRegistry
	tables    map[string]*tableInfo
	defaultDB string
	// catalog keeps catalog lookups across plans of a read-only database
	// (nil: every plan asks DuckDB).
	catalog *catalogMemo
	// delims: the delim joins whose delim side is being converted,
	// innermost last; a LOGICAL_DELIM_GET reads the innermost.
	delims []delimSource
	// ctes: the converted definitions of the LOGICAL_MATERIALIZED_CTEs in
	// scope, by table_index; each LOGICAL_CTE_REF gets a copy.
	ctes map[uint64]cteDef
}

// serializePlan runs json_serialize_plan with planOptimizers disabled and
// restores the previous disabled_optimizers setting afterwards, holding
// duckguard's lock alone; its statements go to the duckdb-go connection
// beneath conn, which does not take the lock again. When other statements
// keep DuckDB busy past exclusiveWait, it gives up (an error wrapping
// duckguard.ErrBusy): the query then runs on DuckDB this time.
func serializePlan(ctx context.Context, conn *sql.Conn, query string) (text string, err error) {
	err = conn.Raw(func(dc any) error {
		c, ok := duckguard.Unwrap(dc)
		if !ok {
			return fmt.Errorf("duckdb plan: the connection is not a DuckDB connection (%T)", dc)
		}
		release, err := duckguard.Exclusive(ctx, exclusiveWait)
		if err != nil {
			return fmt.Errorf("duckdb plan: %w", err)
		}
		defer release()
		text, err = serializeAlone(ctx, c, query)
		return err
	})
	return text, err
}

// exclusiveWait bounds the wait for DuckDB to itself: statements run for
// milliseconds, and one that runs longer must not hold a new query's plan
// back longer than DuckDB would take to answer it.
const exclusiveWait = 2 * time.Second

func serializeAlone(ctx context.Context, c *duckdb.Conn, query string) (text string, err error) {
	prev, err := queryText(ctx, c, "SELECT current_setting('disabled_optimizers')")
	if err != nil {
		return "", fmt.Errorf("duckdb plan: reading disabled_optimizers: %w", err)
	}
	want := []string{}
	for _, o := range strings.Split(prev, ",") {
		if o = strings.TrimSpace(o); o != "" {
			want = append(want, o)
		}
	}
	for _, o := range planOptimizers {
		if !slices.Contains(want, o) {
			want = append(want, o)
		}
	}
	if _, err := c.ExecContext(ctx, "SET disabled_optimizers = "+sqltext.String(strings.Join(want, ",")), nil); err != nil {
		return "", fmt.Errorf("duckdb plan: setting disabled_optimizers: %w", err)
	}
	defer func() {
		// Restore even when the context is cancelled: the setting is global.
		restore := "SET disabled_optimizers = " + sqltext.String(prev)
		if prev == "" {
			restore = "RESET disabled_optimizers"
		}
		if _, rerr := c.ExecContext(context.WithoutCancel(ctx), restore, nil); rerr != nil {
			err = errors.Join(err, fmt.Errorf("duckdb plan: restoring disabled_optimizers: %w", rerr))
		}
	}()
	// The query goes in as a string literal: json_serialize_plan needs a
	// constant VARCHAR, which a bound parameter is not. The JSON result is read
	// as text: decoded by the driver, 64-bit numbers would lose digits.
	if text, err = queryText(ctx, c, "SELECT CAST(json_serialize_plan("+sqltext.String(query)+", optimize := true) AS VARCHAR)"); err != nil {
		return "", fmt.Errorf("duckdb plan: json_serialize_plan: %w", err)
	}
	return text, nil
}

// queryText returns the first column of the first row of query, a string.
func queryText(ctx context.Context, c *duckdb.Conn, query string) (string, error) {
	rows, err := c.QueryContext(ctx, query, nil)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	dest := make([]driver.Value, len(rows.Columns()))
	if err := rows.Next(dest); err != nil {
		return "", fmt.Errorf("no row: %w", err)
	}
	s, ok := dest[0].(string)
	if !ok {
		return "", fmt.Errorf("a %T, not text", dest[0])
	}
	return s, nil
}

// outputNames prepares the query (without running it) to read its output
// column names, which the plan JSON does not carry.
func outputNames(ctx context.Context, conn *sql.Conn, query string) ([]string, error) {
	names, err := prepareNames(ctx, conn, query)
	if err != nil {
		return nil, fmt.Errorf("duckdb plan: output column names: %w", err)
	}
	return names, nil
}

func prepareNames(ctx context.Context, conn *sql.Conn, query string) ([]string, error) {
	var names []string
	err := conn.Raw(func(dc any) error {
		pc, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("duckdb plan: the connection is not a DuckDB connection")
		}
		st, err := pc.PrepareContext(ctx, query)
		if err != nil {
			return err
		}
		defer st.Close()
		ds, ok := duckguard.StmtOf(st)
		if !ok {
			return fmt.Errorf("duckdb plan: the connection is not a DuckDB connection")
		}
		names, err = stmtColumnNames(ds)
		return err
	})
	return names, err
}

// stmtColumnNames are a prepared statement's output column names.
func stmtColumnNames(ds *duckdb.Stmt) ([]string, error) {
	n, err := ds.ColumnCount()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, n)
	for i := 0; i < n; i++ {
		name, err := ds.ColumnName(i)
		if err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	return names, nil
}

// tableInfo is what a scan needs to know about a table.
type tableInfo struct {
	name           string   // for messages
	names          []string // column names
	cols           []colType
	substraitNames []string // NamedTable names
}

// table looks a scanned table up in DuckDB's catalog for the NOT NULL
// constraints the plan does not carry; names and types come from the plan
// and must agree with the catalog.
func (p *producer) table(fd *duckScanData, names []string, types []duckType) (*tableInfo, error) {
	key := fd.Catalog + "\x00" + fd.Schema + "\x00" + fd.Table
	if t, ok := p.tables[key]; ok {
		return t, nil
	}
	full := fd.Catalog + "." + fd.Schema + "." + fd.Table
	if len(names) != len(types) || len(names) == 0 {
		return nil, fmt.Errorf("duckdb plan: scan of %s lists %d column names and %d types", full, len(names), len(types))
	}
	if p.defaultDB == "" {
		if name, ok := p.catalog.database(); ok {
			p.defaultDB = name
		} else if err := p.conn.QueryRowContext(p.ctx, "SELECT current_database()").Scan(&p.defaultDB); err != nil {
			return nil, fmt.Errorf("duckdb plan: current database: %w", err)
		} else {
			p.catalog.putDatabase(p.defaultDB)
		}
	}
	catCols, err := p.catalogColumns(key, fd, full)
	if err != nil {
		return nil, err
	}
	t := &tableInfo{name: full, names: names}
	for i, c := range catCols {
		if i >= len(names) || c.name != names[i] {
			return nil, fmt.Errorf("duckdb plan: catalog of %s does not match the plan's columns %v", full, names)
		}
		t.cols = append(t.cols, colType{duck: types[i], nullable: c.nullable})
	}
	if len(t.cols) != len(names) {
		return nil, fmt.Errorf("duckdb plan: catalog of %s has %d columns, the plan %d", full, len(t.cols), len(names))
	}
	// Tables of the default database's main schema are named by their bare
	// name (what Tables.TableSchema takes); others are qualified.
	switch {
	case fd.Catalog == p.defaultDB && fd.Schema == "main":
		t.substraitNames = []string{fd.Table}
	case fd.Catalog == p.defaultDB:
		t.substraitNames = []string{fd.Schema, fd.Table}
	default:
		t.substraitNames = []string{fd.Catalog, fd.Schema, fd.Table}
	}
	p.tables[key] = t
	return t, nil
}

// catalogColumns lists a table's columns and whether each takes nulls,
// from the memo of a read-only database or from DuckDB's catalog.
func (p *producer) catalogColumns(key string, fd *duckScanData, full string) ([]catalogColumn, error) {
	if cols, ok := p.catalog.table(key); ok {
		return cols, nil
	}
	cols, err := tableColumns(p.ctx, p.conn, fd.Catalog, fd.Schema, fd.Table)
	if err != nil {
		return nil, fmt.Errorf("duckdb plan: catalog of %s: %w", full, err)
	}
	p.catalog.putTable(key, cols)
	return cols, nil
}

// PlanBytes produces the Substrait plan of a query over db as binary
// protobuf (what hosts send over Flight SQL or the C ABI).
func PlanBytes(ctx context.Context, db *sql.DB, query string) ([]byte, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	p, err := ProducePlan(ctx, conn, query)
	if err != nil {
		return nil, err
	}
	return proto.Marshal(p)
}

// firstLineOf returns s up to its first line break: unsupported reasons are
// one line.
func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
