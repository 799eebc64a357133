package conformance

import (
	"slices"
	"testing"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/cuda"
	"github.com/rigel-db/rigel/gpu/host"
)

// cudaPlans is the host device answering the translator as the CUDA device
// does (gpu.Refuser: its code generator's and aggregate planner's answers,
// which need no GPU), so that the plans the GPU gets are made and run
// here: what the CUDA device refuses goes to DuckDB as a subtree before
// anything runs, and the rest must still give DuckDB's answers.
type cudaPlans struct {
	*host.Device
	gpu.Refuser
}

func cudaPlanDevice(t *testing.T) gpu.Device {
	return cudaPlans{Device: hostDevice(t, 2<<30), Refuser: &cuda.Device{}}
}

// TPC-H under the CUDA device's refusals: all 22 whole on the device, as on
// the GPU (the refusals must not send any of them to DuckDB).
func TestTPCHCudaPlans(t *testing.T) {
	checkTPCH(t, openEngine(t, cudaPlanDevice(t)), duckdbbridge.OnHost)
}

// TPC-DS under the CUDA device's refusals: every answer DuckDB's, and no
// query refused while running on account of what the translator could
// have known (the whole query on DuckDB): the stddev_samp of q17 and q39
// and the row-wise concat of q05 and q80 are DuckDB subtrees now.
func TestTPCDSCudaPlans(t *testing.T) {
	partly := checkTPCDS(t, cudaPlanDevice(t), minWholeTPCDSCuda, true, refusedRunning)
	for _, q := range []string{"q05", "q17", "q39", "q80"} {
		if !slices.Contains(partly, q) {
			t.Errorf("%s ran whole on the device: the CUDA device refuses part of it, which translation should hand to DuckDB", q)
		}
	}
}

// minWholeTPCDSCuda is the fewest TPC-DS queries that must run whole on
// the device under the CUDA device's refusals: 92, as on an H200
// (bench/results/2026-11-28-h200-tpcds-sf1-hot-v56-windows.md).
const minWholeTPCDSCuda = 92
