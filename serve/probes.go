package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc/codes"
)

// HostileProbes are the requests a hostile or careless client sent to
// earlier versions of the server, each with the code it must now be
// refused with: forged tickets, writes in disguise, plans that read the
// server's files or devices, plans that expand without end, work too
// large for memory, and a query its client gives up on. The security
// tests and `rigel bench serve --hostile` mix them into a load of good
// queries over TPC-H tables; goodPlan is any valid Substrait plan of that
// catalog.
func HostileProbes(goodPlan []byte) []Probe {
	plan := func(name string, want codes.Code, body []byte) Probe {
		return Probe{Name: name, Want: want, Send: func(ctx context.Context, c *flightsql.Client) error {
			info, err := c.ExecuteSubstrait(ctx, flightsql.SubstraitPlan{Plan: body})
			return fetchAll(ctx, c, info, err)
		}}
	}
	sql := func(name string, want codes.Code, q string) Probe {
		return Probe{Name: name, Want: want, Send: func(ctx context.Context, c *flightsql.Client) error {
			info, err := c.Execute(ctx, q)
			return fetchAll(ctx, c, info, err)
		}}
	}
	forged := func(name, statement string) Probe {
		return Probe{Name: name, Want: codes.PermissionDenied, Send: func(ctx context.Context, c *flightsql.Client) error {
			tkt, err := flightsql.CreateStatementQueryTicket([]byte("q" + statement))
			if err != nil {
				return err
			}
			return fetchAll(ctx, c, &flight.FlightInfo{Endpoint: []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: tkt}}}}, nil)
		}}
	}
	return []Probe{
		forged("forged ticket: SET", "SET memory_limit='10MB'"),
		forged("forged ticket: CREATE VIEW", "CREATE OR REPLACE VIEW nation AS SELECT * FROM nation LIMIT 5"),
		sql("EXPLAIN ANALYZE DELETE", codes.PermissionDenied, "EXPLAIN ANALYZE DELETE FROM nation"),
		sql("ATTACH", codes.PermissionDenied, "ATTACH '/tmp/rigel-hostile.duckdb' AS x"),
		sql("read_csv of a server file", codes.PermissionDenied, "SELECT * FROM read_csv('/etc/passwd')"),
		plan("LocalFiles /etc/passwd", codes.PermissionDenied, LocalFilesPlan("/etc/passwd")),
		plan("LocalFiles /dev/zero", codes.PermissionDenied, LocalFilesPlan("/dev/zero")),
		plan("LocalFiles glob of /etc", codes.PermissionDenied, LocalFilesGlobPlan("/etc/*")),
		plan("plan bomb", codes.InvalidArgument, PlanBomb(64)),
		plan("truncated plan", codes.InvalidArgument, goodPlan[:len(goodPlan)/2]),
		plan("cartesian product past memory", codes.ResourceExhausted, CrossProductPlan("lineitem", "l_orderkey", 3)),
		{Name: "a huge IN list, abandoned", Want: codes.DeadlineExceeded, Send: func(ctx context.Context, c *flightsql.Client) error {
			ctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			defer cancel()
			info, err := c.Execute(ctx, HugeInList("lineitem", "l_orderkey", 500_000))
			return fetchAll(ctx, c, info, err)
		}},
	}
}

// fetchAll reads an answer to its end and returns the first error.
func fetchAll(ctx context.Context, c *flightsql.Client, info *flight.FlightInfo, err error) error {
	if err != nil {
		return err
	}
	rec, err := Fetch(ctx, c, info)
	if err != nil {
		return err
	}
	rec.Release()
	return nil
}

// jsonString quotes s for a JSON plan.
func jsonString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

const oneBigintColumn = `{"names":["a"],"struct":{"types":[{"i64":{"nullability":"NULLABILITY_NULLABLE"}}],"nullability":"NULLABILITY_REQUIRED"}}`

// LocalFilesPlan reads path as an Arrow IPC file of one BIGINT column.
func LocalFilesPlan(path string) []byte {
	return []byte(`{"relations":[{"root":{"names":["a"],"input":{"read":{"baseSchema":` + oneBigintColumn +
		`,"localFiles":{"items":[{"uriFile":` + jsonString("file://"+path) + `,"arrow":{}}]}}}}}]}`)
}

// LocalFilesGlobPlan reads the files a glob matches as Arrow IPC files.
func LocalFilesGlobPlan(glob string) []byte {
	return []byte(`{"relations":[{"root":{"names":["a"],"input":{"read":{"baseSchema":` + oneBigintColumn +
		`,"localFiles":{"items":[{"uriPathGlob":` + jsonString(glob) + `,"arrow":{}}]}}}}}]}`)
}

// readColumn is a ReadRel of one BIGINT column of a named table.
func readColumn(table, column string) string {
	return `{"read":{"baseSchema":{"names":[` + jsonString(column) + `],"struct":{"types":[{"i64":{"nullability":"NULLABILITY_REQUIRED"}}],"nullability":"NULLABILITY_REQUIRED"}},"namedTable":{"names":[` + jsonString(table) + `]}}}`
}

// PlanBomb is a plan of depth shared subplans, each the cross product of
// the one before with itself: a few hundred bytes that name 2^depth reads
// of a table once the references are expanded.
func PlanBomb(depth int) []byte {
	rels := []string{`{"rel":` + readColumn("nation", "n_nationkey") + `}`}
	for k := 1; k <= depth; k++ {
		ref := fmt.Sprintf(`{"reference":{"subtreeOrdinal":%d}}`, k-1)
		rels = append(rels, `{"rel":{"cross":{"left":`+ref+`,"right":`+ref+`}}}`)
	}
	rels = append(rels, fmt.Sprintf(`{"root":{"input":{"reference":{"subtreeOrdinal":%d}}}}`, depth))
	return []byte(`{"relations":[` + strings.Join(rels, ",") + `]}`)
}

// CrossProductPlan is the cross product of n copies of one BIGINT column
// of a table: rows^n rows, more than any memory holds for a table of some
// thousands of rows and n of 3.
func CrossProductPlan(table, column string, n int) []byte {
	rel := readColumn(table, column)
	for i := 1; i < n; i++ {
		rel = `{"cross":{"left":` + rel + `,"right":` + readColumn(table, column) + `}}`
	}
	return []byte(`{"relations":[{"root":{"input":` + rel + `}}]}`)
}

// HugeInList is a query whose filter is an IN list of n numbers: some
// megabytes of SQL that keep an engine busy.
func HugeInList(table, column string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "SELECT count(*) FROM %s WHERE %s IN (", table, column)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", i*7919+13)
	}
	b.WriteString(")")
	return b.String()
}
