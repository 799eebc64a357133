package duckdbbridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// This file holds the Go shapes of the JSON that DuckDB's
// json_serialize_plan writes (DuckDB 1.5). Only the fields the producer reads
// are declared; the JSON is decoded with UseNumber so that 64-bit and 128-bit
// constants (HUGEINT and wide DECIMAL halves are unsigned 64-bit numbers)
// keep every digit.

// duckPlanJSON is the top-level object of json_serialize_plan.
type duckPlanJSON struct {
	Error        bool        `json:"error"`
	ErrorType    string      `json:"error_type"`
	ErrorMessage string      `json:"error_message"`
	Plans        []*duckNode `json:"plans"`
}

// duckNode is one logical operator. Fields are shared by the operator types
// that use them; see the producer's conversion of each type.
type duckNode struct {
	Type     string      `json:"type"`
	Children []*duckNode `json:"children"`

	// LOGICAL_GET
	TableIndex     uint64            `json:"table_index"`
	ReturnedTypes  []duckType        `json:"returned_types"`
	Names          []string          `json:"names"`
	ProjectionIDs  []uint64          `json:"projection_ids"`
	TableFilters   *duckFilterSet    `json:"table_filters"`
	Name           string            `json:"name"` // table function name, "seq_scan" for tables
	FunctionData   *duckScanData     `json:"function_data"`
	ProjectedInput []uint64          `json:"projected_input"`
	ColumnIndexes  []duckColumnIndex `json:"column_indexes"`

	// LOGICAL_PROJECTION, LOGICAL_FILTER, LOGICAL_AGGREGATE_AND_GROUP_BY:
	// decoded from RawExpressions by parseDuckPlan.
	Expressions []*duckExpr `json:"-"`
	// RawExpressions is the "expressions" field as DuckDB wrote it: a list
	// of expressions, or for LOGICAL_EXPRESSION_GET rows of them, which
	// only the operator's type tells apart (parseDuckPlan).
	RawExpressions json.RawMessage `json:"expressions"`
	// LOGICAL_FILTER: when not empty, the operator outputs only these
	// columns of its child.
	ProjectionMap []uint64 `json:"projection_map"`

	// LOGICAL_AGGREGATE_AND_GROUP_BY
	Groups            []*duckExpr       `json:"groups"`
	GroupingSets      [][]uint64        `json:"grouping_sets"`
	GroupingFunctions []json.RawMessage `json:"grouping_functions"`

	// LOGICAL_ORDER_BY, LOGICAL_TOP_N
	Orders []duckOrder `json:"orders"`
	// LOGICAL_ORDER_BY: when not empty, the operator outputs only these
	// columns of its child.
	Projections []uint64 `json:"projections"`
	// LOGICAL_TOP_N
	Limit  *uint64 `json:"limit"`
	Offset *uint64 `json:"offset"`

	// LOGICAL_LIMIT
	LimitVal  *duckLimitVal `json:"limit_val"`
	OffsetVal *duckLimitVal `json:"offset_val"`

	// LOGICAL_EMPTY_RESULT
	ReturnTypes []duckType `json:"return_types"`

	// LOGICAL_COMPARISON_JOIN, LOGICAL_DELIM_JOIN, LOGICAL_ANY_JOIN
	JoinType string `json:"join_type"`
	// Conditions: each compares an expression over the left child with one
	// over the right child (COMPARISON and DELIM joins).
	Conditions []duckJoinCondition `json:"conditions"`
	// When not empty, the join outputs only these columns of that child.
	LeftProjectionMap  []uint64 `json:"left_projection_map"`
	RightProjectionMap []uint64 `json:"right_projection_map"`
	// Predicate: an extra condition DuckDB may attach to comparison joins.
	Predicate *duckExpr `json:"predicate"`
	// LOGICAL_ANY_JOIN: one condition over the left columns then the right.
	Condition *duckExpr `json:"condition"`
	// LOGICAL_DELIM_JOIN: the columns of the delim side whose distinct
	// values LOGICAL_DELIM_GET returns; delim_flipped makes the right child
	// the delim side.
	DuplicateEliminatedColumns []*duckExpr `json:"duplicate_eliminated_columns"`
	DelimFlipped               bool        `json:"delim_flipped"`

	// LOGICAL_DELIM_GET, LOGICAL_CTE_REF: the column types
	ChunkTypes []duckType `json:"chunk_types"`
	// LOGICAL_CTE_REF: the table_index of its LOGICAL_MATERIALIZED_CTE
	CTEIndex *uint64 `json:"cte_index"`

	// LOGICAL_UNION, LOGICAL_EXCEPT, LOGICAL_INTERSECT
	ColumnCount uint64 `json:"column_count"`
	SetopAll    bool   `json:"setop_all"`

	// LOGICAL_EXPRESSION_GET (VALUES lists): the column types and the rows
	// of expressions (decoded from RawExpressions by parseDuckPlan).
	ExprTypes []duckType    `json:"expr_types"`
	ExprRows  [][]*duckExpr `json:"-"`

	// LOGICAL_DISTINCT
	DistinctType    string          `json:"distinct_type"`
	DistinctTargets []*duckExpr     `json:"distinct_targets"`
	OrderBy         json.RawMessage `json:"order_by"`
}

