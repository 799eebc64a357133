package fallback_test

import (
	"encoding/base64"
	"math/big"
	"strings"
	"testing"
)

// A literal of each Substrait type (and a null of several), projected over
// one row of region by a plan as another producer would send it, gives
// DuckDB's value for the same SQL literal, or an error naming the type.
func TestEveryLiteral(t *testing.T) {
	eng := tpchEngine(t)
	nullable := func(kind, extra string) string {
		return `{"` + kind + `":{` + extra + `"nullability":"NULLABILITY_NULLABLE"}}`
	}
	cases := []struct{ name, lit, typ, sql, refuse string }{
		{"i8", `{"i8":-5}`, nullable("i8", ""), "-5::TINYINT", ""},
		{"i16", `{"i16":300}`, nullable("i16", ""), "300::SMALLINT", ""},
		{"i32", `{"i32":-70000}`, nullable("i32", ""), "-70000::INTEGER", ""},
		{"i64", `{"i64":"9000000000"}`, i64NT, "9000000000::BIGINT", ""},
		{"fp32", `{"fp32":1.5}`, nullable("fp32", ""), "1.5::FLOAT", ""},
		{"fp64", `{"fp64":-2.25}`, nullable("fp64", ""), "-2.25::DOUBLE", ""},
		{"boolean", `{"boolean":true}`, boolT, "true", ""},
		{"string", `{"string":"h\u00e9llo"}`, strNT, "'h\u00e9llo'", ""},
		{"varchar", `{"varChar":{"value":"abc","length":5}}`, nullable("varchar", `"length":5,`), "'abc'", ""},
		{"fixed_char", `{"fixedChar":"ab"}`, nullable("fixedChar", `"length":2,`), "'ab'", ""},
		{"binary", `{"binary":"AQI="}`, nullable("binary", ""), "'\\x01\\x02'::BLOB", ""},
		{"decimal", decimalLit(12345, 10, 2), nullable("decimal", `"precision":10,"scale":2,`), "123.45::DECIMAL(10,2)", ""},
		{"decimal negative, 38 digits", decimalLit(-1, 38, 5), nullable("decimal", `"precision":38,"scale":5,`), "-0.00001::DECIMAL(38,5)", ""},
		{"date", `{"date":18262}`, nullable("date", ""), "DATE '2020-01-01'", ""},
		{"precision_time", `{"precisionTime":{"precision":6,"value":"3723000001"}}`, nullable("precisionTime", `"precision":6,`), "TIME '01:02:03.000001'", ""},
		{"precision_timestamp", `{"precisionTimestamp":{"precision":6,"value":"1577836800123456"}}`, nullable("precisionTimestamp", `"precision":6,`), "TIMESTAMP '2020-01-01 00:00:00.123456'", ""},
		{"precision_timestamp_tz", `{"precisionTimestampTz":{"precision":6,"value":"1577836800000000"}}`, nullable("precisionTimestampTz", `"precision":6,`), "TIMESTAMPTZ '2020-01-01 00:00:00+00'", ""},
		{"interval_year_to_month", `{"intervalYearToMonth":{"years":1,"months":2}}`, nullable("intervalYear", ""), "INTERVAL '1 year 2 months'", ""},
		{"interval_day_to_second", `{"intervalDayToSecond":{"days":3,"seconds":4,"subseconds":"5","precision":6}}`, nullable("intervalDay", `"precision":6,`), "INTERVAL '3 days 4.000005 seconds'", ""},
		{"list", `{"list":{"values":[{"i32":1},{"i32":2}]}}`, `{"list":{"type":{"i32":{"nullability":"NULLABILITY_REQUIRED"}},"nullability":"NULLABILITY_NULLABLE"}}`, "[1, 2]::INTEGER[]", ""},
		{"empty_list", `{"emptyList":{"type":{"i32":{"nullability":"NULLABILITY_REQUIRED"}},"nullability":"NULLABILITY_REQUIRED"}}`, `{"list":{"type":{"i32":{"nullability":"NULLABILITY_REQUIRED"}},"nullability":"NULLABILITY_NULLABLE"}}`, "[]::INTEGER[]", ""},
		{"struct", `{"struct":{"fields":[{"i32":1},{"string":"a"}]}}`, `{"struct":{"types":[{"i32":{"nullability":"NULLABILITY_REQUIRED"}},{"string":{"nullability":"NULLABILITY_REQUIRED"}}],"nullability":"NULLABILITY_NULLABLE"}}`, "{'f0': 1, 'f1': 'a'}", ""}, // Substrait's struct types have no field names: f0, f1 as rigel's writer names them
		{"map", `{"map":{"keyValues":[{"key":{"string":"a"},"value":{"i32":1}}]}}`, `{"map":{"key":{"string":{"nullability":"NULLABILITY_REQUIRED"}},"value":{"i32":{"nullability":"NULLABILITY_REQUIRED"}},"nullability":"NULLABILITY_NULLABLE"}}`, "MAP {'a': 1}", ""},
		{"list of maps", `{"list":{"values":[{"map":{"keyValues":[{"key":{"string":"a"},"value":{"i32":1}}]}}]}}`, `{"list":{"type":{"map":{"key":{"string":{"nullability":"NULLABILITY_REQUIRED"}},"value":{"i32":{"nullability":"NULLABILITY_REQUIRED"}},"nullability":"NULLABILITY_REQUIRED"}},"nullability":"NULLABILITY_NULLABLE"}}`, "[MAP {'a': 1}]", ""},
		{"uuid", `{"uuid":"ABEiM0RVZneImaq7zN3u/w=="}`, nullable("uuid", ""), "UUID '00112233-4455-6677-8899-aabbccddeeff'", ""},
		{"null i32", `{"null":` + nullable("i32", "") + `}`, nullable("i32", ""), "NULL::INTEGER", ""},
		{"null string", `{"null":` + strNT + `}`, strNT, "NULL::VARCHAR", ""},
		{"null decimal", `{"null":` + nullable("decimal", `"precision":12,"scale":3,`) + `}`, nullable("decimal", `"precision":12,"scale":3,`), "NULL::DECIMAL(12,3)", ""},
		{"null date", `{"null":` + nullable("date", "") + `}`, nullable("date", ""), "NULL::DATE", ""},
		{"null timestamp", `{"null":` + nullable("precisionTimestamp", `"precision":6,`) + `}`, nullable("precisionTimestamp", `"precision":6,`), "NULL::TIMESTAMP", ""},
		{"null list", `{"null":{"list":{"type":{"i32":{"nullability":"NULLABILITY_REQUIRED"}},"nullability":"NULLABILITY_NULLABLE"}}}`, `{"list":{"type":{"i32":{"nullability":"NULLABILITY_REQUIRED"}},"nullability":"NULLABILITY_NULLABLE"}}`, "NULL::INTEGER[]", ""},
	}
	var rc []relCase
	for _, c := range cases {
		// The literal is cast-free in the plan: its type is the literal's
		// own; typ is what the output declares (checked by substrait-go).
		_ = c.typ
		rel := `{"project":{"common":{"emit":{"outputMapping":[3]}},"input":{"filter":{"input":` + region() +
			`,"condition":` + call(fnEqual, boolT, fld(0), i64(0)) + `}},"expressions":[{"literal":` + strings.TrimPrefix(c.lit, "") + `}]}}`
		rc = append(rc, relCase{name: "literal " + c.name, rel: rel, names: []string{"v"},
			sql: "SELECT " + c.sql + " FROM region WHERE r_regionkey = 0", refuse: c.refuse})
	}
	runRelCases(t, eng, rc)
}

// decimalLit is a decimal literal: the unscaled value as 16 bytes of
// little-endian two's complement, base64 in protobuf JSON.
func decimalLit(unscaled int64, precision, scale int) string {
	v := new(big.Int).SetInt64(unscaled)
	if v.Sign() < 0 {
		v.Add(v, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	be := v.FillBytes(make([]byte, 16))
	le := make([]byte, 16)
	for i := range be {
		le[i] = be[15-i]
	}
	return `{"decimal":{"value":"` + base64.StdEncoding.EncodeToString(le) + `","precision":` + itoa(precision) + `,"scale":` + itoa(scale) + `}}`
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }
