package physical

import (
	"errors"

	"github.com/rigel-db/rigel/gpu"
)

// RunRefusal is an operator the device refused while running (mostly for
// the size of what it met), where a plan made again can hand that kind of
// relation to DuckDB (translate.Options.OnDuckDB) and keep the rest on the
// device: before, the whole query went to DuckDB.
type RunRefusal struct {
	Op  RefusedOp
	Err error
}

// RefusedOp is the kind of relation a RunRefusal hands to DuckDB.
type RefusedOp uint8

const (
	// RefusedCross: a join without equal keys past MaxCrossPairs pairs
	// (the device lists the pairs on the host), or whose pairs would not
	// fit the device's memory.
	RefusedCross RefusedOp = iota + 1
	// RefusedSort: a sort of the plan (a SortRel) the device refused
	// (the CUDA sort takes at most gpu.MaxSortRows rows).
	RefusedSort
	// RefusedWindow: window functions (a ProjectRel with them) the device
	// refused: their sort, a sliding min or max over frames past 2^20 rows.
	RefusedWindow
)

func (e *RunRefusal) Error() string { return e.Err.Error() }
func (e *RunRefusal) Unwrap() error { return e.Err }

// refused is err as a RunRefusal of op where the device refused the work
// (gpu.ErrUnsupported), else err.
func refused(op RefusedOp, err error) error {
	if errors.Is(err, gpu.ErrUnsupported) {
		return &RunRefusal{Op: op, Err: err}
	}
	return err
}
