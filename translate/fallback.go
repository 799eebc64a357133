package translate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rigel-db/rigel/fallback"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/physical"
	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// isUnsupported says whether err is a missing feature (the plan is fine,
// rigel's device cannot run it), as opposed to a wrong plan.
func isUnsupported(err error) bool {
	return errors.Is(err, ErrUnsupported) || errors.Is(err, substrait.ErrNotImplemented) || errors.Is(err, gpu.ErrUnsupported)
}

// fallbackRel wraps a relation the device cannot run (cause says why) as a
// physical.Fallback: the relation becomes DuckDB SQL, and each of its inputs
// that the device can run is translated normally and feeds the SQL as a
// registered table. Inputs the device cannot run either (or that end in a
// Fetch, which only runs at the root of a device plan) are written into the
// same SQL, so that adjacent unsupported relations make one subtree. A
// correlated subquery is an expression of the relation that holds it, so
// that whole relation falls back with it.
//
// When the relation has no exact SQL form either, or its result has a
// type the device cannot hold, the error says both, and stays
// ErrUnsupported: the parent relation then tries the same.
func (t *translator) fallbackRel(r plan.Rel, cause error) (*stream, error) {
	if !isUnsupported(cause) {
		return nil, cause
	}
	f := &physical.Fallback{Reason: shortReason(cause)}
	w := &fallback.Writer{Input: func(in plan.Rel) (string, string, error) {
		if _, ok := in.(*plan.CrossRel); ok {
			// A cross product under a relation that falls back (Isthmus
			// writes joins as a filter over crosses, and a filter holding
			// a subquery falls back whole) stays in the SQL: DuckDB turns
			// it and the filter's conditions into joins, where the device
			// would list every pair (TPC-H Q16 at SF0.01: 16M pairs, out of
			// memory).
			return "", "", nil
		}
		s, err := t.rel(in)
		if err != nil {
			if isUnsupported(err) {
				return "", "", nil
			}
			return "", "", err
		}
		if len(s.exprs) == 0 {
			// A table without columns carries no row count to DuckDB: it
			// stays in the SQL.
			return "", "", nil
		}
		n, err := t.materialize(s)
		if err != nil {
			return "", "", err
		}
		if nested, ok := n.(*physical.Fallback); ok {
			// One SQL text rather than a device round trip between two:
			// the input's own SQL, with the views it reads.
			f.Inputs = append(f.Inputs, nested.Inputs...)
			f.InputNames = append(f.InputNames, nested.InputNames...)
			return "", nested.SQL, nil
		}
		return t.addInput(f, n), "", nil
	}}
	w.ArrowFiles = func(r *plan.LocalFileReadRel) (string, error) {
		// The files' node, under a name no other input of this
		// translation has (f's SQL may hold other fallbacks' SQL).
		var one physical.Fallback
		if _, err := arrowFilesInput(&one)(r); err != nil {
			return "", err
		}
		if len(one.Inputs) != 1 {
			return "", fmt.Errorf("LocalFiles read: %d inputs for one read", len(one.Inputs))
		}
		return t.addInput(f, one.Inputs[0]), nil
	}
	q, err := w.Query(r)
	if err != nil {
		if strings.Contains(cause.Error(), err.Error()) {
			return nil, cause // an input's fallback failed on the same thing
		}
		return nil, fmt.Errorf("%w (no DuckDB fallback for it: %v)", cause, err)
	}
	for i, ft := range r.RecordType().Types() {
		gt, err := gpuType(ft)
		if err != nil {
			return nil, fmt.Errorf("%w (a DuckDB fallback would give column %d of a type the device cannot hold: %v)", cause, i, err)
		}
		f.Types = append(f.Types, gt)
	}
	f.SQL = q
	return identity(f), nil
}

// addInput registers n as an input of f under a view name unique in the
// translation: a fallback's SQL goes whole into the SQL of a fallback
// above it, with its views.
func (t *translator) addInput(f *physical.Fallback, n physical.Node) string {
	name := fmt.Sprintf("rigel_input_%d", t.views)
	t.views++
	f.Inputs = append(f.Inputs, n)
	f.InputNames = append(f.InputNames, name)
	return name
}

// shortReason is the first line of an error, cut to a readable length: the
// reason of an unsupported expression quotes the expression, and a
// subquery prints its whole plan.
func shortReason(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	// A subquery's expression text is its Go structure (pointers and
	// all): keep the expression's kind and the verdict only.
	if strings.Contains(s, "%!") {
		i, j := strings.Index(s, " ("), strings.LastIndex(s, "): ")
		if i >= 0 && j > i {
			s = s[:i] + s[j+1:]
		}
	}
	const max = 160
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return s
}
