package physical

import "context"

// Rewrite is one named step from a translated plan to the plan a device
// runs. Each is defined beside what it rewrites (strlayout.go, probe.go,
// partitionplan.go, chunkplan.go, commonsubtrees.go) and has its own
// tests; DevicePlan runs them, in the order of Rewrites.
type Rewrite struct {
	Name  string
	Apply func(ctx context.Context, x *Executor, root Node) (Node, error)
}

// Rewrites, in the order they run. The order matters: layouts decide the
// string columns before probes fuse pipelines that read them; joins are
// partitioned and scans streamed once probes are fused (they budget the
// fused nodes); equal subtrees are shared last, and not in plans that run
// a segment or a partition at a time.
var Rewrites = []Rewrite{
	{"string layouts (columns read through one substring loaded as it; strings in Arrow layout where the plan allows)", func(ctx context.Context, x *Executor, root Node) (Node, error) {
		return root, x.ChooseStringLayouts(ctx, root)
	}},
	{"probe fusion (outer joins simplified, right joins made left, semi and anti joins counted)", func(_ context.Context, _ *Executor, root Node) (Node, error) {
		return FuseProbes(root), nil
	}},
	{"partitioned joins (build sides past the memory budget)", func(ctx context.Context, x *Executor, root Node) (Node, error) {
		return x.PlanPartitions(ctx, root), nil
	}},
	{"chunked scans (tables past the memory budget streamed)", func(ctx context.Context, x *Executor, root Node) (Node, error) {
		return x.PlanChunks(ctx, root), nil
	}},
	{"shared subtrees (equal subtrees run once)", func(_ context.Context, _ *Executor, root Node) (Node, error) {
		return ShareCommonSubtrees(root), nil
	}},
}

// DevicePlan makes the choices of a translated plan that depend on the
// device and the data, before EXPLAIN shows them: every Rewrite, in
// order.
func (x *Executor) DevicePlan(ctx context.Context, root Node) (Node, error) {
	for _, r := range Rewrites {
		var err error
		if root, err = r.Apply(ctx, x, root); err != nil {
			return nil, err
		}
	}
	return root, nil
}
