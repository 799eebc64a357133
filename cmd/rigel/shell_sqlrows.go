package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// sqlTable reads the rows DuckDB returned through database/sql into a
// table. Statements that are not queries (PRAGMA, SHOW, SET, CALL) come this
// way: DuckDB's Arrow interface refuses some of them (PRAGMA), its
// database/sql one takes them all.
func sqlTable(rows *sql.Rows) (*table, error) {
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	t := &table{names: make([]string, len(cts)), types: make([]string, len(cts)), right: make([]bool, len(cts))}
	dbTypes := make([]string, len(cts))
	for c, ct := range cts {
		dbTypes[c] = strings.ToUpper(ct.DatabaseTypeName())
		t.names[c] = ct.Name()
		t.types[c], t.right[c] = sqlTypeName(dbTypes[c])
	}
	var cells [][]string
	var nulls [][]bool
	for rows.Next() {
		vals := make([]any, len(cts))
		ptrs := make([]any, len(cts))
		for c := range vals {
			ptrs[c] = &vals[c]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(cts))
		isNull := make([]bool, len(cts))
		for c, v := range vals {
			row[c], isNull[c] = sqlValueText(v, dbTypes[c])
		}
		cells = append(cells, row)
		nulls = append(nulls, isNull)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	t.nrows = len(cells)
	t.text = func(r, c int) string { return cells[r][c] }
	t.json = func(r, c int) any {
		switch {
		case nulls[r][c]:
			return nil
		case t.right[c]:
			return json.Number(cells[r][c])
		case dbTypes[c] == "BOOLEAN":
			return cells[r][c] == "true"
		}
		return cells[r][c]
	}
	return t, nil
}

// sqlTypeName turns DuckDB's SQL type name into duckbox's, and says whether
// the column holds numbers.
func sqlTypeName(dbType string) (string, bool) {
	names := map[string]string{
		"TINYINT": "int8", "SMALLINT": "int16", "INTEGER": "int32", "BIGINT": "int64", "HUGEINT": "int128",
		"UTINYINT": "uint8", "USMALLINT": "uint16", "UINTEGER": "uint32", "UBIGINT": "uint64", "UHUGEINT": "uint128",
		"FLOAT": "float", "DOUBLE": "double",
	}
	if n, ok := names[dbType]; ok {
		return n, true
	}
	if strings.HasPrefix(dbType, "DECIMAL") {
		return strings.ToLower(strings.ReplaceAll(dbType, " ", "")), true
	}
	return strings.ToLower(dbType), false
}

// sqlValueText renders a value scanned from DuckDB's driver.
func sqlValueText(v any, dbType string) (string, bool) {
	switch x := v.(type) {
	case nil:
		return arrowfmt.Null, true
	case []byte:
		return string(x), false
	case duckdb.Decimal:
		return exactDecimal(x), false
	case float64:
		return floatText(x), false
	case float32:
		return floatText(float64(x)), false
	case time.Time:
		switch dbType {
		case "DATE":
			return x.Format("2006-01-02"), false
		case "TIME":
			return x.Format("15:04:05.999999"), false
		}
		return x.Format("2006-01-02 15:04:05.999999"), false
	}
	return fmt.Sprint(v), false
}

// exactDecimal writes a decimal with all its scale digits, as DuckDB does
// (the driver's String drops trailing zeros).
func exactDecimal(d duckdb.Decimal) string {
	if d.Value == nil {
		return arrowfmt.Null
	}
	digits := d.Value.String()
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	if d.Scale > 0 {
		for len(digits) <= int(d.Scale) {
			digits = "0" + digits
		}
		digits = digits[:len(digits)-int(d.Scale)] + "." + digits[len(digits)-int(d.Scale):]
	}
	if neg {
		digits = "-" + digits
	}
	return digits
}

// floatText writes a float the shortest exact way, and infinities and NaN
// as DuckDB does (inf, -inf, nan).
func floatText(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
