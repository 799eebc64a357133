package fallback_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	// The extension relations' details (Any) in protobuf JSON name types
	// that must be registered to be decoded.
	_ "google.golang.org/protobuf/types/known/wrapperspb"
)

// One small Substrait plan (protobuf JSON, as another producer would send
// it) per relation kind, run through Engine.RunPlan on the host device over
// the TPC-H SF0.01 database: each either gives DuckDB's answer to the
// equivalent SQL, or fails with an error that names the relation (or file
// format, or extension) and says why. The log line of each case says where
// it ran (device alone, or with DuckDB subtrees and why): the table of
// conformance/RELATIONS.md.
func TestEveryRelation(t *testing.T) {
	eng := tpchEngine(t)
	dir := t.TempDir()
	parquet, csv, arrowFile := writeFiles(t, dir)
	cases := []relCase{
		{name: "ReadRel NamedTable", rel: nation(), names: nationNames, sql: "SELECT * FROM nation"},
		{name: "ReadRel NamedTable filter+projection", rel: `{"read":{"common":{"direct":{}},` + nationSchema +
			`,"namedTable":{"names":["nation"]},"filter":` + call(fnEqual, boolT, fld(2), i64(1)) +
			`,"projection":{"select":{"structItems":[{"field":1},{"field":0}]},"maintainSingularStruct":true}}}`,
			names: []string{"n", "k"}, sql: "SELECT n_name, n_nationkey FROM nation WHERE n_regionkey = 1"},
		{name: "VirtualTable", rel: `{"read":{"common":{"direct":{}},"baseSchema":{"names":["a","b"],"struct":{"types":[` + i64T + `,` + strNT + `],"nullability":"NULLABILITY_REQUIRED"}},
			"virtualTable":{"expressions":[{"fields":[` + i64(1) + `,{"literal":{"string":"x"}}]},{"fields":[` + i64(2) + `,{"literal":{"null":` + strNT + `}}]}]}}}`,
			names: []string{"a", "b"}, sql: "SELECT * FROM (VALUES (1::BIGINT, 'x'), (2, NULL))"},
		{name: "FilterRel", rel: `{"filter":{"input":` + nation() + `,"condition":` + call(fnLt, boolT, fld(0), i64(7)) + `}}`,
			names: nationNames, sql: "SELECT * FROM nation WHERE n_nationkey < 7"},
		{name: "ProjectRel with emit", rel: `{"project":{"common":{"emit":{"outputMapping":[1,4]}},"input":` + nation() +
			`,"expressions":[` + call(fnAdd, i64T, fld(0), i64(100)) + `]}}`,
			names: []string{"n", "k"}, sql: "SELECT n_name, n_nationkey + 100 FROM nation"},
		{name: "AggregateRel", rel: `{"aggregate":{"input":` + nation() + `,"groupingExpressions":[` + fld(2) + `],"groupings":[{"expressionReferences":[0]}],
			"measures":[{"measure":{"functionReference":` + fnCountStar + `,"outputType":` + i64T + `,"phase":"AGGREGATION_PHASE_INITIAL_TO_RESULT","invocation":"AGGREGATION_INVOCATION_ALL"}}]}}`,
			names: []string{"r", "n"}, sql: "SELECT n_regionkey, count(*) FROM nation GROUP BY 1"},
		{name: "AggregateRel DISTINCT, measure filter", rel: `{"aggregate":{"input":` + nation() +
			`,"groupingExpressions":[` + fld(2) + `],"groupings":[{"expressionReferences":[0]}],
			"measures":[{"measure":{"functionReference":` + fnCount + `,"outputType":` + i64T + `,"phase":"AGGREGATION_PHASE_INITIAL_TO_RESULT","invocation":"AGGREGATION_INVOCATION_DISTINCT","arguments":[{"value":` + fld(1) + `}]},
			"filter":` + call(fnLt, boolT, i64(5), fld(0)) + `}]}}`,
			names: []string{"r", "n"}, sql: "SELECT n_regionkey, count(DISTINCT n_name) FILTER (WHERE n_nationkey > 5) FROM nation GROUP BY 1"},
		{name: "AggregateRel grouping sets", rel: `{"aggregate":{"input":` + nation() +
			`,"groupingExpressions":[` + fld(2) + `],"groupings":[{"expressionReferences":[0]},{}],
			"measures":[{"measure":{"functionReference":` + fnCountStar + `,"outputType":` + i64T + `,"phase":"AGGREGATION_PHASE_INITIAL_TO_RESULT","invocation":"AGGREGATION_INVOCATION_ALL"}}]}}`,
			names: []string{"r", "n", "set"}, refuse: "AggregateRel with several grouping sets: not supported by rigel yet (no DuckDB fallback for it: fallback SQL: in AggregateRel: fallback SQL: an aggregate with 2 grouping sets)"},
		{name: "JoinRel inner", rel: `{"join":{"common":{"emit":{"outputMapping":[1,5]}},"left":` + nation() + `,"right":` + region() +
			`,"expression":` + call(fnEqual, boolT, fld(2), fld(4)) + `,"type":"JOIN_TYPE_INNER"}}`,
			names: []string{"n", "r"}, sql: "SELECT n_name, r_name FROM nation JOIN region ON n_regionkey = r_regionkey"},
		{name: "JoinRel left anti", rel: `{"join":{"left":` + region() + `,"right":` + nation() +
			`,"expression":` + call(fnEqual, boolT, fld(0), fld(3)) + `,"type":"JOIN_TYPE_LEFT_ANTI"}}`,
			names: regionNames, sql: "SELECT * FROM region WHERE r_regionkey NOT IN (SELECT n_nationkey FROM nation WHERE n_nationkey < 0)  AND false"},
		{name: "CrossRel", rel: `{"cross":{"common":{"emit":{"outputMapping":[0,3]}},"left":` + region() + `,"right":` + region() + `}}`,
			names: []string{"a", "b"}, sql: "SELECT a.r_regionkey, b.r_regionkey FROM region a, region b"},
		{name: "HashJoinRel", rel: `{"hashJoin":{"common":{"emit":{"outputMapping":[1,5]}},"left":` + nation() + `,"right":` + region() +
			`,"keys":[{"left":` + ref(2) + `,"right":` + ref(0) + `,"comparison":{"simple":"SIMPLE_COMPARISON_TYPE_EQ"}}],"type":"JOIN_TYPE_INNER"}}`,
			names: []string{"n", "r"}, sql: "SELECT n_name, r_name FROM nation JOIN region ON n_regionkey = r_regionkey"},
		{name: "HashJoinRel left semi, is_not_distinct_from", rel: `{"hashJoin":{"left":` + region() + `,"right":` + nation() +
			`,"keys":[{"left":` + ref(0) + `,"right":` + ref(0) + `,"comparison":{"simple":"SIMPLE_COMPARISON_TYPE_IS_NOT_DISTINCT_FROM"}}],"type":"JOIN_TYPE_LEFT_SEMI"}}`,
			names: regionNames, sql: "SELECT * FROM region WHERE r_regionkey IN (SELECT n_nationkey FROM nation)"},
		{name: "HashJoinRel might_equal", rel: `{"hashJoin":{"left":` + region() + `,"right":` + nation() +
			`,"keys":[{"left":` + ref(0) + `,"right":` + ref(0) + `,"comparison":{"simple":"SIMPLE_COMPARISON_TYPE_MIGHT_EQUAL"}}],"type":"JOIN_TYPE_INNER"}}`,
			refuse: "HashJoinRel key 0: comparison SIMPLE_COMPARISON_TYPE_MIGHT_EQUAL"},
		{name: "MergeJoinRel left outer (deprecated keys)", rel: `{"mergeJoin":{"common":{"emit":{"outputMapping":[0,4]}},"left":` + region() + `,"right":` + nation() +
			`,"leftKeys":[` + ref(0) + `],"rightKeys":[` + ref(0) + `],"postJoinFilter":` + call(fnLt, boolT, fld(0), i64(3)) + `,"type":"JOIN_TYPE_LEFT"}}`,
			// The post-join filter filters the join's output (it is not
			// part of the outer join's condition).
			names: []string{"r", "n"}, sql: "SELECT r_regionkey, n_name FROM region LEFT JOIN nation ON r_regionkey = n_nationkey WHERE r_regionkey < 3"},
		{name: "NestedLoopJoinRel", rel: `{"nestedLoopJoin":{"common":{"emit":{"outputMapping":[0,3]}},"left":` + region() + `,"right":` + region() +
			`,"expression":` + call(fnLt, boolT, fld(0), fld(3)) + `,"type":"JOIN_TYPE_INNER"}}`,
			names: []string{"a", "b"}, sql: "SELECT a.r_regionkey, b.r_regionkey FROM region a JOIN region b ON a.r_regionkey < b.r_regionkey"},
		{name: "SortRel + FetchRel", rel: `{"fetch":{"input":{"sort":{"input":` + nation() + `,"sorts":[{"expr":` + fld(1) + `,"direction":"SORT_DIRECTION_DESC_NULLS_LAST"}]}},"offset":"2","count":"5"}}`,
			names: nationNames, sql: "SELECT * FROM nation ORDER BY n_name DESC LIMIT 5 OFFSET 2", ordered: true},
		{name: "SetRel union distinct", rel: setOf("SET_OP_UNION_DISTINCT"), names: []string{"k"},
			sql: "SELECT n_regionkey FROM nation UNION SELECT r_regionkey + 3 FROM region"},
		{name: "SetRel union all", rel: setOf("SET_OP_UNION_ALL"), names: []string{"k"},
			sql: "SELECT n_regionkey FROM nation UNION ALL SELECT r_regionkey + 3 FROM region"},
		{name: "SetRel minus primary", rel: setOf("SET_OP_MINUS_PRIMARY"), names: []string{"k"},
			sql: "SELECT n_regionkey FROM nation EXCEPT SELECT r_regionkey + 3 FROM region"},
		{name: "SetRel minus primary all", rel: setOf("SET_OP_MINUS_PRIMARY_ALL"), names: []string{"k"},
			sql: "SELECT n_regionkey FROM nation EXCEPT ALL SELECT r_regionkey + 3 FROM region"},
		{name: "SetRel intersection primary", rel: setOf("SET_OP_INTERSECTION_PRIMARY"), names: []string{"k"},
			sql: "SELECT n_regionkey FROM nation INTERSECT SELECT r_regionkey + 3 FROM region"},
		{name: "SetRel intersection multiset all", rel: setOf("SET_OP_INTERSECTION_MULTISET_ALL"), names: []string{"k"},
			sql: "SELECT n_regionkey FROM nation INTERSECT ALL SELECT r_regionkey + 3 FROM region"},
		{name: "ConsistentPartitionWindowRel", rel: `{"window":{"common":{"emit":{"outputMapping":[0,4]}},"input":` + nation() +
			`,"windowFunctions":[{"functionReference":` + fnRowNumber + `,"outputType":` + i64T + `,"phase":"AGGREGATION_PHASE_INITIAL_TO_RESULT","invocation":"AGGREGATION_INVOCATION_ALL","boundsType":"BOUNDS_TYPE_ROWS","lowerBound":{"unbounded":{}},"upperBound":{"currentRow":{}}}],
			"partitionExpressions":[` + fld(2) + `],"sorts":[{"expr":` + fld(0) + `,"direction":"SORT_DIRECTION_DESC_NULLS_LAST"}]}}`,
			names: []string{"k", "rn"}, sql: "SELECT n_nationkey, row_number() OVER (PARTITION BY n_regionkey ORDER BY n_nationkey DESC) FROM nation"},
		{name: "ReferenceRel (shared subplan)", shared: []string{`{"filter":{"input":` + region() + `,"condition":` + call(fnLt, boolT, fld(0), i64(3)) + `}}`},
			rel:   `{"cross":{"common":{"emit":{"outputMapping":[0,4]}},"left":{"reference":{"subtreeOrdinal":0}},"right":{"reference":{"subtreeOrdinal":0}}}}`,
			names: []string{"a", "b"}, sql: "SELECT a.r_regionkey, b.r_name FROM region a, region b WHERE a.r_regionkey < 3 AND b.r_regionkey < 3"},
		{name: "ReferenceRel cycle", shared: []string{`{"filter":{"input":{"reference":{"subtreeOrdinal":0}},"condition":{"literal":{"boolean":true}}}}`},
			rel: `{"reference":{"subtreeOrdinal":0}}`, names: regionNames, refuse: "ReferenceRel: relations[0] refers to itself"},
		{name: "ExpandRel", rel: `{"expand":{"input":` + region() + `,"fields":[{"consistentField":` + fld(0) + `},
			{"switchingField":{"duplicates":[` + call(fnAdd, i64T, fld(0), i64(10)) + `,` + i64(-1) + `]}}]}}`,
			names: []string{"k", "g"}, sql: "SELECT r_regionkey, r_regionkey + 10 FROM region UNION ALL SELECT r_regionkey, -1 FROM region"},
		{name: "ExpandRel one copy, emit", rel: `{"expand":{"common":{"emit":{"outputMapping":[1]}},"input":` + region() + `,"fields":[{"consistentField":` + fld(0) + `},
			{"consistentField":` + fld(1) + `}]}}`,
			names: []string{"n"}, sql: "SELECT r_name FROM region"},
		{name: "ReadRel LocalFiles Parquet", rel: files(`{"uriFile":"file://` + parquet + `","parquet":{}}`), names: []string{"k", "s"},
			sql: "SELECT * FROM (VALUES (0::BIGINT, 'v0'), (1, NULL), (2, 'v2'))"},
		{name: "ReadRel LocalFiles CSV", rel: files(`{"uriPath":"` + csv + `","text":{"fieldDelimiter":"|","quote":"\"","headerLinesToSkip":"1","escape":"\"","valueTreatedAsNull":"NA"}}`),
			names: []string{"k", "s"}, sql: "SELECT * FROM (VALUES (0::BIGINT, 'a|b'), (1, NULL), (2, ''))"},
		{name: "ReadRel LocalFiles Arrow IPC", rel: files(`{"uriFile":"file://` + arrowFile + `","arrow":{}}`), names: []string{"k", "s"},
			sql: "SELECT * FROM (VALUES (0::BIGINT, 'v0'), (1, NULL), (2, 'v2'))"},
		{name: "ExtensionSingleRel", rel: `{"extensionSingle":{"input":` + region() + `,"detail":{"@type":"type.googleapis.com/google.protobuf.StringValue","value":"x"}}}`,
			names: regionNames, refuse: "ExtensionSingleRel (extension type.googleapis.com/google.protobuf.StringValue)"},
		{name: "ExtensionLeafRel", rel: `{"extensionLeaf":{"detail":{"@type":"type.googleapis.com/google.protobuf.Int64Value","value":"5"}}}`,
			names: regionNames, refuse: "ExtensionLeafRel (extension type.googleapis.com/google.protobuf.Int64Value)"},
		{name: "ExtensionMultiRel", rel: `{"extensionMulti":{"inputs":[` + region() + `,` + region() + `]}}`,
			names: regionNames, refuse: "ExtensionMultiRel (no detail)"},
		{name: "WriteRel", rel: `{"write":{"namedTable":{"names":["nation"]},"tableSchema":` + strings.TrimPrefix(nationSchema, `"baseSchema":`) + `,"op":"WRITE_OP_INSERT","input":` + nation() + `}}`,
			names: nationNames, refuse: "WriteRel (INSERT of table nation)"},
		{name: "DdlRel", rel: `{"ddl":{"namedObject":{"names":["t2"]},"tableSchema":` + strings.TrimPrefix(nationSchema, `"baseSchema":`) + `,"object":"DDL_OBJECT_TABLE","op":"DDL_OP_CREATE"}}`,
			names: nationNames, refuse: "DdlRel (CREATE TABLE table t2)"},
		{name: "UpdateRel", rel: `{"update":{"namedTable":{"names":["nation"]},"tableSchema":` + strings.TrimPrefix(nationSchema, `"baseSchema":`) + `,"condition":{"literal":{"boolean":true}}}}`,
			names: nationNames, refuse: "UpdateRel (of table nation)"},
		{name: "ExchangeRel", rel: `{"exchange":{"input":` + region() + `,"partitionCount":2,"broadcast":{}}}`,
			names: regionNames, refuse: "ExchangeRel: relation refused by rigel: it distributes rows"},
	}
	runRelCases(t, eng, cases)
}

