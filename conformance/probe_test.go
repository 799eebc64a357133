package conformance

import (
	"context"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/conformance/tpch"
	"github.com/rigel-db/rigel/gpu/host"
)

// TPC-H Q3's inner joins run as fused probe pipelines (physical.FuseProbes):
// EXPLAIN shows them, and no plain inner HashJoin is left.
func TestExplainQ3FusesProbes(t *testing.T) {
	eng := openEngine(t, host.New())
	q, err := tpch.Query(3)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := eng.Explain(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(plan, "ProbePipeline"); n < 2 {
		t.Fatalf("%d fused probe nodes in Q3's plan, want 2 (its two joins):\n%s", n, plan)
	}
	if strings.Contains(plan, "HashJoin inner") {
		t.Fatalf("an inner join was not fused:\n%s", plan)
	}
	t.Logf("\n%s", plan)
}
