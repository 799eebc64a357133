package gpu

import (
	"bytes"
	"fmt"
	"strings"
)

// Per-row string predicates over Str columns. StrMatcher is the reference
// of the algorithm the CUDA code generator emits (gpu/cuda/codegen_strrow.go
// follows it step by step): a LIKE pattern is compiled into an anchored
// prefix, middle segments found left to right, and a suffix anchored at the
// end, instead of Like's backtracking, which a GPU thread runs poorly.
//
// Why the greedy search is exact: '%' matches any sequence of code points,
// so the pattern matches when its segments occur in order without overlap,
// the first at the start and the last at the end. Each '_' consumes exactly
// one code point, so a segment matched from a code point boundary ends at a
// boundary that only moves right when its start does: taking the leftmost
// occurrence of each middle segment leaves the most room to the rest. The
// suffix, anchored at the end, is walked backwards and must start at or
// after where the middle ended.
//
// Code points: strings of a utf8 Arrow array are valid UTF-8 (DuckDB
// validates every VARCHAR), so a boundary is a byte that is not a
// continuation byte (10xxxxxx) and a lead byte gives its sequence's length.
// On invalid UTF-8 this may differ from Like, which steps over an invalid
// byte alone.

// LikeAny is the token of '_' in a LikeSeg.
const LikeAny = -1

// LikeSeg is a run of a LIKE pattern without '%': literal bytes (0..255)
// and LikeAny.
type LikeSeg []int16

// LikePlan is a compiled LIKE pattern.
type LikePlan struct {
	// Anchored: the pattern has no '%'; the whole string must match Prefix.
	Anchored bool
	Prefix   LikeSeg
	Middle   []LikeSeg // non-empty segments between '%'s, in order
	Suffix   LikeSeg
	// midLit[k] is Middle[k]'s bytes when it has no '_' and does not start
	// with a continuation byte: then bytes.Index finds its leftmost match,
	// which in valid UTF-8 starts at a code point boundary (nil otherwise).
	midLit [][]byte
}

// withLiterals fills midLit.
func (lp *LikePlan) withLiterals() *LikePlan {
	lp.midLit = make([][]byte, len(lp.Middle))
	for k, m := range lp.Middle {
		b := make([]byte, 0, len(m))
		for _, t := range m {
			if t == LikeAny {
				b = nil
				break
			}
			b = append(b, byte(t))
		}
		if len(b) > 0 && !isCont(b[0]) {
			lp.midLit[k] = b
		}
	}
	return lp
}

// CompileLike splits a LIKE pattern at its '%'s. There is no escape
// character (DuckDB's plain LIKE).
func CompileLike(p string) *LikePlan {
	parts := strings.Split(p, "%")
	seg := func(s string) LikeSeg {
		out := make(LikeSeg, len(s))
		for i := 0; i < len(s); i++ {
			if s[i] == '_' {
				out[i] = LikeAny
			} else {
				out[i] = int16(s[i])
			}
		}
		return out
	}
	if len(parts) == 1 {
		return &LikePlan{Anchored: true, Prefix: seg(p)}
	}
	lp := &LikePlan{Prefix: seg(parts[0]), Suffix: seg(parts[len(parts)-1])}
	for _, m := range parts[1 : len(parts)-1] {
		if m != "" { // '%%' is '%'
			lp.Middle = append(lp.Middle, seg(m))
		}
	}
	return lp.withLiterals()
}

// LikePlanOf is the plan of a LIKE, contains, starts_with or ends_with
// predicate (the last three as literal segments: their '%' and '_' are
// ordinary bytes); ok is false for other kinds.
func LikePlanOf(f *StrFunc) (lp *LikePlan, ok bool) {
	lit := func(s string) LikeSeg {
		out := make(LikeSeg, len(s))
		for i := 0; i < len(s); i++ {
			out[i] = int16(s[i])
		}
		return out
	}
	switch f.Kind {
	case StrLike:
		return CompileLike(f.Pattern), true
	case StrContains:
		lp = &LikePlan{}
		if f.Pattern != "" {
			lp.Middle = []LikeSeg{lit(f.Pattern)}
		}
		return lp.withLiterals(), true
	case StrStartsWith:
		return &LikePlan{Prefix: lit(f.Pattern)}, true
	case StrEndsWith:
		return &LikePlan{Suffix: lit(f.Pattern)}, true
	}
	return nil, false
}