type relCase struct {
	name   string
	rel    string   // the root's input, protobuf JSON
	shared []string // plan.relations[i].rel before the root (ReferenceRel targets)
	names  []string
	sql    string // DuckDB's equivalent, or
	refuse string // the error it must fail with
	// ordered: compare in order (a sort under a fetch).
	ordered bool
}

func runRelCases(t *testing.T, eng *duckdbbridge.Engine, cases []relCase) {
	ctx := context.Background()
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			data := planJSON(c)
			res, err := eng.RunPlan(ctx, []byte(data))
			if c.refuse != "" {
				if err == nil {
					res.Release()
					t.Fatalf("ran (on %s), want the error %q", res.Where, c.refuse)
				}
				if !strings.Contains(err.Error(), c.refuse) {
					t.Fatalf("error %q, want one containing %q", err, c.refuse)
				}
				t.Logf("refused: %v", err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer res.Release()
			oracle, err := eng.RunOnDuckDB(ctx, c.sql)
			if err != nil {
				t.Fatal(err)
			}
			defer oracle.Release()
			if err := sameValues(res.Record, oracle.Record, c.ordered); err != nil {
				t.Fatalf("differs from DuckDB: %v\n%s", err, res.Plan)
			}
			t.Logf("ran on %s; %s", res.Where, res.Reason)
		})
	}
}

