package duckdbbridge

import (
	"context"
	"fmt"
	"testing"

	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// TestProducedPlansThroughEngine runs the join corpus and the 22 TPC-H
// queries through the engine on the host device: whatever part rigel runs
// and whatever it hands to DuckDB, the answers must equal DuckDB's. The new
// operators' plans must load (a plan rigel cannot load is an engine error)
// and be either run or refused cleanly.
func TestProducedPlansThroughEngine(t *testing.T) {
	db := openTestDB(t, false)
	e := NewEngine(db, "producer-test", host.New(), "")
	ctx := context.Background()
	var queries []string
	queries = append(queries, joinQueries...)
	for n := 1; n <= 22; n++ {
		queries = append(queries, readQuery(t, n))
	}
	for i, q := range queries {
		name := fmt.Sprintf("join-%02d", i)
		if i >= len(joinQueries) {
			name = fmt.Sprintf("tpch-q%02d", i-len(joinQueries)+1)
		}
		t.Run(name, func(t *testing.T) {
			got, err := e.Query(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			defer got.Release()
			want, err := e.RunOnDuckDB(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			defer want.Release()
			if err := arrowfmt.Compare(got.Record, want.Record, false); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			t.Logf("ran on %s (%s)", got.Where, got.Reason)
		})
	}
}
