package cuda

import (
	"fmt"
	"testing"
)

// TestLaunchRefused: a refused launch of an interpreter kernel hands the
// pipeline to its own kernel; any other failure is the query's.
func TestLaunchRefused(t *testing.T) {
	d := &Device{}
	refused := &cuError{what: "cuLaunchKernel pg_agg_hash (grid 132, block 256)", name: "CUDA_ERROR_INVALID_VALUE"}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{refused, true},
		{fmt.Errorf("aggregate: %w", refused), true},
		{&cuError{what: "cuLaunchKernel pg_write (grid 1, block 256)", name: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"}, true},
		{&cuError{what: "cuLaunchKernel rg_agg (grid 1, block 256)", name: "CUDA_ERROR_INVALID_VALUE"}, false},
		{&cuError{what: "cuLaunchKernel pg_count (grid 1, block 256)", name: "CUDA_ERROR_ILLEGAL_ADDRESS"}, false},
		{fmt.Errorf("cuLaunchKernel pg_count: CUDA_ERROR_INVALID_VALUE"), false},
		{nil, false},
	} {
		if got := d.launchRefused(c.err); got != c.want {
			t.Errorf("launchRefused(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
