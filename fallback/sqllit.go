package fallback

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/rigel-db/rigel/internal/sqltext"
	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/expr"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// literal writes a Substrait literal as a DuckDB expression of exactly the
// literal's type: every value carries an explicit CAST or typed prefix, so
// that DuckDB never infers a different type (an INTEGER literal 1 is not
// DuckDB's INTEGER_LITERAL, a string is not a STRING_LITERAL).
func literal(l expr.Literal) (string, error) {
	p, err := substrait.LiteralProto(l)
	if err != nil {
		return "", fmt.Errorf("fallback SQL: %w", err)
	}
	return protoLiteral(p)
}

func protoLiteral(p *proto.Expression_Literal) (string, error) {
	cast := func(v, t string) string { return "CAST(" + v + " AS " + t + ")" }
	switch x := p.GetLiteralType().(type) {
	case *proto.Expression_Literal_Null:
		t, err := protoSQLType(x.Null)
		if err != nil {
			return "", err
		}
		return cast("NULL", t), nil
	case *proto.Expression_Literal_Boolean:
		if x.Boolean {
			return "true", nil
		}
		return "false", nil
	case *proto.Expression_Literal_I8:
		return cast(strconv.Itoa(int(x.I8)), "TINYINT"), nil
	case *proto.Expression_Literal_I16:
		return cast(strconv.Itoa(int(x.I16)), "SMALLINT"), nil
	case *proto.Expression_Literal_I32:
		return cast(strconv.Itoa(int(x.I32)), "INTEGER"), nil
	case *proto.Expression_Literal_I64:
		return cast(strconv.FormatInt(x.I64, 10), "BIGINT"), nil
	case *proto.Expression_Literal_Fp32:
		return cast(floatText(float64(x.Fp32), 32), "FLOAT"), nil
	case *proto.Expression_Literal_Fp64:
		return cast(floatText(x.Fp64, 64), "DOUBLE"), nil
	case *proto.Expression_Literal_String_:
		return cast(sqltext.String(x.String_), "VARCHAR"), nil
	case *proto.Expression_Literal_FixedChar:
		return cast(sqltext.String(x.FixedChar), "VARCHAR"), nil
	case *proto.Expression_Literal_VarChar_:
		return cast(sqltext.String(x.VarChar.GetValue()), "VARCHAR"), nil
	case *proto.Expression_Literal_Binary:
		return blob(x.Binary), nil
	case *proto.Expression_Literal_FixedBinary:
		return blob(x.FixedBinary), nil
	case *proto.Expression_Literal_Uuid:
		if len(x.Uuid) != 16 {
			return "", fmt.Errorf("fallback SQL: uuid literal of %d bytes, want 16", len(x.Uuid))
		}
		h := hex.EncodeToString(x.Uuid)
		return cast(sqltext.String(h[:8]+"-"+h[8:12]+"-"+h[12:16]+"-"+h[16:20]+"-"+h[20:]), "UUID"), nil
	case *proto.Expression_Literal_Date:
		d := time.Unix(int64(x.Date)*86400, 0).UTC()
		return cast(sqltext.String(d.Format("2006-01-02")), "DATE"), nil
	case *proto.Expression_Literal_Time:
		return timeOfDay(x.Time, 6)
	case *proto.Expression_Literal_PrecisionTime_:
		return timeOfDay(x.PrecisionTime.GetValue(), x.PrecisionTime.GetPrecision())
	case *proto.Expression_Literal_Timestamp:
		return timestamp(x.Timestamp, 6, false)
	case *proto.Expression_Literal_TimestampTz:
		return timestamp(x.TimestampTz, 6, true)
	case *proto.Expression_Literal_PrecisionTimestamp_:
		return timestamp(x.PrecisionTimestamp.GetValue(), x.PrecisionTimestamp.GetPrecision(), false)
	case *proto.Expression_Literal_PrecisionTimestampTz:
		return timestamp(x.PrecisionTimestampTz.GetValue(), x.PrecisionTimestampTz.GetPrecision(), true)
	case *proto.Expression_Literal_IntervalYearToMonth_:
		m := int64(x.IntervalYearToMonth.GetYears())*12 + int64(x.IntervalYearToMonth.GetMonths())
		return fmt.Sprintf("to_months(CAST(%d AS INTEGER))", m), nil
	case *proto.Expression_Literal_IntervalDayToSecond_:
		return dayToSecond(x.IntervalDayToSecond)
	case *proto.Expression_Literal_IntervalCompound_:
		ym := x.IntervalCompound.GetIntervalYearToMonth()
		ds, err := dayToSecond(x.IntervalCompound.GetIntervalDayToSecond())
		if err != nil {
			return "", err
		}
		m := int64(ym.GetYears())*12 + int64(ym.GetMonths())
		return fmt.Sprintf("(to_months(CAST(%d AS INTEGER)) + %s)", m, ds), nil
	case *proto.Expression_Literal_Decimal_:
		d := x.Decimal
		if len(d.Value) != 16 {
			return "", fmt.Errorf("fallback SQL: decimal literal of %d bytes, want 16", len(d.Value))
		}
		if d.Scale < 0 || d.Scale > decimal128.MaxScale {
			return "", fmt.Errorf("fallback SQL: decimal literal of scale %d, want 0 to %d", d.Scale, decimal128.MaxScale)
		}
		// Substrait's 16-byte little-endian two's complement unscaled value.
		v := decimal128.New(int64(binary.LittleEndian.Uint64(d.Value[8:])), binary.LittleEndian.Uint64(d.Value[:8]))
		return cast(sqltext.String(v.ToString(d.Scale)), fmt.Sprintf("DECIMAL(%d, %d)", d.Precision, d.Scale)), nil
	case *proto.Expression_Literal_List_:
		vals := make([]string, len(x.List.GetValues()))
		for i, v := range x.List.GetValues() {
			s, err := protoLiteral(v)
			if err != nil {
				return "", err
			}
			vals[i] = s
		}
		return "[" + strings.Join(vals, ", ") + "]", nil
	case *proto.Expression_Literal_EmptyList:
		t, err := protoSQLType(&proto.Type{Kind: &proto.Type_List_{List: x.EmptyList}})
		if err != nil {
			return "", err
		}
		return cast("[]", t), nil
	case *proto.Expression_Literal_Struct_:
		vals := make([]string, len(x.Struct.GetFields()))
		for i, v := range x.Struct.GetFields() {
			s, err := protoLiteral(v)
			if err != nil {
				return "", err
			}
			vals[i] = fmt.Sprintf("f%d := %s", i, s) // field names as sqlType writes them
		}
		return "struct_pack(" + strings.Join(vals, ", ") + ")", nil
	case *proto.Expression_Literal_Map_:
		var keys, vals []string
		for _, kv := range x.Map.GetKeyValues() {
			k, err := protoLiteral(kv.GetKey())
			if err != nil {
				return "", err
			}
			v, err := protoLiteral(kv.GetValue())
			if err != nil {
				return "", err
			}
			keys, vals = append(keys, k), append(vals, v)
		}
		return "map([" + strings.Join(keys, ", ") + "], [" + strings.Join(vals, ", ") + "])", nil
	case *proto.Expression_Literal_EmptyMap:
		t, err := protoSQLType(&proto.Type{Kind: &proto.Type_Map_{Map: x.EmptyMap}})
		if err != nil {
			return "", err
		}
		return cast("map()", t), nil
	}
	return "", fmt.Errorf("fallback SQL: literal %T has no DuckDB form here", p.GetLiteralType())
}

