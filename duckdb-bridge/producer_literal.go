package duckdbbridge

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// literal converts a DuckDB constant into a Substrait literal of exactly
// DuckDB's type. DuckDB serializes decimals as their unscaled integer (a
// number, or {upper, lower} halves beyond 18 digits), dates as days since
// 1970-01-01, timestamps in their stored unit and intervals as
// {months, days, micros}.
func literal(v *duckValue) (*pb.Expression_Literal, colType, error) {
	ct := colType{duck: v.Type, nullable: v.IsNull}
	if v.IsNull {
		t, err := substraitType(colType{duck: v.Type, nullable: true})
		if err != nil {
			return nil, ct, err
		}
		return &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_Null{Null: t}, Nullable: true}, ct, nil
	}
	bad := func(err error) (*pb.Expression_Literal, colType, error) {
		return nil, ct, fmt.Errorf("duckdb plan: constant %s of type %s: %v", string(v.Value), v.Type, err)
	}
	lit := &pb.Expression_Literal{}
	switch v.Type.ID {
	case "BOOLEAN":
		var b bool
		if err := json.Unmarshal(v.Value, &b); err != nil {
			return bad(err)
		}
		lit.LiteralType = &pb.Expression_Literal_Boolean{Boolean: b}
	case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "DATE",
		"TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS", "TIMESTAMP WITH TIME ZONE", "TIME":
		i, err := strconv.ParseInt(string(v.Value), 10, 64)
		if err != nil {
			return bad(err)
		}
		if err := setIntLiteral(lit, v.Type, i); err != nil {
			return bad(err)
		}
	case "HUGEINT":
		u, err := hugeValue(v.Value)
		if err != nil {
			return bad(err)
		}
		if err := setDecimalLiteral(lit, u, 38, 0); err != nil {
			return bad(err)
		}
	case "DECIMAL":
		if v.Type.TypeInfo == nil {
			return bad(fmt.Errorf("no width and scale"))
		}
		u, err := hugeValue(v.Value)
		if err != nil {
			return bad(err)
		}
		if err := setDecimalLiteral(lit, u, v.Type.TypeInfo.Width, v.Type.TypeInfo.Scale); err != nil {
			return bad(err)
		}
	case "FLOAT", "DOUBLE":
		f, err := floatLiteral(v.Value)
		if err != nil {
			return bad(err)
		}
		if v.Type.ID == "FLOAT" {
			lit.LiteralType = &pb.Expression_Literal_Fp32{Fp32: float32(f)}
		} else {
			lit.LiteralType = &pb.Expression_Literal_Fp64{Fp64: f}
		}
	case "VARCHAR":
		var s string
		if err := json.Unmarshal(v.Value, &s); err != nil {
			return bad(err)
		}
		lit.LiteralType = &pb.Expression_Literal_String_{String_: s}
	case "INTERVAL":
		var iv struct {
			Months int32 `json:"months"`
			Days   int32 `json:"days"`
			Micros int64 `json:"micros"`
		}
		if err := json.Unmarshal(v.Value, &iv); err != nil {
			return bad(err)
		}
		secs := iv.Micros / 1_000_000
		if secs > math.MaxInt32 || secs < math.MinInt32 {
			return bad(fmt.Errorf("seconds do not fit Substrait's int32 field"))
		}
		lit.LiteralType = &pb.Expression_Literal_IntervalCompound_{IntervalCompound: &pb.Expression_Literal_IntervalCompound{
			IntervalYearToMonth: &pb.Expression_Literal_IntervalYearToMonth{Years: iv.Months / 12, Months: iv.Months % 12},
			IntervalDayToSecond: &pb.Expression_Literal_IntervalDayToSecond{
				Days:          iv.Days,
				Seconds:       int32(secs),
				Subseconds:    iv.Micros % 1_000_000,
				PrecisionMode: &pb.Expression_Literal_IntervalDayToSecond_Precision{Precision: 6},
			},
		}}
	default:
		if ok, err := unsignedLiteral(lit, v); ok {
			if err != nil {
				return bad(err)
			}
			break
		}
		return nil, ct, unsupported("constant of type %s", v.Type)
	}
	return lit, ct, nil
}

