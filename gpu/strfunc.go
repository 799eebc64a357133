package gpu

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// String functions run on the device through the dictionary: a Dict column
// holds int32 codes into a sorted dictionary that exists only once the
// column is uploaded, so a string predicate or function cannot be folded
// when the plan is translated. Instead every device evaluates the function
// once per dictionary entry, here, in Go shared by all devices (one
// definition of the semantics), and the kernel indexes the resulting table
// by code: a bool per entry for a predicate (OpStrPred), a code into a new
// sorted dictionary for a function returning a string (OpStrMap).
//
// Semantics are DuckDB's: strings compare by bytes; LIKE is case-sensitive,
// '%' matches any sequence of characters (also none) and '_' exactly one
// UTF-8 code point, and DuckDB's plain LIKE has no escape character (a
// backslash is an ordinary character); SUBSTRING counts code points.

// StrFuncKind is the string function of a StrFunc.
type StrFuncKind uint8

const (
	// StrLike: SQL LIKE against Pattern (no escape character).
	StrLike StrFuncKind = iota + 1
	// StrContains, StrStartsWith, StrEndsWith: byte-wise tests against
	// Pattern (an empty Pattern matches every string).
	StrContains
	StrStartsWith
	StrEndsWith
	// StrCompare: string Op Pattern, with Op one of OpEq, OpNe, OpLt, OpLe,
	// OpGt, OpGe, comparing bytes.
	StrCompare
	// StrIn: the string equals one of List.
	StrIn
	// StrSubstring: the code points [From, From+Length) counted from 1, as
	// DuckDB's substring(s, From, Length) (see Substring); to the end when
	// !HasLength. A string function (OpStrMap), not a predicate.
	StrSubstring
	// StrOrderIn: OpStrMap(x, y) giving Int32, x's place among the strings
	// of y's dictionary (DictOrderMap): 2i where x is its string i, 2i-1
	// where x falls between its strings i-1 and i; y's value is not read.
	// A device makes it to compare Dict values of two dictionaries, both
	// sides placed in y's order (gpu/cuda's dictorder.go); translation
	// never does, and the host device does not run it.
	StrOrderIn
	// StrCodeIn: OpStrMap(x, y1, ..., yk) giving Dict, x's code among the
	// strings of y1..yk's dictionaries merged (MergeDictionaries; x is one
	// of them); the ys' values are not read. A device makes it for a CASE
	// whose values have different dictionaries (gpu/cuda's dictorder.go);
	// translation never does.
	StrCodeIn
)

// StrFunc is a string predicate or function with constant parameters.
type StrFunc struct {
	Kind    StrFuncKind
	Pattern string
	Op      Op       // StrCompare
	List    []string // StrIn
	// StrSubstring.
	From, Length int64
	HasLength    bool
}

// IsPredicate reports whether f gives a bool (OpStrPred) rather than a
// string (OpStrMap).
func (f *StrFunc) IsPredicate() bool {
	if f.IsRowFunc() { // strrow_tables.go
		return f.RowBool()
	}
	return f != nil && f.Kind != StrSubstring && f.Kind != StrOrderIn && f.Kind != StrCodeIn
}

func (f *StrFunc) String() string {
	if f == nil {
		return "<no string function>"
	}
	if f.IsRowFunc() {
		return f.rowTableString()
	}
	q := strconv.Quote
	switch f.Kind {
	case StrLike:
		return "like " + q(f.Pattern)
	case StrContains:
		return "contains " + q(f.Pattern)
	case StrStartsWith:
		return "starts_with " + q(f.Pattern)
	case StrEndsWith:
		return "ends_with " + q(f.Pattern)
	case StrCompare:
		return f.Op.String() + " " + q(f.Pattern)
	case StrIn:
		parts := make([]string, len(f.List))
		for i, s := range f.List {
			parts[i] = q(s)
		}
		return "in (" + strings.Join(parts, ", ") + ")"
	case StrSubstring:
		if f.HasLength {
			return fmt.Sprintf("substring from %d for %d", f.From, f.Length)
		}
		return fmt.Sprintf("substring from %d", f.From)
	case StrOrderIn:
		return "order in"
	case StrCodeIn:
		return "code in merged"
	}
	return fmt.Sprintf("strfunc(%d)", f.Kind)
}

// Check reports a malformed StrFunc.
func (f *StrFunc) Check() error {
	if f == nil {
		return fmt.Errorf("string operation without its function (Expr.Str is nil)")
	}
	if f.IsRowFunc() {
		return f.checkRowTable()
	}
	switch f.Kind {
	case StrLike, StrContains, StrStartsWith, StrEndsWith, StrIn, StrSubstring, StrOrderIn, StrCodeIn:
		return nil
	case StrCompare:
		switch f.Op {
		case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
			return nil
		}
		return fmt.Errorf("string comparison with operator %s", f.Op)
	}
	return fmt.Errorf("unknown string function kind %d", f.Kind)
}

