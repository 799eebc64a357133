package physical

import (
	"fmt"
	"math"

	"github.com/rigel-db/rigel/gpu"
)

// checkRows asks, before an operator whose output size is known in
// advance (a cross join's n x m pairs, a union's sum) builds anything,
// whether rows rows of types can fit; the error wraps gpu.ErrOutOfMemory,
// on which the engine runs the query on DuckDB. A device that bounds its
// memory (gpu.MemoryBudget: the host device) answers itself. For others
// the answer is a lower bound: a cross join's pair lists are built in host
// memory before the device sees them, so a product no device column could
// hold must be refused here, not found by the allocation that fails (or
// kills the process) later: row indexes are 32-bit, and every value takes
// at least 4 bytes of the device's memory.
func (r *run) checkRows(what string, rows int64, types []gpu.Type) error {
	if b, ok := r.x.Dev.(gpu.MemoryBudget); ok {
		return b.CheckRows(what, rows, types)
	}
	if rows > math.MaxInt32 {
		return fmt.Errorf("%s makes %d rows, more than a device column holds (%d): %w", what, rows, math.MaxInt32, gpu.ErrBeyondDevice)
	}
	info := r.x.Dev.Info()
	if asked := rows * 4 * int64(len(types)); info.TotalMemory > 0 && asked > info.TotalMemory {
		return &gpu.OutOfMemory{Device: info.Name, What: what, Asked: asked, InUse: info.TotalMemory - info.FreeMemory, Budget: info.TotalMemory,
			Hint: "a smaller query"}
	}
	return nil
}
