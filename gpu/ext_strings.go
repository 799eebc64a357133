package gpu

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Strings in Arrow layout (Kind Str). Upload dictionary-encodes every string
// column, which is right for low-cardinality columns (a predicate runs once
// per distinct value, a key is a code) and wrong for columns of millions of
// distinct strings (o_comment, c_name, s_address): the dictionary build
// costs a hash per row on the host and the dictionary is as large as the
// column. Such columns go to the device as offsets and characters instead
// (UploadStr), and travel through the engine as strings:
//
//   - Run and RunProbe read a Str input in two ways only: as Args[0] of an
//     OpStrPred whose StrFunc StrPredOnStr accepts (the predicate runs per
//     row on the bytes), and as a projection that is exactly that OpCol
//     (the output column is Str, holding the same strings). Under
//     SinkAggregate such a projection may be a group key (groups are equal
//     bytes; nulls form one group) but not an aggregate's argument.
//   - Sort takes Str columns as payload and as keys: bytewise order
//     (unsigned bytes, a prefix before its extensions: Go's bytes.Compare),
//     which is also the order of a Dict column's codes.
//   - Gather and Download take them; Download gives utf8.
//   - Concat takes them; a device may refuse (ErrUnsupported) parts whose
//     strings do not come from the same upload.
//   - Join keys (HashJoin, RunProbe, ProbeCounts) refuse them, as does any
//     other expression over a Str value (CheckStrUses).
//
// How a device holds a Str column that is not an upload (a gathered,
// sorted or projected one) is its own affair: it may refer to the
// characters of the upload it came from rather than copy them.
//
// This file is an addition to the Device contract (device.go is unchanged):
// devices that can hold Str columns implement StrUploader, and the engine
// asks for Str only from those.

// StrUploader is implemented by devices that hold strings in Arrow layout.
// UploadStr copies a utf8 or large_utf8 array as a Str column (nullable
// exactly when the array holds a null). The operations that take Str
// columns are listed above.
type StrUploader interface {
	UploadStr(ctx context.Context, arr arrow.Array) (Column, error)
}

// StrColumn is implemented by Str columns: CharBytes is the size of their
// characters buffer on the device (for the column cache's accounting; the
// offsets are Width() bytes a row as for any column).
type StrColumn interface {
	CharBytes() int64
}

// MaxStrChars is the most characters a Str column holds: offsets are int32.
// A larger column stays dictionary-encoded (the engine checks before it
// asks for Str; UploadStr refuses it).
const MaxStrChars = math.MaxInt32

// StrLayout is a string array in device layout on the host: Offsets has
// Len+1 entries starting at 0, Chars the bytes between the first and the
// last offset, Valid one byte per row (1 = present), nil when no value is
// null. Offsets and Chars may share memory with the Arrow array: callers
// copy them to the device and keep the array alive until then.
type StrLayout struct {
	Offsets []int32
	Chars   []byte
	Valid   []byte
	Nulls   int
}

// Len is the number of strings.
func (l *StrLayout) Len() int { return len(l.Offsets) - 1 }

// ArrowStrLayout lays out a utf8 or large_utf8 array for a Str column. The
// offsets are rebased to start at 0 (a sliced array starts anywhere); a
// utf8 array already starting at 0 is used without a copy. More than
// MaxStrChars characters is an error naming the column's size and the way
// out (the column stays dictionary-encoded).
func ArrowStrLayout(arr arrow.Array) (*StrLayout, error) {
	n := arr.Len()
	l := &StrLayout{Nulls: arr.NullN()}
	switch a := arr.(type) {
	case *array.String:
		if n == 0 {
			l.Offsets = []int32{0}
			break
		}
		offs := a.ValueOffsets()
		l.Chars = a.ValueBytes()
		if offs[0] == 0 {
			l.Offsets = offs
			break
		}
		base := offs[0]
		l.Offsets = make([]int32, n+1)
		for i, o := range offs {
			l.Offsets[i] = o - base
		}
	case *array.LargeString:
		if n == 0 {
			l.Offsets = []int32{0}
			break
		}
		offs := a.ValueOffsets()
		base := offs[0]
		if size := offs[n] - base; size > MaxStrChars {
			return nil, fmt.Errorf("string column of %d rows holds %d bytes of characters, more than the %d a Str column's int32 offsets reach (keep it dictionary-encoded): %w", n, size, int64(MaxStrChars), ErrUnsupported)
		}
		l.Chars = a.ValueBytes()
		l.Offsets = make([]int32, n+1)
		for i, o := range offs {
			l.Offsets[i] = int32(o - base)
		}
	default:
		return nil, fmt.Errorf("strings in Arrow layout from %s (utf8 or large_utf8 only): %w", arr.DataType(), ErrUnsupported)
	}
	if l.Nulls > 0 {
		l.Valid = make([]byte, n)
		for i := 0; i < n; i++ {
			if arr.IsValid(i) {
				l.Valid[i] = 1
			}
		}
	}
	return l, nil
}

// StrPredOnStr reports whether OpStrPred with f runs per row over a Str
// column (StrMatcher and the devices implement exactly these kinds). The
// engine keeps a column dictionary-encoded when any of its predicates is
// not one of them.
func StrPredOnStr(f *StrFunc) bool {
	if f == nil || f.IsRowFunc() || f.Check() != nil {
		return false
	}
	size := len(f.Pattern)
	for _, s := range f.List {
		size += len(s)
	}
	if size > MaxStrPredBytes {
		return false
	}
	switch f.Kind {
	case StrLike, StrContains, StrStartsWith, StrEndsWith, StrCompare, StrIn:
		return true
	}
	return false
}

// MaxStrPredBytes bounds the constant bytes of a per-row predicate (the
// pattern, or an IN list's strings together): devices compile the
// constants into the kernel's code, which must stay small. A longer one
// keeps its column dictionary-encoded.
const MaxStrPredBytes = 1024

// CheckStrUses refuses a pipeline that uses a Str value other than as the
// argument of a string predicate StrPredOnStr accepts or as a projection
// that is exactly a Str input column (ErrUnsupported); under SinkAggregate
// such a projection must be a group key only. See the list above.
func CheckStrUses(p *Pipeline) error {
	var bad error
	var walk func(e *Expr)
	walk = func(e *Expr) {
		if e == nil || bad != nil {
			return
		}
		if e.Type.Kind == Str && e.Op != OpCol {
			bad = fmt.Errorf("%s gives str: only input columns are str: %w", e, ErrUnsupported)
			return
		}
		for _, a := range e.Args {
			if a == nil || a.Type.Kind != Str {
				continue
			}
			if e.Op != OpStrPred || a.Op != OpCol || len(e.Args) != 1 || !StrPredOnStr(e.Str) {
				bad = fmt.Errorf("%s reads the str value %s: only string predicates read str values: %w", e, a, ErrUnsupported)
				return
			}
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	walk(p.Filter)
	for _, e := range p.Project {
		walk(e)
	}
	if bad != nil || p.Sink != SinkAggregate {
		return bad
	}
	for i, a := range p.Aggs {
		if a.Kind != AggCountStar && a.Arg >= 0 && a.Arg < len(p.Project) && p.Project[a.Arg].Type.Kind == Str {
			return fmt.Errorf("aggregate %d (%s) of the str value %s: strings in Arrow layout are only group keys: %w", i, a.Kind, p.Project[a.Arg], ErrUnsupported)
		}
	}
	return nil
}