func setIntLiteral(lit *pb.Expression_Literal, t duckType, i int64) error {
	fits := func(lo, hi int64) error {
		if i < lo || i > hi {
			return fmt.Errorf("out of range")
		}
		return nil
	}
	switch t.ID {
	case "TINYINT":
		if err := fits(math.MinInt8, math.MaxInt8); err != nil {
			return err
		}
		lit.LiteralType = &pb.Expression_Literal_I8{I8: int32(i)}
	case "SMALLINT":
		if err := fits(math.MinInt16, math.MaxInt16); err != nil {
			return err
		}
		lit.LiteralType = &pb.Expression_Literal_I16{I16: int32(i)}
	case "INTEGER":
		if err := fits(math.MinInt32, math.MaxInt32); err != nil {
			return err
		}
		lit.LiteralType = &pb.Expression_Literal_I32{I32: int32(i)}
	case "BIGINT":
		lit.LiteralType = &pb.Expression_Literal_I64{I64: i}
	case "DATE":
		if err := fits(math.MinInt32, math.MaxInt32); err != nil {
			return err
		}
		lit.LiteralType = &pb.Expression_Literal_Date{Date: int32(i)}
	case "TIME":
		lit.LiteralType = &pb.Expression_Literal_PrecisionTime_{PrecisionTime: &pb.Expression_Literal_PrecisionTime{Precision: 6, Value: i}}
	case "TIMESTAMP WITH TIME ZONE":
		lit.LiteralType = &pb.Expression_Literal_PrecisionTimestampTz{PrecisionTimestampTz: &pb.Expression_Literal_PrecisionTimestamp{Precision: 6, Value: i}}
	default: // TIMESTAMP, TIMESTAMP_S/MS/NS: the value is in the type's own unit
		lit.LiteralType = &pb.Expression_Literal_PrecisionTimestamp_{PrecisionTimestamp: &pb.Expression_Literal_PrecisionTimestamp{Precision: timestampPrecision(t.ID), Value: i}}
	}
	return nil
}

// hugeValue reads an integer that DuckDB wrote either as a JSON number or as
// a hugeint object {"upper": int64, "lower": uint64}.
func hugeValue(raw json.RawMessage) (*big.Int, error) {
	if len(raw) > 0 && raw[0] == '{' {
		var h struct {
			Upper json.Number `json:"upper"`
			Lower json.Number `json:"lower"`
		}
		if err := json.Unmarshal(raw, &h); err != nil {
			return nil, err
		}
		upper, err := strconv.ParseInt(string(h.Upper), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("hugeint upper half: %v", err)
		}
		lower, err := strconv.ParseUint(string(h.Lower), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("hugeint lower half: %v", err)
		}
		v := new(big.Int).Lsh(big.NewInt(upper), 64)
		return v.Add(v, new(big.Int).SetUint64(lower)), nil
	}
	v, ok := new(big.Int).SetString(string(raw), 10)
	if !ok {
		return nil, fmt.Errorf("not an integer")
	}
	return v, nil
}

// setDecimalLiteral stores an unscaled value as Substrait's 16-byte
// little-endian two's complement decimal literal.
func setDecimalLiteral(lit *pb.Expression_Literal, unscaled *big.Int, width, scale int32) error {
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(width)), nil)
	if new(big.Int).Abs(unscaled).Cmp(limit) >= 0 {
		return fmt.Errorf("unscaled value %s does not fit DECIMAL(%d,%d)", unscaled, width, scale)
	}
	lit.LiteralType = &pb.Expression_Literal_Decimal_{Decimal: &pb.Expression_Literal_Decimal{
		Value: decimalBytes(unscaled), Precision: width, Scale: scale,
	}}
	return nil
}

func decimalBytes(v *big.Int) []byte {
	// Two's complement over 128 bits: add 2^128 to negatives.
	u := new(big.Int).Set(v)
	if u.Sign() < 0 {
		u.Add(u, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	mask := new(big.Int).SetUint64(math.MaxUint64)
	out := make([]byte, 16)
	binary.LittleEndian.PutUint64(out[:8], new(big.Int).And(u, mask).Uint64())
	binary.LittleEndian.PutUint64(out[8:], new(big.Int).Rsh(u, 64).Uint64())
	return out
}

// floatLiteral reads a DOUBLE or FLOAT constant's value: a JSON number,
// or NaN, Infinity or -Infinity as quoteNonFinite wrote them.
func floatLiteral(raw json.RawMessage) (float64, error) {
	text := string(raw)
	if strings.HasPrefix(text, `"`) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
		if nonFiniteAt(s) != s {
			return 0, fmt.Errorf("float constant %s", text)
		}
		text = s
	}
	return strconv.ParseFloat(text, 64)
}
