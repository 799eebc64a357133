package duckdbbridge

import "github.com/rigel-db/rigel/substrait"

// urnRigel is rigel's own extension (substrait/extensions/functions_rigel.yaml):
// DuckDB functions with no standard Substrait counterpart of the same
// meaning, declared there with DuckDB's semantics.
const urnRigel = substrait.RigelURN

// rigelScalarRef maps the DuckDB scalar functions that rigel's extension
// declares (no standard variant has these names and types). The
// signature keys are the YAML's variants; a type combination it does not
// declare stays unsupported.
func rigelScalarRef(name string, keys []string) (funcRef, bool) {
	var fn string
	switch {
	case name == "regexp_matches" && keys2(keys, "str", "str"):
		fn = "regexp_matches"
	case (name == "date_trunc" || name == "datetrunc") && (keys2(keys, "str", "date") || keys2(keys, "str", "pts")):
		fn = "date_trunc"
	case (name == "date_diff" || name == "datediff") && (keys2(keys, "str", "date", "date") || keys2(keys, "str", "pts", "pts")):
		fn = "date_diff"
	case name == "strftime" && (keys2(keys, "date", "str") || keys2(keys, "pts", "str")):
		fn = "strftime"
	case name == "+" && (keys2(keys, "date", "icompound") || keys2(keys, "pts", "icompound") || keys2(keys, "date", "i32")):
		fn = "add"
	case name == "-" && (keys2(keys, "date", "icompound") || keys2(keys, "pts", "icompound") || keys2(keys, "date", "date")):
		// timestamp - timestamp: producer_funcs_duckdb.go (an
		// interval_day result cast to DuckDB's INTERVAL).
		fn = "subtract"
	case (name == "ceil" || name == "ceiling" || name == "floor" || name == "round") && keys2(keys, "dec"):
		// DuckDB gives DECIMAL(P,0); the standard variants keep (P,S).
		fn = map[string]string{"ceiling": "ceil"}[name]
		if fn == "" {
			fn = name
		}
	default:
		return funcRef{}, false
	}
	return funcRef{urnRigel, fn + ":" + rigelSig(keys), nil}, true
}

// rigelAggregateRef maps min and max of strings and intervals to rigel's
// extension, and of booleans to the standard bool_and and bool_or (false
// sorts before true: the same values, NULLs skipped, NULL for no row).
func rigelAggregateRef(name, key string) (funcRef, bool) {
	if key == "bool" && (name == "min" || name == "max") {
		return funcRef{urnBoolean, map[string]string{"min": "bool_and", "max": "bool_or"}[name] + ":bool", nil}, true
	}
	if (name == "min" || name == "max") && (key == "str" || key == "icompound") {
		return funcRef{urnRigel, name + ":" + rigelSig([]string{key}), nil}, true
	}
	return funcRef{}, false
}

// rigelSig is the signature key of a variant of rigel's YAML: INTERVAL
// arguments are declared any1 there (substrait-go v8.1.1 cannot parse
// interval_compound in a YAML), whose key is "any".
func rigelSig(keys []string) string {
	sig := ""
	for i, k := range keys {
		if i > 0 {
			sig += "_"
		}
		if k == "icompound" {
			k = "any"
		}
		sig += k
	}
	return sig
}
