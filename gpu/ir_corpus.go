package gpu

// Operations of the producer corpus's DuckDB functions (translate/fn_corpus.go).
// Numbered from 232 so that they never collide with the numeric (64+),
// string (128+) and temporal (192+) operators. The CUDA code generator
// refuses them for now (ErrUnsupported naming the op: the engine runs that
// part of the plan elsewhere).
const (
	// OpMakeDate: Args = [year, month, day Int64]: the Date32 of that day
	// of the proleptic Gregorian calendar (astronomical years: year 0 is
	// 1 BC), DuckDB's make_date; null when an argument is null. ErrDomain
	// when the arguments name no day (month outside 1-12, day outside the
	// month) or a day outside DuckDB's DATE range, 5877642-06-25 BC
	// (year -5877641) to 5881580-07-10.
	OpMakeDate Op = 232 + iota
)

func init() {
	opNames[OpMakeDate] = "make_date"
}
