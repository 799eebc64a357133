package host

import (
	"testing"

	"github.com/rigel-db/rigel/gpu/devicetest"
)

// TestProbe checks the host RunProbe against Run over a nested-loop join
// (devicetest.Probe computes the pairs in Go, not with HashJoin).
func TestProbe(t *testing.T) { devicetest.Probe(t, New(), New()) }

// TestProbeCounts checks the host ProbeCounts against counts over a
// nested-loop join computed in Go.
func TestProbeCounts(t *testing.T) { devicetest.ProbeCounts(t, New(), New()) }
