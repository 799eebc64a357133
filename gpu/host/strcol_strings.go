package host

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rigel-db/rigel/gpu"
)

// Str columns (strings in Arrow layout, gpu/ext_strings.go) on the host:
// the offsets and characters of the uploaded array, and string predicates
// evaluated per row with gpu.StrMatcher, the reference of the CUDA code.

// strVec is the strings of a Str vector: row i is
// chars[offs[r]:offs[r+1]] with r = rows[i], or r = i when rows is nil.
// Slices and gathers share offs and chars (they are never written).
type strVec struct {
	offs  []int32
	chars []byte
	rows  []int32
}

func (s *strVec) value(i int) []byte {
	r := i
	if s.rows != nil {
		r = int(s.rows[i])
	}
	return s.chars[s.offs[r]:s.offs[r+1]]
}

func (s *strVec) slice(lo, hi int) *strVec {
	if s.rows != nil {
		return &strVec{offs: s.offs, chars: s.chars, rows: s.rows[lo:hi]}
	}
	return &strVec{offs: s.offs[lo : hi+1], chars: s.chars}
}

func (s *strVec) gather(idx []int32) *strVec {
	rows := make([]int32, len(idx))
	for j, i := range idx {
		if s.rows != nil {
			rows[j] = s.rows[i]
		} else {
			rows[j] = i
		}
	}
	return &strVec{offs: s.offs, chars: s.chars, rows: rows}
}

var _ gpu.StrUploader = (*Device)(nil)

// UploadStr keeps a utf8 or large_utf8 array as a Str column (see
// gpu.StrUploader). The offsets are rebased (ArrowStrLayout) and the
// characters copied once, so that the column owns its memory.
func (d *Device) UploadStr(ctx context.Context, arr arrow.Array) (gpu.Column, error) {
	if err := d.checkOpen("upload strings"); err != nil {
		return nil, err
	}
	if arr == nil {
		return nil, fmt.Errorf("upload strings: nil array")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, err := gpu.ArrowStrLayout(arr)
	if err != nil {
		return nil, fmt.Errorf("upload strings: %w", err)
	}
	n := l.Len()
	t := gpu.Type{Kind: gpu.Str, Nullable: l.Nulls > 0}
	sv := &strVec{offs: append([]int32(nil), l.Offsets...), chars: append([]byte(nil), l.Chars...)}
	v := &vec{str: sv}
	if l.Valid != nil {
		v.valid = make([]bool, n)
		for i, b := range l.Valid {
			v.valid[i] = b != 0
		}
	}
	d.count(func(s *gpu.Stats) { s.BytesUploaded += deviceBytes(t, n) + int64(len(sv.chars)) })
	return d.newColumn(t, n, v, nil), nil
}

// CharBytes is the size of a Str column's characters (gpu.StrColumn); 0
// for other kinds.
func (c *column) CharBytes() int64 {
	if s := c.data; s != nil && s.str != nil {
		return int64(len(s.str.chars))
	}
	return 0
}

// checkStrRows type-checks OpStrPred over a Str value and compiles its
// matcher; predicates the matcher does not implement are refused (the
// engine never makes a Str column for them).
func (c *checker) checkStrRows(e *gpu.Expr) error {
	if e.Op != gpu.OpStrPred || e.Type.Kind != gpu.Bool {
		return fmt.Errorf("%s over a str value: only string predicates read str columns: %w", e, gpu.ErrUnsupported)
	}
	if _, ok := c.tabs[e]; ok {
		return nil
	}
	m, err := gpu.NewStrMatcher(e.Str)
	if err != nil {
		return fmt.Errorf("%s: %w", e, err)
	}
	if c.tabs == nil {
		c.tabs = map[*gpu.Expr]*strTab{}
	}
	c.tabs[e] = &strTab{match: m}
	return nil
}

// checkStrUse refuses every use of a Str value but a string predicate's
// argument: Str has no codes or numbers to compare, hash or copy.
func checkStrUse(e *gpu.Expr) error {
	if e.Op == gpu.OpStrPred || e.Op == gpu.OpCol {
		return nil
	}
	if e.Type.Kind == gpu.Str {
		return fmt.Errorf("%s gives str: only table columns are str: %w", e, gpu.ErrUnsupported)
	}
	for _, a := range e.Args {
		if a != nil && a.Type.Kind == gpu.Str {
			return fmt.Errorf("%s reads the str value %s: only string predicates read str columns: %w", e, a, gpu.ErrUnsupported)
		}
	}
	return nil
}

// evalStrRows runs the matcher on every valid row; null in, null out.
func evalStrRows(m *gpu.StrMatcher, n int, x *vec) *vec {
	r := &vec{i64: make([]int64, n), valid: x.valid}
	for i := 0; i < n; i++ {
		if x.isValid(i) && m.Match(x.str.value(i)) {
			r.i64[i] = 1
		}
	}
	return r
}

// refuseStr: joins, sorts, gathers and concatenations take no Str column.
func refuseStr(c *column, what string) error {
	if c.typ.Kind == gpu.Str {
		return fmt.Errorf("%s is a str column (strings in Arrow layout are read only by string predicates): %w", what, gpu.ErrUnsupported)
	}
	return nil
}

// downloadStr builds the utf8 array of a Str vector's first n rows.
func downloadStr(v *vec, n int) arrow.Array {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		if !v.isValid(i) {
			b.AppendNull()
			continue
		}
		b.BinaryBuilder.Append(v.str.value(i))
	}
	return b.NewArray()
}
