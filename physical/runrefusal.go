package physical

import "fmt"

// RunRefusal is an operator the device refused while running for the size
// of what it met, where a plan made again can hand that kind of relation
// to DuckDB (translate.Options.OnDuckDB) and keep the rest on the device:
// before, the whole query went to DuckDB and the device's work was lost
// twice over.
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

func (o RefusedOp) String() string {
	switch o {
	case RefusedCross:
		return "a join without equal keys"
	case RefusedSort:
		return "a sort"
	case RefusedWindow:
		return "window functions"
	}
	return fmt.Sprintf("refused operator %d", uint8(o))
}

func (e *RunRefusal) Error() string { return e.Err.Error() }
func (e *RunRefusal) Unwrap() error { return e.Err }