func floatText(v float64, bits int) string {
	switch {
	case math.IsNaN(v):
		return "'nan'"
	case math.IsInf(v, 1):
		return "'inf'"
	case math.IsInf(v, -1):
		return "'-inf'"
	}
	return sqltext.String(strconv.FormatFloat(v, 'g', -1, bits))
}

func blob(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		fmt.Fprintf(&s, `\x%02X`, c)
	}
	return "CAST(" + sqltext.String(s.String()) + " AS BLOB)"
}

// subsecond converts a count of 10^-precision units to whole seconds and
// microseconds, refusing sub-microsecond digits that DuckDB would drop.
func subsecond(v int64, precision int32) (sec, micros int64, err error) {
	if precision < 0 || precision > 9 {
		return 0, 0, fmt.Errorf("fallback SQL: sub-second precision %d", precision)
	}
	unit := int64(math.Pow10(int(precision)))
	sec, frac := v/unit, v%unit
	if frac < 0 {
		sec, frac = sec-1, frac+unit
	}
	if precision > 6 {
		div := int64(math.Pow10(int(precision - 6)))
		if frac%div != 0 {
			return 0, 0, fmt.Errorf("fallback SQL: a time value with digits below microseconds (precision %d)", precision)
		}
		return sec, frac / div, nil
	}
	return sec, frac * int64(math.Pow10(int(6-precision))), nil
}

func timestamp(v int64, precision int32, tz bool) (string, error) {
	sec, us, err := subsecond(v, precision)
	if err != nil {
		return "", err
	}
	s := time.Unix(sec, us*1000).UTC().Format("2006-01-02 15:04:05.000000")
	if tz {
		return "CAST(" + sqltext.String(s+"+00") + " AS TIMESTAMPTZ)", nil
	}
	return "CAST(" + sqltext.String(s) + " AS TIMESTAMP)", nil
}

func timeOfDay(v int64, precision int32) (string, error) {
	sec, us, err := subsecond(v, precision)
	if err != nil {
		return "", err
	}
	if sec < 0 || sec >= 86400 {
		return "", fmt.Errorf("fallback SQL: time of day %d s is outside a day", sec)
	}
	return fmt.Sprintf("CAST('%02d:%02d:%02d.%06d' AS TIME)", sec/3600, sec/60%60, sec%60, us), nil
}

func dayToSecond(d *proto.Expression_Literal_IntervalDayToSecond) (string, error) {
	precision, sub := int32(6), int64(d.GetMicroseconds())
	if _, ok := d.GetPrecisionMode().(*proto.Expression_Literal_IntervalDayToSecond_Precision); ok {
		precision, sub = d.GetPrecision(), d.GetSubseconds()
	}
	sec, us, err := subsecond(sub, precision)
	if err != nil {
		return "", err
	}
	micros := int64(d.GetSeconds())*1_000_000 + sec*1_000_000 + us
	return fmt.Sprintf("(to_days(CAST(%d AS INTEGER)) + to_microseconds(CAST(%d AS BIGINT)))", d.GetDays(), micros), nil
}
