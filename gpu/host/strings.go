package host

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
)

// strTab is a string operation evaluated over its argument's dictionary
// (see gpu/strfunc.go): pred[code] for OpStrPred, codes[code] into dict for
// OpStrMap.
type strTab struct {
	pred  []byte
	codes []int32
	dict  *array.String
	row   *rowTab // OpStrRow (eval_strrow.go)
	// match: OpStrPred over a Str value, per row (strcol_strings.go).
	match *gpu.StrMatcher
	// cross: a comparison of two Dict values of different dictionaries,
	// its left codes in the right dictionary's order (gpu.DictOrderMap).
	cross []int64
	// caseCodes: a CASE whose Dict values have different dictionaries
	// (two tables' string columns), per value argument its codes in dict,
	// the dictionaries merged (mergeCaseDicts).
	caseCodes map[int][]int32
}

// mergeCaseDicts makes the table of a CASE whose Dict values come from
// different dictionaries: its result's dictionary is theirs merged
// (gpu.MergeDictionaries), each value's codes mapped into it as the CASE
// picks them (evalCase). It returns the merged dictionary.
func (c *checker) mergeCaseDicts(e *gpu.Expr, argDicts []*array.String) *array.String {
	var values []*array.String
	for i := range e.Args {
		if gpu.IsCaseValue(i, len(e.Args)) {
			values = append(values, argDicts[i])
		}
	}
	merged, _ := gpu.MergeDictionaries(values...)
	t := &strTab{dict: merged, caseCodes: map[int][]int32{}}
	for i, d := range argDicts {
		if gpu.IsCaseValue(i, len(e.Args)) && d != nil {
			t.caseCodes[i] = gpu.DictCodeMap(d, merged)
		}
	}
	if c.tabs == nil {
		c.tabs = map[*gpu.Expr]*strTab{}
	}
	c.tabs[e] = t
	return merged
}


// checkStr type-checks OpStrPred/OpStrMap and builds its table from the
// argument's dictionary; it returns the result's dictionary.
func (c *checker) checkStr(e *gpu.Expr, argDict *array.String) (*array.String, error) {
	if len(e.Args) != 1 {
		return nil, fmt.Errorf("ill-typed expression %s: %s takes 1 argument, got %d", e, e.Op, len(e.Args))
	}
	if e.Args[0].Type.Kind == gpu.Str {
		return nil, c.checkStrRows(e) // strcol_strings.go
	}
	if e.Args[0].Type.Kind != gpu.Dict {
		return nil, fmt.Errorf("ill-typed expression %s: argument is %s, not dict", e, e.Args[0].Type)
	}
	if err := e.Str.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	if t, ok := c.tabs[e]; ok { // a node shared by two expressions
		return t.dict, nil
	}
	t := &strTab{}
	if e.Op == gpu.OpStrPred {
		if e.Type.Kind != gpu.Bool || !e.Str.IsPredicate() {
			return nil, fmt.Errorf("ill-typed expression %s: a string predicate gives bool", e)
		}
		p, err := e.Str.PredicateTable(argDict)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
		t.pred = p
	} else {
		if e.Type.Kind != gpu.Dict || e.Str.IsPredicate() {
			return nil, fmt.Errorf("ill-typed expression %s: a string function gives dict", e)
		}
		codes, dict, err := e.Str.MapTable(argDict)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
		t.codes, t.dict = codes, dict
	}
	if c.tabs == nil {
		c.tabs = map[*gpu.Expr]*strTab{}
	}
	c.tabs[e] = t
	return t.dict, nil
}

// evalStr looks every valid code of x up in e's table.
func evalStr(e *gpu.Expr, b *batch, x *vec) (*vec, error) {
	t := b.tabs[e]
	if t == nil {
		return nil, fmt.Errorf("%s: no table (the expression was not checked)", e)
	}
	if t.match != nil {
		return evalStrRows(t.match, b.n, x), nil
	}
	size := len(t.pred)
	if e.Op == gpu.OpStrMap {
		size = len(t.codes)
	}
	r := &vec{i64: make([]int64, b.n), valid: x.valid}
	for i, code := range x.i64[:b.n] {
		if !x.isValid(i) {
			continue
		}
		if code < 0 || code >= int64(size) {
			return nil, fmt.Errorf("%s: code %d outside its dictionary of %d strings", e, code, size)
		}
		if e.Op == gpu.OpStrPred {
			r.i64[i] = int64(t.pred[code])
		} else {
			r.i64[i] = int64(t.codes[code])
		}
	}
	return r, nil
}

// checkDatePart type-checks OpYear/OpMonth/OpDay.
func checkDatePart(e *gpu.Expr) error {
	if len(e.Args) != 1 || e.Args[0].Type.Kind != gpu.Date32 || e.Type.Kind != gpu.Int64 {
		return fmt.Errorf("ill-typed expression %s: %s takes a date32 and gives int64", e, e.Op)
	}
	return nil
}

// evalDatePart extracts a calendar field of each valid date.
func evalDatePart(e *gpu.Expr, n int, x *vec) *vec {
	r := &vec{i64: make([]int64, n), valid: x.valid}
	for i, d := range x.i64[:n] {
		if !x.isValid(i) {
			continue
		}
		y, m, day := gpu.CivilFromDays(d)
		switch e.Op {
		case gpu.OpYear:
			r.i64[i] = y
		case gpu.OpMonth:
			r.i64[i] = m
		case gpu.OpDay:
			r.i64[i] = day
		}
	}
	return r
}

// crossCodes puts the codes of two Dict values of different dictionaries
// in one order (strTab.cross): the left's mapped, the right's doubled.
func crossCodes(cross []int64, x, y *vec) (*vec, *vec) {
	mx := &vec{i64: make([]int64, len(x.i64)), valid: x.valid}
	for i, c := range x.i64 {
		if x.isValid(i) {
			mx.i64[i] = cross[c]
		}
	}
	my := &vec{i64: make([]int64, len(y.i64)), valid: y.valid}
	for i, c := range y.i64 {
		my.i64[i] = 2 * c
	}
	return mx, my
}
