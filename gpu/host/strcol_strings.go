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
// Projections, sorts, gathers and group keys carry row numbers into the
// upload rather than copies of the strings; only a Concat of parts from
// different uploads and the group keys of an aggregate build new buffers.

// strVec is the strings of a Str vector: row i is
// chars[offs[r]:offs[r+1]] with r = rows[i], or r = lo+i when rows is nil.
// Slices and gathers share offs and chars (they are never written), so
// every vector derived from one upload has the same offs and chars.
type strVec struct {
	offs  []int32
	chars []byte
	rows  []int32
	lo    int
}

// row is the index into offs of row i.
func (s *strVec) row(i int) int {
	if s.rows != nil {
		return int(s.rows[i])
	}
	return s.lo + i
}

func (s *strVec) value(i int) []byte {
	r := s.row(i)
	return s.chars[s.offs[r]:s.offs[r+1]]
}

func (s *strVec) slice(lo, hi int) *strVec {
	if s.rows != nil {
		return &strVec{offs: s.offs, chars: s.chars, rows: s.rows[lo:hi]}
	}
	return &strVec{offs: s.offs, chars: s.chars, lo: s.lo + lo}
}

// emptyStrs is n empty strings (the values under nulls, as newVec's zeros
// are for other kinds).
func emptyStrs(n int) *strVec { return &strVec{offs: make([]int32, n+1)} }

// concatStr appends the first ns[k] rows of every part's strings. Parts
// that share one upload's buffers (a Run's chunks, gathers of one column)
// become one row list into them; otherwise the strings are copied into
// fresh offsets and characters (null rows as empty strings), which must
// fit int32 offsets like an upload's.
func concatStr(parts []*vec, ns []int) (*strVec, error) {
	total := 0
	for k := range parts {
		total += ns[k]
	}
	if len(parts) == 0 {
		return emptyStrs(0), nil
	}
	if sameUpload(parts) {
		rows := make([]int32, 0, total)
		for k, p := range parts {
			for i := 0; i < ns[k]; i++ {
				rows = append(rows, int32(p.str.row(i)))
			}
		}
		return &strVec{offs: parts[0].str.offs, chars: parts[0].str.chars, rows: rows}, nil
	}
	out := &strVec{offs: make([]int32, 1, total+1)}
	for k, p := range parts {
		for i := 0; i < ns[k]; i++ {
			if p.isValid(i) {
				out.chars = append(out.chars, p.str.value(i)...)
			}
			if len(out.chars) > gpu.MaxStrChars {
				return nil, fmt.Errorf("concatenated strings hold more than %d bytes of characters (int32 offsets): %w", int64(gpu.MaxStrChars), gpu.ErrUnsupported)
			}
			out.offs = append(out.offs, int32(len(out.chars)))
		}
	}
	return out, nil
}

// sameUpload reports whether the Str parts share one upload's buffers, so
// that concatStr lists rows into them instead of copying characters.
func sameUpload(parts []*vec) bool {
	for _, p := range parts {
		s0, s := parts[0].str, p.str
		if s0 == nil || s == nil || len(s.offs) == 0 || len(s.offs) != len(s0.offs) || &s.offs[0] != &s0.offs[0] {
			return false
		}
	}
	return true
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
	if err := gpu.CtxErr(ctx); err != nil {
		return nil, err
	}
	l, err := gpu.ArrowStrLayout(arr)
	if err != nil {
		return nil, fmt.Errorf("upload strings: %w", err)
	}
	n := l.Len()
	t := gpu.Type{Kind: gpu.Str, Nullable: l.Nulls > 0}
	// The offsets (the Str row's 4 bytes, one more), the characters and
	// the validity.
	g, err := d.reserve(fmt.Sprintf("upload of %d strings", n), times(int64(n), rowBytes(t))+4+int64(len(l.Chars)))
	if err != nil {
		return nil, err
	}
	defer g.done()
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
// for other kinds. A column derived from an upload (projected, gathered,
// sorted) counts the upload's whole buffer, which it keeps alive.
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
// argument and a bare input column (a projection, perhaps a group key:
// checkAggregate refuses it as an aggregate's argument): there is no
// expression that computes or compares strings in Arrow layout.
func checkStrUse(e *gpu.Expr) error {
	if e.Op == gpu.OpStrPred || e.Op == gpu.OpCol {
		return nil
	}
	if e.Type.Kind == gpu.Str {
		return fmt.Errorf("%s gives str: only input columns are str: %w", e, gpu.ErrUnsupported)
	}
	for _, a := range e.Args {
		if a != nil && a.Type.Kind == gpu.Str {
			return fmt.Errorf("%s reads the str value %s: only string predicates read str values: %w", e, a, gpu.ErrUnsupported)
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

// downloadStr builds the utf8 array of a Str vector's first n rows (of an
// upload or of rows into one, or of fresh buffers: value reads them all).
func downloadStr(ctx context.Context, v *vec, n int) (arrow.Array, error) {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(n)
	err := inRanges(ctx, n, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			if !v.isValid(i) {
				b.AppendNull()
				continue
			}
			b.BinaryBuilder.Append(v.str.value(i))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b.NewArray(), nil
}
