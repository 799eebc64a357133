package fallback

import (
	"fmt"
	"strings"

	"github.com/rigel-db/rigel/substrait"

	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// sqlType is the DuckDB type that holds every value of a Substrait type.
// Precision timestamps wider than microseconds have no DuckDB type of that
// precision (TIMESTAMP_NS has no time zone variant), so they are refused
// rather than silently truncated.
func sqlType(t types.Type) (string, error) {
	if t == nil {
		return "", fmt.Errorf("fallback SQL: an expression without a type")
	}
	p, err := substrait.TypeProto(t)
	if err != nil {
		return "", fmt.Errorf("fallback SQL: %w", err)
	}
	return protoSQLType(p)
}

func protoSQLType(p *proto.Type) (string, error) {
	switch k := p.GetKind().(type) {
	case *proto.Type_Bool:
		return "BOOLEAN", nil
	case *proto.Type_I8_:
		return "TINYINT", nil
	case *proto.Type_I16_:
		return "SMALLINT", nil
	case *proto.Type_I32_:
		return "INTEGER", nil
	case *proto.Type_I64_:
		return "BIGINT", nil
	case *proto.Type_Fp32:
		return "FLOAT", nil
	case *proto.Type_Fp64:
		return "DOUBLE", nil
	case *proto.Type_String_, *proto.Type_Varchar, *proto.Type_FixedChar_:
		// DuckDB's CHAR(n) and VARCHAR(n) are plain VARCHAR: lengths are
		// not enforced, and neither does Substrait's runtime.
		return "VARCHAR", nil
	case *proto.Type_Binary_, *proto.Type_FixedBinary_:
		return "BLOB", nil
	case *proto.Type_Date_:
		return "DATE", nil
	case *proto.Type_Time_:
		return "TIME", nil
	case *proto.Type_Timestamp_:
		return "TIMESTAMP", nil
	case *proto.Type_TimestampTz:
		return "TIMESTAMPTZ", nil
	case *proto.Type_PrecisionTimestamp_:
		switch p := k.PrecisionTimestamp.Precision; {
		case p == 0:
			return "TIMESTAMP_S", nil
		case p <= 3:
			return "TIMESTAMP_MS", nil
		case p <= 6:
			return "TIMESTAMP", nil
		case p <= 9:
			return "TIMESTAMP_NS", nil
		}
	case *proto.Type_PrecisionTimestampTz:
		if k.PrecisionTimestampTz.Precision <= 6 {
			return "TIMESTAMPTZ", nil
		}
	case *proto.Type_PrecisionTime_:
		if k.PrecisionTime.Precision <= 6 {
			return "TIME", nil
		}
	case *proto.Type_IntervalYear_, *proto.Type_IntervalDay_, *proto.Type_IntervalCompound_:
		return "INTERVAL", nil
	case *proto.Type_Uuid:
		return "UUID", nil
	case *proto.Type_Decimal_:
		return fmt.Sprintf("DECIMAL(%d, %d)", k.Decimal.Precision, k.Decimal.Scale), nil
	case *proto.Type_List_:
		e, err := protoSQLType(k.List.Type)
		if err != nil {
			return "", err
		}
		return e + "[]", nil
	case *proto.Type_Map_:
		key, err := protoSQLType(k.Map.Key)
		if err != nil {
			return "", err
		}
		val, err := protoSQLType(k.Map.Value)
		if err != nil {
			return "", err
		}
		return "MAP(" + key + ", " + val + ")", nil
	case *proto.Type_Struct_:
		// Substrait structs are positional; DuckDB's need field names.
		fields := make([]string, len(k.Struct.Types))
		for i, ft := range k.Struct.Types {
			s, err := protoSQLType(ft)
			if err != nil {
				return "", err
			}
			fields[i] = fmt.Sprintf("f%d %s", i, s)
		}
		return "STRUCT(" + strings.Join(fields, ", ") + ")", nil
	}
	return "", fmt.Errorf("fallback SQL: type %s has no DuckDB equivalent here", typeName(p))
}

func typeName(p *proto.Type) string {
	s := fmt.Sprintf("%T", p.GetKind())
	return strings.TrimSuffix(strings.TrimPrefix(s, "*substraitpb.Type_"), "_")
}