// duckJoinCondition is one condition of a comparison join: left is over the
// left child's columns, right over the right child's.
type duckJoinCondition struct {
	Left       *duckExpr `json:"left"`
	Right      *duckExpr `json:"right"`
	Comparison string    `json:"comparison"`
}

// duckScanData is the bind data of DuckDB's seq_scan table function.
type duckScanData struct {
	Catalog string `json:"catalog"`
	Schema  string `json:"schema"`
	Table   string `json:"table"`
	// read_parquet (producer_files.go)
	Files          []string         `json:"files"`
	Types          []duckType       `json:"types"`
	Names          []string         `json:"names"`
	ParquetOptions *json.RawMessage `json:"parquet_options"`
}

// duckColumnIndex is one column a LOGICAL_GET reads: an index into the
// table's columns (or a virtual column such as the row id).
type duckColumnIndex struct {
	Index        uint64            `json:"index"`
	ChildIndexes []json.RawMessage `json:"child_indexes"`
}

type duckFilterSet struct {
	Filters []struct {
		Key   uint64      `json:"key"` // index of the table column
		Value *duckFilter `json:"value"`
	} `json:"filters"`
}

// duckFilter is a TableFilter pushed into a scan.
type duckFilter struct {
	FilterType     string        `json:"filter_type"`
	ComparisonType string        `json:"comparison_type"`
	Constant       *duckValue    `json:"constant"`
	ChildFilters   []*duckFilter `json:"child_filters"`
	ChildFilter    *duckFilter   `json:"child_filter"`
	Values         []*duckValue  `json:"values"`
	Expr           *duckExpr     `json:"expr"`
}

type duckOrder struct {
	Type       string    `json:"type"`       // ASCENDING, DESCENDING
	NullOrder  string    `json:"null_order"` // NULLS FIRST, NULLS LAST
	Expression *duckExpr `json:"expression"`
}

type duckLimitVal struct {
	Type            string      `json:"type"` // UNSET, CONSTANT_VALUE, EXPRESSION_VALUE, ...
	ConstantInteger json.Number `json:"constant_integer"`
}

// duckType is a DuckDB LogicalType.
type duckType struct {
	ID       string `json:"id"`
	TypeInfo *struct {
		Type  string `json:"type"`
		Width int32  `json:"width"`
		Scale int32  `json:"scale"`
	} `json:"type_info"`
}

func (t duckType) String() string {
	if t.ID == "DECIMAL" && t.TypeInfo != nil {
		return fmt.Sprintf("DECIMAL(%d,%d)", t.TypeInfo.Width, t.TypeInfo.Scale)
	}
	return t.ID
}

// duckValue is a DuckDB Value: its type, null flag and payload (a number, a
// string, a boolean, or an object for HUGEINT/INTERVAL).
type duckValue struct {
	Type   duckType        `json:"type"`
	IsNull bool            `json:"is_null"`
	Value  json.RawMessage `json:"value"`
}

