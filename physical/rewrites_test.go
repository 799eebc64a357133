package physical

import (
	"context"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu/host"
)

// DevicePlan runs the Rewrites over a union of two equal probe plans: the
// pipelines over the joins fuse into probes (probe fusion) and the two
// fused subtrees, equal, become one (shared subtrees). The answer is the
// plan's before the rewrites.
func TestDevicePlanRunsTheRewritesInOrder(t *testing.T) {
	want := runRows(t, host.New(), &Union{Inputs: []Node{probePlan(40, 60, false, false), probePlan(40, 60, false, false)}})
	x := &Executor{Dev: host.New(), Source: &memSource{}, Cache: NewColumnCache()}
	root, err := x.DevicePlan(context.Background(), &Union{Inputs: []Node{probePlan(40, 60, false, false), probePlan(40, 60, false, false)}})
	if err != nil {
		t.Fatal(err)
	}
	u, ok := root.(*Union)
	if !ok {
		t.Fatalf("the root became %T", root)
	}
	if _, fused := u.Inputs[0].(*ProbePipeline); !fused {
		t.Fatalf("the pipeline over the join did not fuse:\n%s", Explain(root, "host"))
	}
	if u.Inputs[0] != u.Inputs[1] {
		t.Fatalf("the equal fused subtrees were left apart:\n%s", Explain(root, "host"))
	}
	if got := runRows(t, host.New(), root); strings.Join(got, ";") != strings.Join(want, ";") || len(got) == 0 {
		t.Fatalf("the rewritten plan gave %d rows, the plan before %d", len(got), len(want))
	}
}
