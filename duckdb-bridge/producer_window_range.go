package duckdbbridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// rangeOffset reads the offset of a RANGE frame bound (EXPR_PRECEDING_RANGE
// or EXPR_FOLLOWING_RANGE) for Substrait's Bound.Preceding/Following.
//
// DuckDB's plan does not carry the offset the query wrote but the value
// bound it computes for each row: for ORDER BY key ASC, "c PRECEDING" is
// key - c and "c FOLLOWING" is key + c (under DESC the operators swap),
// with c a constant the optimizer folded and cast to the operator's type
// (1 on a DECIMAL(12,2) key is the DECIMAL(13,2) constant 1.00). When the
// offset does not fit the key's type, DuckDB casts the ORDER BY key itself
// (ORDER BY tinyint RANGE 1000 PRECEDING sorts on CAST(key AS INTEGER)),
// so the bound is always computed in the key's type, and DuckDB fails on
// an overflow there (INTEGER key -2147483648, 1 PRECEDING); rigel's
// fallback SQL writes the same key and offset, which DuckDB binds the same
// way.
//
// Substrait defines a RANGE frame as the rows whose single sort key lies in
// [current_value - lower offset, current_value + upper offset], offsets
// being int64 in the key's own units. That is what DuckDB computes for an
// ascending numeric key and a constant whole-number offset, which is the
// case converted here. Under a descending integer or decimal key SQL's
// PRECEDING means larger values: the window sorts instead on the key
// negated, ascending (descendingRangeKey), whose frame by the same
// offsets holds the same rows.
//
// A DATE or TIMESTAMP key's offsets are written in the key's own unit too
// (rangeTemporalOffset): days for a DATE, microseconds for a TIMESTAMP,
// the units their values count. DuckDB's bound is key - n for an integer
// n over a DATE, and key - i for an INTERVAL i over a TIMESTAMP; an
// INTERVAL over a DATE column makes DuckDB sort on the column cast to
// TIMESTAMP (its midnight), whose bound is the column - i. An interval's
// months have no fixed length, so only intervals of days (24 hours) and
// microseconds are converted. Refused, with the reason:
//   - a descending floating-point key (its NaNs sort first under DESC and
//     last under ASC, so negating does not keep the order);
//   - a descending DATE or TIMESTAMP key, an interval with months, a
//     TIMESTAMP of another unit or with a time zone;
//   - a key of another type (strings, intervals);
//   - an offset that is negative (DuckDB fails at run time) or not a whole
//     number (1.5 PRECEDING on a DECIMAL or DOUBLE key), which int64
//     cannot carry.
//
// Rows whose key is NULL: DuckDB's frame for them is their NULL peers,
// and rigel runs window functions through DuckDB (fallback SQL writes the
// bound back as "c PRECEDING"), so the answer is DuckDB's.
//
// An offset of 0 is returned as is; windowFrame writes it as CurrentRow
// (Substrait's offsets are strictly positive), the same frame in RANGE
// mode: key - 0 starts at the first peer of the current row, as CURRENT ROW
// does.
func rangeOffset(x *duckExpr, orders []duckOrder, preceding bool) (int64, error) {
	if len(orders) != 1 || orders[0].Expression == nil {
		return 0, unsupported("RANGE frame offset with %d ORDER BY keys", len(orders))
	}
	key := orders[0].Expression
	desc := orders[0].Type != "ASCENDING"
	temporal := key.ReturnType != nil && rangeTemporal[key.ReturnType.ID]
	switch {
	case temporal && desc:
		return 0, unsupported("RANGE frame offset under a descending ORDER BY of %s", key.ReturnType.ID)
	case !temporal && (key.ReturnType == nil || !rangeNumeric[key.ReturnType.ID]):
		return 0, unsupported("RANGE frame offset on an ORDER BY key of type %s (Substrait's offsets are whole numbers in the key's unit)", typeName(key.ReturnType))
	case desc && (key.ReturnType.ID == "FLOAT" || key.ReturnType.ID == "DOUBLE"):
		return 0, unsupported("RANGE frame offset under a descending ORDER BY of %s (NaN sorts first there and last ascending, so the key cannot be negated)", key.ReturnType.ID)
	}
	if sameExpr(x, key) {
		return 0, nil // key - 0, which the optimizer folded into key
	}
	op := "+"
	if preceding != desc { // DESC swaps the operators
		op = "-"
	}
	if x == nil || x.ExpressionClass != "BOUND_FUNCTION" || x.Name != op || len(x.Children) != 2 {
		return 0, unsupported("RANGE frame offset that is not key %s constant", op)
	}
	from, c := x.Children[0], x.Children[1]
	if temporal {
		return rangeTemporalOffset(key, from, c, op)
	}
	if !sameExpr(from, key) && !widenedDecimal(key, from) && !widenedDecimal(from, key) {
		return 0, unsupported("RANGE frame offset that is not computed from the ORDER BY key")
	}
	v, ok := wholeConstant(c)
	if !ok {
		return 0, unsupported("RANGE frame offset that is not a non-negative whole number constant")
	}
	return v, nil
}