// Match evaluates a predicate on one string.
func (f *StrFunc) Match(s string) bool {
	if f.IsRowFunc() { // entries were checked (checkRowEntries)
		v, err := f.rowEntry(s)
		return err == nil && !v.Null && v.I != 0
	}
	switch f.Kind {
	case StrLike:
		return Like(s, f.Pattern)
	case StrContains:
		return strings.Contains(s, f.Pattern)
	case StrStartsWith:
		return strings.HasPrefix(s, f.Pattern)
	case StrEndsWith:
		return strings.HasSuffix(s, f.Pattern)
	case StrCompare:
		return CompareHolds(f.Op, strings.Compare(s, f.Pattern)) // byte order, as the dictionary
	case StrIn:
		for _, x := range f.List {
			if s == x {
				return true
			}
		}
	}
	return false
}

// SQL is f applied to the SQL expression arg in DuckDB's SQL, for the
// functions a host database computes in rigel's place (a scan that loads
// substring(c, 1, 2) instead of c); "" for the others.
func (f *StrFunc) SQL(arg string) string {
	if f == nil || f.IsRowFunc() || f.Kind != StrSubstring {
		return ""
	}
	if f.HasLength {
		return fmt.Sprintf("substring(%s, %d, %d)", arg, f.From, f.Length)
	}
	return fmt.Sprintf("substring(%s, %d)", arg, f.From)
}

// Apply evaluates a string function on one string.
func (f *StrFunc) Apply(s string) string {
	if f.IsRowFunc() { // entries were checked (checkRowEntries)
		v, _ := f.rowEntry(s)
		return v.S
	}
	if f.Kind == StrSubstring {
		return Substring(s, f.From, f.Length, f.HasLength)
	}
	return s
}

// PredicateTable evaluates predicate f on every entry of dict: table[code]
// is 1 where it holds, else 0. The table may be shared: callers only read it.
func (f *StrFunc) PredicateTable(dict *array.String) ([]byte, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	if !f.IsPredicate() {
		return nil, fmt.Errorf("%s is not a predicate", f)
	}
	if e, ok := cachedTable(dict, f); ok {
		return e.pred, nil
	}
	if f.IsRowFunc() {
		if err := f.checkRowEntries(dict); err != nil {
			return nil, err
		}
	}
	out := f.predicateTable(dict)
	storeTable(dict, f, &strTableEntry{pred: out})
	return out, nil
}

func (f *StrFunc) predicateTable(dict *array.String) []byte {
	n := 0
	if dict != nil {
		n = dict.Len()
	}
	out := make([]byte, n)
	if f.Kind == StrIn && n > 64 && len(f.List) > 4 {
		set := make(map[string]bool, len(f.List))
		for _, x := range f.List {
			set[x] = true
		}
		for i := 0; i < n; i++ {
			if set[dict.Value(i)] {
				out[i] = 1
			}
		}
		return out
	}
	for i := 0; i < n; i++ {
		if f.Match(dict.Value(i)) {
			out[i] = 1
		}
	}
	return out
}

// MapTable applies string function f to every entry of dict and returns,
// per code, the code of the result in out, a new dictionary sorted by bytes
// without duplicates (like every Dict dictionary). The caller releases out
// and only reads codes, which may be shared.
func (f *StrFunc) MapTable(dict *array.String) (codes []int32, out *array.String, err error) {
	if err := f.Check(); err != nil {
		return nil, nil, err
	}
	if f.IsPredicate() {
		return nil, nil, fmt.Errorf("%s is a predicate, not a string function", f)
	}
	if f.Kind == StrOrderIn || f.Kind == StrCodeIn {
		return nil, nil, fmt.Errorf("%s maps strings into other dictionaries, not one table of one: %w", f, ErrUnsupported)
	}
	if e, ok := cachedTable(dict, f); ok {
		return e.codes, e.out, nil
	}
	if f.IsRowFunc() {
		if err := f.checkRowEntries(dict); err != nil {
			return nil, nil, err
		}
	}
	codes, out = f.mapTable(dict)
	storeTable(dict, f, &strTableEntry{codes: codes, out: out})
	return codes, out, nil
}

