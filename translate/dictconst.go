package translate

import (
	"fmt"
	"maps"
	"slices"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/physical"
	"github.com/substrait-io/substrait-go/v8/expr"
)

// refuseDictConst refuses a string-valued expression without a string
// column in it (a null string literal projected alone): the device holds a
// string value as a code into a column's dictionary, and such an expression
// has none to take, so it would fail at run time instead of falling back.
func refuseDictConst(e *gpu.Expr) error {
	if e.Type.Kind != gpu.Dict || hasDictCol(e) {
		return nil
	}
	return unsupported(fmt.Sprintf("string expression %s without a string column (no dictionary for its values)", e))
}

func hasDictCol(e *gpu.Expr) bool {
	if e.Op == gpu.OpCol && e.Type.Kind == gpu.Dict {
		return true
	}
	for _, a := range e.Args {
		if hasDictCol(a) {
			return true
		}
	}
	return false
}

// String literals as columns. A device holds a string as a code into its
// column's dictionary, and a literal projected as a column ('store' AS
// channel, as TPC-DS names its UNION's branches, or ROLLUP's NULL
// strings) has no column to take one from. So the projection's literals
// become the columns of a one-row table (physical.Values: each string its
// own dictionary) crossed with the projection's input, and travel from
// there as any string column does (a UNION merges their dictionaries).

// literalColumns returns the string literals among exprs (by index) with
// their types; none when there is none.
func literalColumns(exprs []expr.Expression) map[int]literalColumn {
	var lits map[int]literalColumn
	for i, e := range exprs {
		s, null, ok := stringLiteral(e)
		if !ok {
			continue
		}
		t, err := gpuType(e.GetType())
		if err != nil || t.Kind != gpu.Dict {
			continue
		}
		if lits == nil {
			lits = map[int]literalColumn{}
		}
		lits[i] = literalColumn{text: s, null: null, t: t.WithNullable(t.Nullable || null)}
	}
	return lits
}

type literalColumn struct {
	text string
	null bool
	t    gpu.Type
}

// withLiterals is in crossed with a one-row table of lits' values: base
// are in's columns in the result, at[i] the column of literal i.
func (t *translator) withLiterals(in *stream, lits map[int]literalColumn) (base []*gpu.Expr, at map[int]*gpu.Expr, src physical.Node, err error) {
	n, err := t.materialize(in)
	if err != nil {
		return nil, nil, nil, err
	}
	idx := slices.Sorted(maps.Keys(lits))
	v := &physical.Values{Rows: [][]gpu.Value{{}}, Text: [][]string{{}}}
	for _, i := range idx {
		l := lits[i]
		v.Types = append(v.Types, l.t)
		v.Rows[0] = append(v.Rows[0], gpu.Value{Null: l.null})
		v.Text[0] = append(v.Text[0], l.text)
	}
	j := &physical.Join{Left: n, Right: v, Type: physical.JoinInner}
	nl := len(in.exprs)
	types := j.OutputTypes()
	for c := range nl {
		base = append(base, gpu.Col(c, types[c]))
	}
	at = map[int]*gpu.Expr{}
	for k, i := range idx {
		at[i] = gpu.Col(nl+k, types[nl+k])
	}
	return base, at, j, nil
}
