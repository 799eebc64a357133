package substrait

// Functions of the producer corpus's DuckDB functions (translate/fn_sign_makedate.go):
// the standard sign of integers, and rigel's own sign of floats (TINYINT,
// 0 for NaN) and make_date (extensions/functions_rigel.yaml). Registered
// from init so that other catalogue additions merge without conflicts.
const (
	FnSign     Func = "sign"
	FnMakeDate Func = "make_date"
)

func init() {
	catalogue["functions_arithmetic"] = append(catalogue["functions_arithmetic"], FnSign)
	// rigel's extension: Resolve looks its URN up whole (it has no
	// io.substrait prefix to trim).
	catalogue[RigelURN] = append(catalogue[RigelURN], FnSign, FnMakeDate)
	// date + integer days (TPC-DS q72: d3.d_date > d1.d_date + 5); its
	// other forms, with intervals, give timestamps, which the devices lack.
	catalogue[RigelURN] = append(catalogue[RigelURN], FnAdd)
}