// rangeTemporal: the ORDER BY key types whose RANGE offsets are counts of
// their unit (rangeTemporalOffset).
var rangeTemporal = map[string]bool{"DATE": true, "TIMESTAMP": true}

// microsPerDay: an INTERVAL's days are 24 hours apart from a DATE or
// TIMESTAMP (no time zone).
const microsPerDay = 86_400_000_000

// rangeTemporalOffset reads the bound from op c (rangeOffset's parse of
// it) over a DATE or TIMESTAMP key: n a whole number of days over a DATE
// key that is from, or c an INTERVAL of days and microseconds over a
// TIMESTAMP key that is from or from cast to TIMESTAMP; the offset in the
// key's unit.
func rangeTemporalOffset(key, from, c *duckExpr, op string) (int64, error) {
	if key.ReturnType.ID == "DATE" {
		v, ok := wholeConstant(c)
		if !sameExpr(from, key) || !ok {
			return 0, unsupported("RANGE frame offset over a DATE key that is not key %s a non-negative whole number of days", op)
		}
		return v, nil
	}
	// A DATE column under an INTERVAL offset: DuckDB sorts on its cast.
	castFromDate := key.ExpressionClass == "BOUND_CAST" && !key.TryCast && key.Child != nil &&
		key.Child.ReturnType != nil && key.Child.ReturnType.ID == "DATE" && sameExpr(from, key.Child)
	if !sameExpr(from, key) && !castFromDate {
		return 0, unsupported("RANGE frame offset that is not computed from the ORDER BY key")
	}
	if c.ExpressionClass != "BOUND_CONSTANT" || c.Value == nil || c.Value.IsNull || c.Value.Type.ID != "INTERVAL" {
		return 0, unsupported("RANGE frame offset over a TIMESTAMP key that is not an interval constant")
	}
	var iv struct {
		Months int64 `json:"months"`
		Days   int64 `json:"days"`
		Micros int64 `json:"micros"`
	}
	if err := json.Unmarshal(c.Value.Value, &iv); err != nil {
		return 0, fmt.Errorf("duckdb plan: RANGE frame offset %s: %w", c.Value.Value, err)
	}
	if iv.Months != 0 {
		return 0, unsupported("RANGE frame offset of an interval with months (a month has no fixed length)")
	}
	if iv.Days < 0 || iv.Micros < 0 || iv.Days > (math.MaxInt64-iv.Micros)/microsPerDay {
		return 0, unsupported("RANGE frame offset of a negative or out of range interval")
	}
	return iv.Days*microsPerDay + iv.Micros, nil
}

// widenedDecimal reports whether x is the decimal y cast to a wider
// DECIMAL of its scale: the same values. DuckDB widens the ORDER BY key so
// where key - offset needs more digits (ORDER BY a DECIMAL(15,2) RANGE 1000
// PRECEDING sorts on CAST(key AS DECIMAL(16,2)) and bounds on key - 1000),
// and the frame is the same over either.
func widenedDecimal(x, y *duckExpr) bool {
	if x == nil || y == nil || x.ExpressionClass != "BOUND_CAST" || x.TryCast || !sameExpr(x.Child, y) {
		return false
	}
	from, to := y.ReturnType, x.ReturnType
	return from != nil && to != nil && from.ID == "DECIMAL" && to.ID == "DECIMAL" && from.TypeInfo != nil && to.TypeInfo != nil &&
		to.TypeInfo.Scale == from.TypeInfo.Scale && to.TypeInfo.Width >= from.TypeInfo.Width
}

// rangeNumeric: the ORDER BY key types whose RANGE offsets are plain
// numbers in the key's units.
var rangeNumeric = map[string]bool{
	"TINYINT": true, "SMALLINT": true, "INTEGER": true, "BIGINT": true, "HUGEINT": true,
	"DECIMAL": true, "FLOAT": true, "DOUBLE": true,
}

func typeName(t *duckType) string {
	if t == nil {
		return "unknown"
	}
	return t.String()
}