// duckExpr is a bound expression. Which fields are set depends on
// ExpressionClass.
type duckExpr struct {
	ExpressionClass string    `json:"expression_class"`
	Type            string    `json:"type"`
	Alias           string    `json:"alias"`
	ReturnType      *duckType `json:"return_type"`

	// BOUND_REF
	Index *uint64 `json:"index"`
	// BOUND_COLUMN_REF
	Binding *struct {
		TableIndex  uint64 `json:"table_index"`
		ColumnIndex uint64 `json:"column_index"`
	} `json:"binding"`
	// BOUND_CONSTANT
	Value *duckValue `json:"value"`
	// BOUND_FUNCTION, BOUND_AGGREGATE, BOUND_OPERATOR, BOUND_CONJUNCTION
	Children []*duckExpr `json:"children"`
	Name     string      `json:"name"`
	// BOUND_AGGREGATE
	AggregateType string          `json:"aggregate_type"`
	Filter        *duckExpr       `json:"filter"`
	OrderBys      json.RawMessage `json:"order_bys"`
	// BOUND_WINDOW (see producer_window.go)
	Partitions    []*duckExpr     `json:"partitions"`
	Orders        []duckOrder     `json:"orders"`
	Filters       *duckExpr       `json:"filters"`
	IgnoreNulls   bool            `json:"ignore_nulls"`
	Start         string          `json:"start"`
	End           string          `json:"end"`
	StartExpr     *duckExpr       `json:"start_expr"`
	EndExpr       *duckExpr       `json:"end_expr"`
	OffsetExpr    *duckExpr       `json:"offset_expr"`
	DefaultExpr   *duckExpr       `json:"default_expr"`
	ExcludeClause string          `json:"exclude_clause"`
	Distinct      bool            `json:"distinct"`
	ArgOrders     json.RawMessage `json:"arg_orders"`
	// BOUND_COMPARISON
	Left  *duckExpr `json:"left"`
	Right *duckExpr `json:"right"`
	// BOUND_CAST
	Child   *duckExpr `json:"child"`
	TryCast bool      `json:"try_cast"`
	// BOUND_CASE
	CaseChecks []struct {
		When *duckExpr `json:"when_expr"`
		Then *duckExpr `json:"then_expr"`
	} `json:"case_checks"`
	Else *duckExpr `json:"else_expr"`
	// BOUND_BETWEEN
	Input          *duckExpr `json:"input"`
	Lower          *duckExpr `json:"lower"`
	Upper          *duckExpr `json:"upper"`
	LowerInclusive bool      `json:"lower_inclusive"`
	UpperInclusive bool      `json:"upper_inclusive"`
}

// parseDuckPlan decodes json_serialize_plan output.
//
// The document is decoded in one pass, each operator's expressions kept
// raw and decoded after, once its type is known. An operator that decoded
// itself (to read its type first) made every ancestor's decoding read its
// subtree again: on TPC-DS's plans, deep trees of about 46 KB, 11 ms a
// plan on the build machine where one pass takes a few
// (BenchmarkParseDuckPlanFiles).
func parseDuckPlan(text string) (*duckPlanJSON, error) {
	var p duckPlanJSON
	if err := decodeNumbers([]byte(quoteNonFinite(text)), &p); err != nil {
		// A plan shape the producer does not read yet (a field whose JSON
		// type differs from the one declared here): DuckDB runs the query.
		return nil, fmt.Errorf("%w: DuckDB's plan has a shape rigel cannot read yet (%v)", ErrUnsupported, err)
	}
	var walk func(n *duckNode) error
	walk = func(n *duckNode) error {
		if n == nil {
			return nil
		}
		if len(n.RawExpressions) > 0 {
			var err error
			if n.Type == "LOGICAL_EXPRESSION_GET" {
				err = decodeNumbers(n.RawExpressions, &n.ExprRows)
			} else {
				err = decodeNumbers(n.RawExpressions, &n.Expressions)
			}
			if err != nil {
				return fmt.Errorf("%w: DuckDB's plan has a shape rigel cannot read yet (%s expressions: %v)", ErrUnsupported, n.Type, err)
			}
			n.RawExpressions = nil
		}
		for _, c := range n.Children {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	for _, n := range p.Plans {
		if err := walk(n); err != nil {
			return nil, err
		}
	}
	return &p, nil
}

// decodeNumbers decodes JSON with numbers kept as json.Number (see the
// top of this file).
// nonFinite are the tokens json_serialize_plan writes, outside strings,
// for a DOUBLE or FLOAT constant that is not a finite number (not JSON:
// 'nan'::DOUBLE made the whole plan unreadable and the query ran on
// DuckDB).
var nonFinite = []string{"NaN", "Infinity", "-Infinity"}

// quoteNonFinite returns text with each nonFinite token outside JSON
// strings written as a JSON string ("NaN"); the literal reader
// (floatLiteral) parses them back.
func quoteNonFinite(text string) string {
	if !strings.Contains(text, "NaN") && !strings.Contains(text, "Infinity") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 16)
	inString, escaped := false, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		default:
			if tok := nonFiniteAt(text[i:]); tok != "" {
				b.WriteString(`"` + tok + `"`)
				i += len(tok) - 1
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func nonFiniteAt(s string) string {
	for _, tok := range nonFinite {
		if strings.HasPrefix(s, tok) {
			return tok
		}
	}
	return ""
}

func decodeNumbers(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}