// mapTable applies f to every dictionary entry and numbers the distinct
// results in byte order. Each part of the dictionary (one a core past
// 64 Ki entries) numbers its results as they come, a map lookup each,
// skipped while a run of equal results lasts (a sorted dictionary's
// prefixes come in runs); the parts' distinct results are then merged and
// only those sorted. TPC-H Q22's substring(c_phone, 1, 2) over 1.5 M
// entries gives 25: on the build machine (two cores) 92 ms when all 1.5 M
// results were copied and sorted, 38 ms numbered on one core, 22 on two
// (BenchmarkMapTableSubstring).
func (f *StrFunc) mapTable(dict *array.String) (codes []int32, out *array.String) {
	n := 0
	if dict != nil {
		n = dict.Len()
	}
	codes = make([]int32, n)
	parts := max(1, min(runtime.GOMAXPROCS(0), n/mapTablePart))
	if f.IsRowFunc() { // one goroutine: its regular expressions are not shared
		parts = 1
	}
	local := make([][]string, parts) // each part's distinct results, by its numbers
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		wg.Add(1)
		go func(lo, hi int, distinct *[]string) {
			defer wg.Done()
			index := map[string]int32{}
			last, lastCode := "", int32(-1)
			for i := lo; i < hi; i++ {
				r := f.Apply(dict.Value(i))
				if lastCode >= 0 && r == last {
					codes[i] = lastCode
					continue
				}
				c, ok := index[r]
				if !ok {
					c = int32(len(*distinct))
					index[r] = c
					*distinct = append(*distinct, r)
				}
				codes[i], last, lastCode = c, r, c
			}
		}(p*n/parts, (p+1)*n/parts, &local[p])
	}
	wg.Wait()
	// The distinct results of all parts, in byte order (Go compares
	// strings by bytes), and each part's numbers mapped to their ranks.
	all := slices.Concat(local...)
	slices.Sort(all)
	all = slices.Compact(all)
	rankOf := make(map[string]int32, len(all))
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	for i, r := range all {
		rankOf[r] = int32(i)
		b.Append(r)
	}
	for p := 0; p < parts; p++ {
		rank := make([]int32, len(local[p]))
		for j, r := range local[p] {
			rank[j] = rankOf[r]
		}
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				codes[i] = rank[codes[i]]
			}
		}(p*n/parts, (p+1)*n/parts)
	}
	wg.Wait()
	return codes, b.NewStringArray()
}

// mapTablePart is the fewest dictionary entries worth a goroutine of
// their own in mapTable.
const mapTablePart = 64 << 10

// Like reports whether s matches the SQL LIKE pattern p: '%' matches any
// sequence of code points, '_' exactly one, everything else itself (byte
// for byte). There is no escape character (DuckDB's plain LIKE).
//
// Greedy matching with backtracking to the last '%' only: linear in
// practice and O(len(s)*len(p)) at worst, never exponential.
func Like(s, p string) bool {
	si, pi := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			switch c := p[pi]; c {
			case '%':
				starP, starS = pi, si
				pi++
				continue
			case '_':
				_, w := utf8.DecodeRuneInString(s[si:])
				si += w
				pi++
				continue
			default:
				if s[si] == c {
					si++
					pi++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		// Let the last '%' absorb one more code point and retry.
		_, w := utf8.DecodeRuneInString(s[starS:])
		starS += w
		si, pi = starS, starP+1
	}
	for pi < len(p) && p[pi] == '%' {
		pi++
	}
	return pi == len(p)
}

// Substring is DuckDB's substring(s, from, length) over code points: the
// positions [from, from+length) counted from 1 (from < 0 counts from the
// end: -1 is the last code point; from = 0 is the position before the
// first), or [from+length, from) when length < 0, clipped to the string;
// to the end of the string when !hasLength.
func Substring(s string, from, length int64, hasLength bool) string {
	n := int64(utf8.RuneCountInString(s))
	p := from
	if from < 0 {
		p = n + from + 1
	}
	lo, hi := p, n+1
	if hasLength {
		if length >= 0 {
			hi = satAdd(p, length)
		} else {
			lo, hi = satAdd(p, length), p
		}
	}
	lo = max(lo, 1)
	hi = min(hi, n+1)
	if hi <= lo {
		return ""
	}
	if int64(len(s)) == n { // ASCII: code points are bytes
		return s[lo-1 : hi-1]
	}
	start, end := len(s), len(s)
	pos := int64(1)
	for i := range s { // i walks the code point starts
		if pos == lo {
			start = i
		}
		if pos == hi {
			end = i
			break
		}
		pos++
	}
	return s[start:end]
}

// satAdd adds without wrapping around (positions far outside a string are
// all equivalent).
func satAdd(a, b int64) int64 {
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
		if a > 0 {
			return 1<<63 - 1
		}
		return -1 << 63
	}
	return s
}

// CompareHolds reports whether comparison op (OpEq .. OpGe) holds for c,
// the three-way result (-1, 0, 1) of comparing its left side with its
// right side; false for any other op.
func CompareHolds(op Op, c int) bool {
	switch op {
	case OpEq:
		return c == 0
	case OpNe:
		return c != 0
	case OpLt:
		return c < 0
	case OpLe:
		return c <= 0
	case OpGt:
		return c > 0
	case OpGe:
		return c >= 0
	}
	return false
}
