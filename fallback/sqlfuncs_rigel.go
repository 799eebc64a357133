package fallback

import "github.com/rigel-db/rigel/substrait"

// rigelFuncs writes the scalar functions of rigel's own extension
// (substrait/extensions/functions_rigel.yaml) back as DuckDB SQL. The YAML
// declares each with DuckDB's semantics, so each is the DuckDB function or
// operator it was produced from, of the same arguments. Its aggregates (min
// and max of strings and intervals) share their names with DuckDB's and go
// through aggregateFuncs.
var rigelFuncs = map[string]sqlFunc{
	"regexp_matches": call("regexp_matches"),
	"date_trunc":     call("date_trunc"),
	"date_diff":      call("date_diff"),
	"strftime":       call("strftime"),
	"add":            infix("+"),
	"subtract":       infix("-"),
	// Of decimals, giving DECIMAL(P,0); round halves away from zero.
	"ceil": call("ceil"), "floor": call("floor"), "round": call("round"),
	// sign of a float (TINYINT, 0 for NaN), make_date, and the interval
	// normalization DuckDB compares intervals by.
	"sign": call("sign"), "make_date": call("make_date"), "normalized_interval": call("normalized_interval"),
}

// rigelScalar looks up a function of rigel's extension by its URN, so that a
// standard function of the same name never takes its form.
func rigelScalar(urn, name string) (sqlFunc, bool) {
	if urn != substrait.RigelURN {
		return nil, false
	}
	fn, ok := rigelFuncs[name]
	return fn, ok
}