// Function anchors every test plan declares.
const (
	fnEqual     = "1"
	fnLt        = "2"
	fnAdd       = "3"
	fnCountStar = "4"
	fnCount     = "5"
	fnRowNumber = "6"
)

const extensionsJSON = `"extensionUrns":[{"extensionUrnAnchor":1,"urn":"extension:io.substrait:functions_comparison"},
	{"extensionUrnAnchor":2,"urn":"extension:io.substrait:functions_arithmetic"},
	{"extensionUrnAnchor":3,"urn":"extension:io.substrait:functions_aggregate_generic"}],
"extensions":[{"extensionFunction":{"extensionUrnReference":1,"functionAnchor":1,"name":"equal:any_any"}},
	{"extensionFunction":{"extensionUrnReference":1,"functionAnchor":2,"name":"lt:any_any"}},
	{"extensionFunction":{"extensionUrnReference":2,"functionAnchor":3,"name":"add:i64_i64"}},
	{"extensionFunction":{"extensionUrnReference":3,"functionAnchor":4,"name":"count:"}},
	{"extensionFunction":{"extensionUrnReference":3,"functionAnchor":5,"name":"count:any"}},
	{"extensionFunction":{"extensionUrnReference":2,"functionAnchor":6,"name":"row_number:"}}]`

