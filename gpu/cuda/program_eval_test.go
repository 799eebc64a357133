package cuda

import (
	"fmt"
	"testing"

	"github.com/rigel-db/rigel/gpu/devicetest"
	"github.com/rigel-db/rigel/gpu/host"
)

// TestProgramMatchesHost runs the device battery and the differential
// test on the Go evaluation of the programs: what the interpreter is
// asked to compute equals the host device's results.
func TestProgramMatchesHost(t *testing.T) {
	pd := NewProgramChecker(host.New())
	t.Run("battery", func(t *testing.T) { devicetest.Run(t, pd) })
	for _, seed := range []int64{1, 2, 3} {
		t.Run(fmt.Sprintf("differential%d", seed), func(t *testing.T) {
			devicetest.Differential(t, host.New(), pd, seed)
		})
	}
	if pd.Runs() == 0 {
		t.Fatal("no pipeline ran on its program")
	}
	t.Logf("%d pipelines ran on their programs; the others: %v", pd.Runs(), pd.Missed())
}
