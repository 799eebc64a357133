package cuda

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
)

// Two dictionaries' strings meeting in one expression. A Dict code means
// a string only in its own dictionary, and two tables' string columns
// have different ones, known only once the columns are on the device.
// A comparison a CMP b of two such (TPC-DS q19: substr(ca_zip, 1, 5) <>
// substr(s_zip, 1, 5); q24: upper(c_birth_country) <> s_country) is run
// as place(a) CMP place(b), both places in b's dictionary's order
// (gpu.StrOrderIn: 2i for its string i, 2i-1 between strings i-1 and i):
// two int32 table lookups through the string-table machinery
// (codegen_str.go), exact for every operator. A CASE whose values are
// such strings gives codes of their dictionaries merged
// (gpu.MergeDictionaries), each value's code looked up in a table into it
// (gpu.StrCodeIn). The host device maps codes the same way
// (gpu.DictOrderMap; its mergeCaseDicts).

// mixDictionaries returns p, or, when some of mixes (p's comparisons and
// CASEs of Dict values: scanPipeline) meet two different dictionaries over
// cols, a copy of p with each such comparison made one of places and each
// such CASE's values codes in the merged dictionary. The copy is new on
// every call (its string tables depend on the run's dictionaries): its
// source is generated again, which costs tens of microseconds, only for
// such pipelines.
func mixDictionaries(p *gpu.Pipeline, cols []*column, mixes []*gpu.Expr) (*gpu.Pipeline, error) {
	if len(mixes) == 0 {
		return p, nil
	}
	st, err := buildStrTables(p, cols)
	if err != nil {
		return nil, err
	}
	mixed := map[*gpu.Expr]bool{}
	for _, e := range mixes {
		if meetsTwoDictionaries(e, func(a *gpu.Expr) *array.String { return st.dictOf(a, cols) }) {
			mixed[e] = true
		}
	}
	if len(mixed) == 0 {
		return p, nil
	}
	return rewritePipeline(p, func(orig, e *gpu.Expr) (*gpu.Expr, bool) {
		if !mixed[orig] {
			return nil, false
		}
		c := *e
		if e.Op == gpu.OpCase {
			c.Args = codesInMerged(orig, e, cols, st)
			return &c, true
		}
		x, y := e.Args[0], e.Args[1]
		c.Args = []*gpu.Expr{placeIn(x, y), placeIn(y, y)}
		return &c, true
	}), nil
}

// meetsTwoDictionaries reports whether e, a comparison or a CASE of Dict
// values (scanPipeline's dictMixes), compares or picks values of two
// different dictionaries, dictOf giving each argument's (nil for none).
func meetsTwoDictionaries(e *gpu.Expr, dictOf func(*gpu.Expr) *array.String) bool {
	var first *array.String
	for i, a := range e.Args {
		if e.Op == gpu.OpCase && !gpu.IsCaseValue(i, len(e.Args)) {
			continue
		}
		d := dictOf(a)
		if d == nil {
			continue
		}
		if first != nil && !gpu.SameDictionary(first, d) {
			return true
		}
		first = d
	}
	return false
}

// codesInMerged is the arguments of CASE e (orig before its arguments were
// rewritten) with each value that has a dictionary made its code among the
// strings of all values' dictionaries (gpu.StrCodeIn over the values).
func codesInMerged(orig, e *gpu.Expr, cols []*column, st *strTables) []*gpu.Expr {
	var values []*gpu.Expr
	for i, a := range e.Args {
		if gpu.IsCaseValue(i, len(e.Args)) && st.dictOf(orig.Args[i], cols) != nil {
			values = append(values, a)
		}
	}
	args := append([]*gpu.Expr(nil), e.Args...)
	for i, a := range e.Args {
		if !gpu.IsCaseValue(i, len(e.Args)) || st.dictOf(orig.Args[i], cols) == nil {
			continue
		}
		in := append([]*gpu.Expr{a}, values...)
		args[i] = &gpu.Expr{Op: gpu.OpStrMap, Type: e.Type, Args: in, Str: &gpu.StrFunc{Kind: gpu.StrCodeIn}}
	}
	return args
}

// mixDictionariesLeft is mixDictionaries of a left join's pipeline p
// and its condition cond (RunProbeLeft), rewritten together: the
// condition rides along as one more projection.
func mixDictionariesLeft(p *gpu.Pipeline, cond *gpu.Expr, cols []*column) (*gpu.Pipeline, *gpu.Expr, error) {
	both := *p
	if cond != nil {
		both.Project = append(append([]*gpu.Expr(nil), p.Project...), cond)
	}
	q, err := mixDictionaries(&both, cols, scanPipeline(&both).dictMixes)
	if err != nil || q == &both {
		return p, cond, err
	}
	n := len(p.Project)
	out := *q
	out.Project = q.Project[:n:n]
	if cond == nil {
		return &out, nil, nil
	}
	return &out, q.Project[n], nil
}

// placeIn is x's place in y's dictionary's order (gpu.StrOrderIn).
func placeIn(x, y *gpu.Expr) *gpu.Expr {
	t := gpu.Type{Kind: gpu.Int32, Nullable: x.Type.Nullable || y.Type.Nullable}
	return &gpu.Expr{Op: gpu.OpStrMap, Type: t, Args: []*gpu.Expr{x, y}, Str: &gpu.StrFunc{Kind: gpu.StrOrderIn}}
}

func isComparison(op gpu.Op) bool {
	switch op {
	case gpu.OpEq, gpu.OpNe, gpu.OpLt, gpu.OpLe, gpu.OpGt, gpu.OpGe:
		return true
	}
	return false
}

// isPlaceIn reports whether e is a StrOrderIn node (placeIn).
func isPlaceIn(e *gpu.Expr) bool {
	return e.Op == gpu.OpStrMap && e.Str != nil && e.Str.Kind == gpu.StrOrderIn
}

// isCodeIn reports whether e is a StrCodeIn node (codesInMerged).
func isCodeIn(e *gpu.Expr) bool {
	return e.Op == gpu.OpStrMap && e.Str != nil && e.Str.Kind == gpu.StrCodeIn
}

// mergedDict is the dictionary of a StrCodeIn node: its values'
// dictionaries merged, one array for every node over the same ones (a
// CASE's values must share it), kept in st.
func (st *strTables) mergedDict(e *gpu.Expr, cols []*column) *array.String {
	dicts := make([]*array.String, len(e.Args)-1)
	key := ""
	for i, a := range e.Args[1:] {
		dicts[i] = st.dictOf(a, cols)
		key += fmt.Sprintf("%p,", dicts[i])
	}
	if m, ok := st.merged[key]; ok {
		return m
	}
	m, _ := gpu.MergeDictionaries(dicts...)
	if st.merged == nil {
		st.merged = map[string]*array.String{}
	}
	st.merged[key] = m
	return m
}

// placeTable is the int32 table of a StrOrderIn node: the places of from's
// strings in to's order.
func placeTable(from, to *array.String) ([]int32, error) {
	if from == nil || to == nil {
		return nil, fmt.Errorf("placing strings of a dictionary in another: a side has no dictionary")
	}
	if 2*int64(to.Len()) > math.MaxInt32 {
		return nil, fmt.Errorf("placing strings among a dictionary of %d strings (int32 places reach %d): %w", to.Len(), math.MaxInt32/2, gpu.ErrUnsupported)
	}
	places := gpu.DictOrderMap(from, to)
	out := make([]int32, len(places))
	for i, v := range places {
		out[i] = int32(v)
	}
	return out, nil
}
