package translate

import (
	"fmt"

	"github.com/substrait-io/substrait-go/v8/plan"

	"github.com/rigel-db/rigel/physical"
)

// temporalOutput describes the plan's result columns that are timestamps,
// times or intervals (Int64 on the device, temporal.go), for the
// physical.Retype at the root that gives them their Arrow types; nil when
// there are none.
func temporalOutput(root plan.Rel) ([]physical.RetypeCol, error) {
	if root == nil {
		return nil, nil
	}
	ts := root.RecordType().Types()
	cols := make([]physical.RetypeCol, len(ts))
	any := false
	for i, t := range ts {
		tt, ok := temporalOf(t)
		if !ok {
			continue
		}
		c := physical.RetypeCol{PerSec: tt.perSec, TZ: tt.tz}
		switch tt.class {
		case tsClass:
			c.Kind = physical.RetypeTimestamp
		case timeClass:
			c.Kind = physical.RetypeTime
		case idayClass:
			c.Kind = physical.RetypeDayTime
		case iyearClass:
			c.Kind = physical.RetypeMonths
		}
		if err := c.Validate(); err != nil {
			return nil, unsupported(fmt.Sprintf("result column %d of type %s: %v", i, t, err))
		}
		cols[i], any = c, true
	}
	if !any {
		return nil, nil
	}
	return cols, nil
}

// withRetype puts the Retype over the finished plan (above its Slice).
func withRetype(n physical.Node, cols []physical.RetypeCol) physical.Node {
	if cols == nil {
		return n
	}
	return &physical.Retype{Input: n, Cols: cols}
}