// wholeConstant reads a numeric constant whose value is a whole number in
// [0, 2^63): integers, decimals with a zero fraction, floats without one.
func wholeConstant(e *duckExpr) (int64, bool) {
	if e == nil || e.ExpressionClass != "BOUND_CONSTANT" || e.Value == nil || e.Value.IsNull {
		return 0, false
	}
	v := e.Value
	switch v.Type.ID {
	case "TINYINT", "SMALLINT", "INTEGER", "BIGINT":
		i, err := strconv.ParseInt(string(v.Value), 10, 64)
		return i, err == nil && i >= 0
	case "HUGEINT", "DECIMAL":
		u, err := hugeValue(v.Value)
		if err != nil {
			return 0, false
		}
		if v.Type.ID == "DECIMAL" {
			if v.Type.TypeInfo == nil {
				return 0, false
			}
			unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(v.Type.TypeInfo.Scale)), nil)
			var rem big.Int
			u, _ = new(big.Int).QuoRem(u, unit, &rem)
			if rem.Sign() != 0 {
				return 0, false
			}
		}
		if u.Sign() < 0 || !u.IsInt64() {
			return 0, false
		}
		return u.Int64(), true
	case "FLOAT", "DOUBLE":
		f, err := strconv.ParseFloat(string(v.Value), 64)
		if err != nil || f < 0 || f != math.Trunc(f) || f >= 1<<63 {
			return 0, false
		}
		return int64(f), true
	}
	return 0, false
}

// sameExpr reports whether two of DuckDB's bound expressions are the same
// expression: equal JSON but for aliases and query locations, which only
// name and place the text the expression came from.
func sameExpr(a, b *duckExpr) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return false
	}
	return bytes.Equal(stripNames(ja), stripNames(jb))
}

// stripNames drops the "alias" fields of a marshalled duckExpr tree
// (duckExpr does not keep query_location at all).
func stripNames(j []byte) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber() // every digit of 64-bit and 128-bit constants counts
	if dec.Decode(&v) != nil {
		return j
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			delete(x, "alias")
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(v)
	out, err := json.Marshal(v) // map keys are sorted: a canonical form
	if err != nil {
		return j
	}
	return out
}

// descendingRangeKey is the sort field of a window whose RANGE frame has
// offsets under one descending integer or decimal key (rangeOffset): the
// key negated, ascending, nulls where they were. Integers up to INTEGER
// are negated as BIGINT and BIGINT and HUGEINT as DECIMAL(38,0), so that
// no value's negation overflows; decimals as they are.
func (p *producer) descendingRangeKey(o duckOrder, in []colType) (*pb.SortField, error) {
	x, t, err := p.expr(o.Expression, in)
	if err != nil {
		return nil, err
	}
	var neg *pb.Expression
	switch t.duck.ID {
	case "TINYINT", "SMALLINT", "INTEGER":
		wide := colType{duck: duckType{ID: "BIGINT"}, nullable: t.nullable}
		if x, _, err = p.castTo(x, wide, false); err == nil {
			neg, _, err = p.call(funcRef{urnArithmetic, "negate:i64", optIntArith}, wide, valueArgs(x)...)
		}
	case "BIGINT", "HUGEINT":
		wide := decimalCol(38, 0, t.nullable)
		if x, _, err = p.castTo(x, wide, false); err == nil {
			neg, _, err = p.decimalNegate(x, wide, wide)
		}
	case "DECIMAL":
		neg, _, err = p.decimalNegate(x, t, t)
	default:
		return nil, unsupported("RANGE frame offset under a descending ORDER BY of %s", t.duck)
	}
	if err != nil {
		return nil, err
	}
	dir := pb.SortField_SORT_DIRECTION_ASC_NULLS_LAST
	switch o.NullOrder {
	case "NULLS FIRST":
		dir = pb.SortField_SORT_DIRECTION_ASC_NULLS_FIRST
	case "NULLS LAST":
	default:
		return nil, fmt.Errorf("duckdb plan: sort order %q %q", o.Type, o.NullOrder)
	}
	return &pb.SortField{Expr: neg, SortKind: &pb.SortField_Direction{Direction: dir}}, nil
}

// hasRangeOffset reports whether a window expression's frame has a RANGE
// bound with an offset.
func hasRangeOffset(e *duckExpr) bool {
	for _, b := range []string{e.Start, e.End} {
		if b == "EXPR_PRECEDING_RANGE" || b == "EXPR_FOLLOWING_RANGE" {
			return true
		}
	}
	return false
}
