package host_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/rigel-db/rigel/gpu/devicetest"
	"github.com/rigel-db/rigel/gpu/host"
)

func TestBattery(t *testing.T) { devicetest.Run(t, host.New()) }

// TestDifferentialMachinery runs the differential tester host against host
// once: it cannot find semantic bugs (both sides are the same code) but it
// proves the generator's pipelines are well typed and the comparison runs.
func TestDifferentialMachinery(t *testing.T) {
	for _, seed := range seeds() {
		devicetest.Differential(t, host.New(), host.New(), seed)
	}
}

func seeds() []int64 {
	// RIGEL_DIFF_SEEDS=n runs seeds 1..n, to shake out generator bugs.
	if n, err := strconv.Atoi(os.Getenv("RIGEL_DIFF_SEEDS")); err == nil {
		var s []int64
		for i := 1; i <= n; i++ {
			s = append(s, int64(i))
		}
		return s
	}
	return []int64{3}
}
