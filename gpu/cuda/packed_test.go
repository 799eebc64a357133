package cuda

import (
	"strings"
	"testing"
)

// With packing on, a generated kernel's integer loads carry the packed
// branch (rg_unpacked) and compile; with packing off (the default) they
// are plain, the loads kernels had before packing.
func TestPackedLoadsFollowThePolicy(t *testing.T) {
	defer func(p packing) { packingPolicy = p }(packingPolicy)
	for _, c := range []struct {
		policy packing
		want   bool
	}{{packOff, false}, {packLarge, true}, {packAll, true}} {
		packingPolicy = c.policy
		src, err := pipelineSource(q1Pipeline(10471), []int{3, 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(src, "rg_unpacked(A.a["); got != c.want {
			t.Fatalf("policy %d: packed loads in the source: %v, want %v", c.policy, got, c.want)
		}
		if (pipelineAccepts()&acceptPacked != 0) != c.want {
			t.Fatalf("policy %d: pipelines take packed columns: %v, want %v", c.policy, !c.want, c.want)
		}
		if c.want {
			skipNoNVRTC(t)
			compileClean(t, "q1_packed", src)
		}
	}
}
