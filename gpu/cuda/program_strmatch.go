package cuda

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/rigel-db/rigel/gpu"
)

// A string predicate over strings in Arrow layout on the precompiled path.
// The generated code specialises each LIKE, comparison or IN list to its
// constant (codegen_strrow.go); the interpreter instead reads the constant
// as data: the matcher, a list of 16-bit words in the program's constants,
// which program.cu's pg_str_match walks with the same steps (gpu.LikePlan's
// anchored prefix, middle segments found left to right, suffix walked back
// from the end; a bytewise comparison; equality with each listed string).
//
// Words: the kind (strMatchLike, strMatchCompare, strMatchIn), then
//   - like: anchored, the prefix, the number of middle segments, each
//     segment, the suffix;
//   - compare: the comparison (PI_CMP's flag: 0 =, 1 <>, 2 <, 3 <=, 4 >,
//     5 >=), the constant;
//   - in: the number of strings, each string;
//
// where a segment or a string is its length then one word a token: a byte
// (0..255), or strMatchAny for LIKE's '_'.
const (
	strMatchLike = iota
	strMatchCompare
	strMatchIn

	strMatchAny = 0x100
)

// strMatchCmpFlags are PI_CMP's flags, the comparisons a compare matcher
// takes.
var strMatchCmpFlags = map[gpu.Op]uint16{gpu.OpEq: 0, gpu.OpNe: 1, gpu.OpLt: 2, gpu.OpLe: 3, gpu.OpGt: 4, gpu.OpGe: 5}

// encodeStrMatch writes f's matcher words.
func encodeStrMatch(f *gpu.StrFunc) ([]uint16, error) {
	if !gpu.StrPredOnStr(f) {
		return nil, fmt.Errorf("string predicate %s over strings in Arrow layout: %w", f, gpu.ErrUnsupported)
	}
	var w []uint16
	bytesOf := func(s string) {
		w = append(w, uint16(len(s)))
		for i := 0; i < len(s); i++ {
			w = append(w, uint16(s[i]))
		}
	}
	seg := func(s gpu.LikeSeg) {
		w = append(w, uint16(len(s)))
		for _, t := range s {
			if t == gpu.LikeAny {
				w = append(w, strMatchAny)
			} else {
				w = append(w, uint16(t))
			}
		}
	}
	if lp, ok := gpu.LikePlanOf(f); ok {
		anchored := uint16(0)
		if lp.Anchored {
			anchored = 1
		}
		w = append(w, strMatchLike, anchored)
		seg(lp.Prefix)
		w = append(w, uint16(len(lp.Middle)))
		for _, m := range lp.Middle {
			seg(m)
		}
		seg(lp.Suffix)
		return w, nil
	}
	switch f.Kind {
	case gpu.StrCompare:
		fl, ok := strMatchCmpFlags[f.Op]
		if !ok {
			return nil, fmt.Errorf("string comparison %s: %w", f.Op, gpu.ErrUnsupported)
		}
		w = append(w, strMatchCompare, fl)
		bytesOf(f.Pattern)
		return w, nil
	case gpu.StrIn:
		w = append(w, strMatchIn, uint16(len(f.List)))
		for _, x := range f.List {
			bytesOf(x)
		}
		return w, nil
	}
	return nil, fmt.Errorf("string predicate %s over strings in Arrow layout: %w", f, gpu.ErrUnsupported)
}

// strMatchConsts packs matcher words into program constants (16 bytes each,
// little-endian, as the device reads them).
func strMatchConsts(w []uint16) [][2]uint64 {
	b := make([]byte, (2*len(w)+15)/16*16)
	for i, x := range w {
		binary.LittleEndian.PutUint16(b[2*i:], x)
	}
	out := make([][2]uint64, len(b)/16)
	for i := range out {
		out[i] = [2]uint64{binary.LittleEndian.Uint64(b[16*i:]), binary.LittleEndian.Uint64(b[16*i+8:])}
	}
	return out
}

// strMatchWords is the Go reading of matcher words (the program checker's
// PI_STRMATCH): it rebuilds the predicate the words describe and tests s
// with gpu's reference (gpu.LikePlan.Match, bytes.Compare, equality), so
// that a word the encoder got wrong gives another answer than
// gpu.StrMatcher on the same pipeline.
func strMatchWords(w []uint16, s []byte) (bool, error) {
	at := 0
	next := func() (uint16, error) {
		if at >= len(w) {
			return 0, fmt.Errorf("string matcher: %d words read past its end", at)
		}
		at++
		return w[at-1], nil
	}
	segOf := func() (gpu.LikeSeg, error) {
		n, err := next()
		if err != nil {
			return nil, err
		}
		out := make(gpu.LikeSeg, n)
		for i := range out {
			t, err := next()
			if err != nil {
				return nil, err
			}
			if t == strMatchAny {
				out[i] = gpu.LikeAny
			} else {
				out[i] = int16(t)
			}
		}
		return out, nil
	}
	bytesOf := func() ([]byte, error) {
		sg, err := segOf()
		if err != nil {
			return nil, err
		}
		b := make([]byte, len(sg))
		for i, t := range sg {
			if t < 0 || t > 255 {
				return nil, fmt.Errorf("string matcher: token %d in a string", t)
			}
			b[i] = byte(t)
		}
		return b, nil
	}
	kind, err := next()
	if err != nil {
		return false, err
	}
	switch kind {
	case strMatchLike:
		anchored, err := next()
		if err != nil {
			return false, err
		}
		lp := &gpu.LikePlan{Anchored: anchored == 1}
		if lp.Prefix, err = segOf(); err != nil {
			return false, err
		}
		n, err := next()
		if err != nil {
			return false, err
		}
		for ; n > 0; n-- {
			m, err := segOf()
			if err != nil {
				return false, err
			}
			lp.Middle = append(lp.Middle, m)
		}
		if lp.Suffix, err = segOf(); err != nil {
			return false, err
		}
		return lp.Match(s), nil
	case strMatchCompare:
		fl, err := next()
		if err != nil {
			return false, err
		}
		p, err := bytesOf()
		if err != nil {
			return false, err
		}
		if fl > 5 {
			return false, fmt.Errorf("string matcher: comparison %d", fl)
		}
		c := bytes.Compare(s, p)
		return []bool{c == 0, c != 0, c < 0, c <= 0, c > 0, c >= 0}[fl], nil
	case strMatchIn:
		n, err := next()
		if err != nil {
			return false, err
		}
		hit := false
		for ; n > 0; n-- {
			x, err := bytesOf()
			if err != nil {
				return false, err
			}
			hit = hit || bytes.Equal(s, x)
		}
		return hit, nil
	}
	return false, fmt.Errorf("string matcher: kind %d", kind)
}