func planJSON(c relCase) string {
	var rels []string
	for _, s := range c.shared {
		rels = append(rels, `{"rel":`+s+`}`)
	}
	names := make([]string, len(c.names))
	for i, n := range c.names {
		names[i] = `"` + n + `"`
	}
	rels = append(rels, `{"root":{"input":`+c.rel+`,"names":[`+strings.Join(names, ",")+`]}}`)
	return "{" + extensionsJSON + `,"relations":[` + strings.Join(rels, ",") + "]}"
}

const (
	i64T  = `{"i64":{"nullability":"NULLABILITY_REQUIRED"}}`
	i64NT = `{"i64":{"nullability":"NULLABILITY_NULLABLE"}}`
	strT  = `{"string":{"nullability":"NULLABILITY_REQUIRED"}}`
	strNT = `{"string":{"nullability":"NULLABILITY_NULLABLE"}}`
	boolT = `{"bool":{"nullability":"NULLABILITY_NULLABLE"}}`
)

var (
	nationNames  = []string{"n_nationkey", "n_name", "n_regionkey", "n_comment"}
	regionNames  = []string{"r_regionkey", "r_name", "r_comment"}
	nationSchema = `"baseSchema":{"names":["n_nationkey","n_name","n_regionkey","n_comment"],"struct":{"types":[` +
		strings.Join([]string{i64T, strT, i64T, strT}, ",") + `],"nullability":"NULLABILITY_REQUIRED"}}`
	regionSchema = `"baseSchema":{"names":["r_regionkey","r_name","r_comment"],"struct":{"types":[` +
		strings.Join([]string{i64T, strT, strT}, ",") + `],"nullability":"NULLABILITY_REQUIRED"}}`
)

