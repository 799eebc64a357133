package host

import (
	"errors"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rigel-db/rigel/gpu"
)

// Row-wise string functions (gpu.OpStrRow, see gpu/ir_strrow.go): each row's
// arguments are read (strings through their dictionaries), the function is
// applied by gpu's EvalRow, and a string result is coded in a dictionary
// that the checker built beforehand from every input row.

// rowTab is the checked state of one OpStrRow node.
type rowTab struct {
	argDicts []*array.String
	// index: the code of each result string in the node's dictionary
	// (strTab.dict); string results only.
	index map[string]int32
}

func isPlainInt(k gpu.Kind) bool {
	switch k {
	case gpu.Int8, gpu.Int16, gpu.Int32, gpu.Int64:
		return true
	}
	return false
}

// checkStrRow type-checks an OpStrRow and, for a string result, builds its
// dictionary.
func (c *checker) checkStrRow(e *gpu.Expr, argDicts []*array.String) (*array.String, error) {
	f := e.Str
	if !f.IsRowFunc() {
		return nil, fmt.Errorf("ill-typed expression %s: %s without a row-wise string function", e, e.Op)
	}
	isString, err := f.RowArgs(len(e.Args))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	for i, a := range e.Args {
		k := a.Type.Kind
		if isString(i) && k != gpu.Dict {
			return nil, fmt.Errorf("ill-typed expression %s: argument %d is %s, not dict", e, i, a.Type)
		}
		if !isString(i) && !isPlainInt(k) {
			return nil, fmt.Errorf("ill-typed expression %s: argument %d is %s, not an integer", e, i, a.Type)
		}
	}
	switch k := e.Type.Kind; {
	case f.RowResultString():
		if k != gpu.Dict {
			return nil, fmt.Errorf("ill-typed expression %s: %s gives dict, not %s", e, f.RowName(), e.Type)
		}
	case f.RowBool():
		if k != gpu.Bool {
			return nil, fmt.Errorf("ill-typed expression %s: %s gives bool, not %s", e, f.RowName(), e.Type)
		}
	default:
		if !isPlainInt(k) {
			return nil, fmt.Errorf("ill-typed expression %s: %s gives an integer, not %s", e, f.RowName(), e.Type)
		}
	}
	if t, ok := c.tabs[e]; ok { // a node shared by two expressions
		return t.dict, nil
	}
	t := &strTab{row: &rowTab{argDicts: argDicts}}
	if c.tabs == nil {
		c.tabs = map[*gpu.Expr]*strTab{}
	}
	if f.RowResultString() {
		if err := c.rowDictionary(e, t); err != nil {
			return nil, err
		}
	}
	c.tabs[e] = t
	return t.dict, nil
}

// rowDictionary evaluates e on every input row and makes the sorted
// dictionary of its results. A row's error is not raised here: the row may
// be one the filter drops; evaluation raises it for rows it evaluates.
func (c *checker) rowDictionary(e *gpu.Expr, t *strTab) error {
	set := map[string]bool{}
	// A chunk of rows at a time, as a run evaluates them (eval checks the
	// run's ctx at each of them).
	for lo := 0; lo < c.n; lo += chunkRows {
		b := newBatch(c.ctx, c.cols, lo, min(c.n, lo+chunkRows))
		b.tabs = c.tabs
		err := eachRow(e, t.row, b, func(_ int, v gpu.RowValue, err error) error {
			if err == nil && !v.Null {
				set[v.S] = true
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	distinct := make([]string, 0, len(set))
	for s := range set {
		distinct = append(distinct, s)
	}
	sort.Strings(distinct) // bytes order, as every dictionary
	bld := array.NewStringBuilder(memory.DefaultAllocator)
	defer bld.Release()
	t.row.index = make(map[string]int32, len(distinct))
	for i, s := range distinct {
		t.row.index[s] = int32(i)
		bld.Append(s)
	}
	t.dict = bld.NewStringArray()
	return nil
}

// eachRow evaluates e's arguments over b and calls fn with each row's
// result (or its error).
func eachRow(e *gpu.Expr, rt *rowTab, b *batch, fn func(i int, v gpu.RowValue, err error) error) error {
	args := make([]*vec, len(e.Args))
	for k, a := range e.Args {
		v, err := eval(a, b)
		if err != nil {
			return err
		}
		args[k] = v
	}
	row := make([]gpu.RowValue, len(e.Args))
	for i := 0; i < b.n; i++ {
		for k, a := range e.Args {
			x := args[k]
			if !x.isValid(i) {
				row[k] = gpu.RowValue{Null: true}
				continue
			}
			if a.Type.Kind != gpu.Dict {
				row[k] = gpu.RowValue{I: x.i64[i]}
				continue
			}
			code := x.i64[i]
			if a.Op == gpu.OpConst { // a string literal: an index into Str.List
				if code < 0 || code >= int64(len(e.Str.List)) {
					return fmt.Errorf("%s: argument %d: literal %d outside the function's %d strings", e, k, code, len(e.Str.List))
				}
				row[k] = gpu.RowValue{S: e.Str.List[code]}
				continue
			}
			d := rt.argDicts[k]
			if d == nil || code < 0 || code >= int64(d.Len()) {
				return fmt.Errorf("%s: argument %d: code %d outside its dictionary", e, k, code)
			}
			row[k] = gpu.RowValue{S: d.Value(int(code))}
		}
		v, err := e.Str.EvalRow(row)
		if err := fn(i, v, err); err != nil {
			return err
		}
	}
	return nil
}

// evalStrRow evaluates a checked OpStrRow over the rows of b.
func evalStrRow(e *gpu.Expr, b *batch) (*vec, error) {
	t := b.tabs[e]
	if t == nil || t.row == nil {
		return nil, fmt.Errorf("%s: not checked", e)
	}
	r := &vec{i64: make([]int64, b.n), valid: make([]bool, b.n)}
	bd := boundsOf(e.Type)
	err := eachRow(e, t.row, b, func(i int, v gpu.RowValue, err error) error {
		if err != nil {
			if errors.Is(err, gpu.ErrUnsupported) {
				// A refusal reads the same for every call of the function.
				return fmt.Errorf("%s: %w", e.Str.RowName(), err)
			}
			return fmt.Errorf("%s: %w", e, err)
		}
		if v.Null {
			return nil
		}
		r.valid[i] = true
		if e.Type.Kind == gpu.Dict {
			code, ok := t.row.index[v.S]
			if !ok {
				return fmt.Errorf("%s: result %q is not in the dictionary built for it", e, v.S)
			}
			r.i64[i] = int64(code)
			return nil
		}
		if v.I < bd.lo || v.I > bd.hi {
			return overflow(e)
		}
		r.i64[i] = v.I
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}