// isCont reports a UTF-8 continuation byte.
func isCont(b byte) bool { return b&0xC0 == 0x80 }

// utf8Width is the length of the sequence lead byte b starts (1 for a byte
// that starts none).
func utf8Width(b byte) int {
	switch {
	case b < 0xC0:
		return 1
	case b < 0xE0:
		return 2
	case b < 0xF0:
		return 3
	}
	return 4
}

// segAt matches seg at byte p of s and returns where it ends, or -1.
func segAt(s []byte, p int, seg LikeSeg) int {
	for _, t := range seg {
		if p >= len(s) {
			return -1
		}
		if t == LikeAny {
			p += min(utf8Width(s[p]), len(s)-p)
			continue
		}
		if s[p] != byte(t) {
			return -1
		}
		p++
	}
	return p
}

// segFind returns the end of seg's leftmost match starting at a code point
// boundary at or after from, or -1.
func segFind(s []byte, from int, seg LikeSeg) int {
	for st := from; st < len(s); st++ {
		if isCont(s[st]) {
			continue
		}
		if e := segAt(s, st, seg); e >= 0 {
			return e
		}
	}
	return -1
}

// segBack matches seg ending at byte end of s, walking backwards, and
// returns where it starts, or -1.
func segBack(s []byte, end int, seg LikeSeg) int {
	p := end
	for k := len(seg) - 1; k >= 0; k-- {
		if p <= 0 {
			return -1
		}
		t := seg[k]
		if t == LikeAny {
			p--
			for p > 0 && isCont(s[p]) {
				p--
			}
			continue
		}
		if s[p-1] != byte(t) {
			return -1
		}
		p--
	}
	return p
}

// Match reports whether s matches the pattern.
func (lp *LikePlan) Match(s []byte) bool {
	pos := segAt(s, 0, lp.Prefix)
	if pos < 0 {
		return false
	}
	if lp.Anchored {
		return pos == len(s)
	}
	for k, m := range lp.Middle {
		if k < len(lp.midLit) && lp.midLit[k] != nil {
			i := bytes.Index(s[pos:], lp.midLit[k])
			if i < 0 {
				return false
			}
			pos += i + len(lp.midLit[k])
			continue
		}
		if pos = segFind(s, pos, m); pos < 0 {
			return false
		}
	}
	q := segBack(s, len(s), lp.Suffix)
	return q >= pos
}

// StrMatcher evaluates one string predicate on strings given as bytes.
type StrMatcher struct {
	f    *StrFunc
	like *LikePlan
	pat  []byte
	set  map[string]struct{} // StrIn
}

// NewStrMatcher compiles f; kinds StrPredOnStr refuses give ErrUnsupported.
func NewStrMatcher(f *StrFunc) (*StrMatcher, error) {
	if !StrPredOnStr(f) {
		return nil, fmt.Errorf("string predicate %s over strings in Arrow layout: %w", f, ErrUnsupported)
	}
	m := &StrMatcher{f: f, pat: []byte(f.Pattern)}
	switch f.Kind {
	case StrLike:
		m.like = CompileLike(f.Pattern)
	case StrIn:
		m.set = make(map[string]struct{}, len(f.List))
		for _, x := range f.List {
			m.set[x] = struct{}{}
		}
	}
	return m, nil
}

// Match evaluates the predicate on s (never null: callers test validity).
func (m *StrMatcher) Match(s []byte) bool {
	switch m.f.Kind {
	case StrLike:
		return m.like.Match(s)
	case StrContains:
		return bytes.Contains(s, m.pat)
	case StrStartsWith:
		return bytes.HasPrefix(s, m.pat)
	case StrEndsWith:
		return bytes.HasSuffix(s, m.pat)
	case StrCompare:
		return CompareHolds(m.f.Op, bytes.Compare(s, m.pat))
	case StrIn:
		_, ok := m.set[string(s)] // the compiler does not copy s here
		return ok
	}
	return false
}