func nation() string {
	return `{"read":{"common":{"direct":{}},` + nationSchema + `,"namedTable":{"names":["nation"]}}}`
}

func region() string {
	return `{"read":{"common":{"direct":{}},` + regionSchema + `,"namedTable":{"names":["region"]}}}`
}

// files is a LocalFiles read of (k BIGINT, s VARCHAR) from one item.
func files(item string) string {
	return `{"read":{"common":{"direct":{}},"baseSchema":{"names":["k","s"],"struct":{"types":[` + i64NT + `,` + strNT +
		`],"nullability":"NULLABILITY_REQUIRED"}},"localFiles":{"items":[` + item + `]}}}`
}

// setOf is n_regionkey of nation <op> r_regionkey + 3 of region.
func setOf(op string) string {
	return `{"set":{"inputs":[{"read":{"common":{"emit":{"outputMapping":[2]}},` + nationSchema + `,"namedTable":{"names":["nation"]}}},
		{"project":{"common":{"emit":{"outputMapping":[3]}},"input":` + region() + `,"expressions":[` + call(fnAdd, i64T, fld(0), i64(3)) + `]}}],"op":"` + op + `"}}`
}

func ref(i int) string {
	return fmt.Sprintf(`{"directReference":{"structField":{"field":%d}},"rootReference":{}}`, i)
}

