package gpu

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// EvalRows evaluates the row-wise string function e (an OpStrRow) over n
// rows whose argument values are Arrow arrays: args[k] holds argument k's
// n values (utf8 for strings, an integer array for integers), or is nil
// where argument k is a constant (read from e as a device reads it: a
// string literal indexes e.Str.List). The result is an Arrow array of
// ArrowType(e.Type); results of more than maxBytes characters in all are
// an ErrHostMemory. A device that cannot run row functions in its kernels
// evaluates them so over its downloaded arguments (gpu/cuda's rowstrings.go).
func EvalRows(e *Expr, n int, args []arrow.Array, maxBytes int64) (arrow.Array, error) {
	if e.Op != OpStrRow || !e.Str.IsRowFunc() || len(args) != len(e.Args) {
		return nil, fmt.Errorf("EvalRows of %s with %d arguments", e, len(args))
	}
	row := make([]RowValue, len(args))
	value := func(k, i int) (RowValue, error) {
		a := e.Args[k]
		if args[k] == nil {
			if a.Op != OpConst {
				return RowValue{}, fmt.Errorf("%s: argument %d is not a constant and has no values", e, k)
			}
			if a.Const.Null {
				return RowValue{Null: true}, nil
			}
			if a.Type.Kind != Dict {
				return RowValue{I: a.Const.I64}, nil
			}
			if a.Const.I64 < 0 || a.Const.I64 >= int64(len(e.Str.List)) {
				return RowValue{}, fmt.Errorf("%s: argument %d: literal %d outside the function's %d strings", e, k, a.Const.I64, len(e.Str.List))
			}
			return RowValue{S: e.Str.List[a.Const.I64]}, nil
		}
		if args[k].Len() != n {
			return RowValue{}, fmt.Errorf("%s: argument %d has %d values, not %d", e, k, args[k].Len(), n)
		}
		if args[k].IsNull(i) {
			return RowValue{Null: true}, nil
		}
		switch x := args[k].(type) {
		case *array.String:
			return RowValue{S: x.Value(i)}, nil
		case *array.Int8:
			return RowValue{I: int64(x.Value(i))}, nil
		case *array.Int16:
			return RowValue{I: int64(x.Value(i))}, nil
		case *array.Int32:
			return RowValue{I: int64(x.Value(i))}, nil
		case *array.Int64:
			return RowValue{I: x.Value(i)}, nil
		}
		return RowValue{}, fmt.Errorf("%s: argument %d of Arrow type %s: %w", e, k, args[k].DataType(), ErrUnsupported)
	}
	b := array.NewBuilder(memory.DefaultAllocator, ArrowType(e.Type))
	defer b.Release()
	b.Reserve(n)
	lo, hi := intRange(e.Type.Kind)
	var chars int64
	for i := 0; i < n; i++ {
		for k := range row {
			v, err := value(k, i)
			if err != nil {
				return nil, err
			}
			row[k] = v
		}
		v, err := e.Str.EvalRow(row)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Str.RowName(), err)
		}
		if v.Null {
			b.AppendNull()
			continue
		}
		switch bb := b.(type) {
		case *array.StringBuilder:
			if chars += int64(len(v.S)); chars > maxBytes {
				return nil, fmt.Errorf("%s's results pass %d bytes over %d rows: %w", e.Str.RowName(), maxBytes, n, ErrHostMemory)
			}
			bb.Append(v.S)
		case *array.BooleanBuilder:
			bb.Append(v.I != 0)
		case *array.Int64Builder:
			bb.Append(v.I)
		case *array.Int32Builder:
			if v.I < lo || v.I > hi {
				return nil, fmt.Errorf("%s gives %d, beyond %s: %w", e.Str.RowName(), v.I, e.Type, ErrOverflow)
			}
			bb.Append(int32(v.I))
		default:
			return nil, fmt.Errorf("%s giving %s: %w", e, e.Type, ErrUnsupported)
		}
	}
	return b.NewArray(), nil
}

// intRange is the range of values of an integer kind (Int32 and Int64;
// others give Int64's).
func intRange(k Kind) (lo, hi int64) {
	if k == Int32 {
		return -1 << 31, 1<<31 - 1
	}
	return -1 << 63, 1<<63 - 1
}