func fld(i int) string { return `{"selection":` + ref(i) + `}` }

func i64(v int64) string { return fmt.Sprintf(`{"literal":{"i64":"%d"}}`, v) }

func call(fn, out string, args ...string) string {
	as := make([]string, len(args))
	for i, a := range args {
		as[i] = `{"value":` + a + `}`
	}
	return `{"scalarFunction":{"functionReference":` + fn + `,"outputType":` + out + `,"arguments":[` + strings.Join(as, ",") + `]}}`
}

// writeFiles writes the same three rows as Parquet (by DuckDB), CSV (a
// header line, a quoted delimiter, the null marker NA, an empty field) and
// an Arrow IPC file (by DuckDB's Arrow result through duckdb-go).
func writeFiles(t *testing.T, dir string) (parquet, csv, arrowFile string) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	parquet = filepath.Join(dir, "t.parquet")
	if _, err := db.Exec(`COPY (SELECT i AS k, CASE WHEN i = 1 THEN NULL ELSE 'v' || i END AS s FROM range(3) r(i)) TO '` + parquet + `' (FORMAT parquet)`); err != nil {
		t.Fatal(err)
	}
	csv = filepath.Join(dir, "t.csv")
	if err := os.WriteFile(csv, []byte("k|s\n0|\"a|b\"\n1|NA\n2|\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	arrowFile = filepath.Join(dir, "t.arrow")
	writeArrowFile(t, db, arrowFile, "SELECT i AS k, CASE WHEN i = 1 THEN NULL ELSE 'v' || i END AS s FROM range(3) r(i)")
	return parquet, csv, arrowFile
}
