package duckdbbridge

import (
	"fmt"
	"testing"

	"github.com/rigel-db/rigel/gpu/host"
)

// TestProducedPlansThroughEngine runs the join corpus and the 22 TPC-H
// queries through the engine on the host device: whatever part rigel runs
// and whatever it hands to DuckDB, the answers must equal DuckDB's. The new
// operators' plans must load (a plan rigel cannot load is an engine error)
// and be either run or refused cleanly.
func TestProducedPlansThroughEngine(t *testing.T) {
	db := openTestDB(t, false)
	e := NewEngine(db, "producer-test", host.New(), "")
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
			where, reason := queryLikeDuckDB(t, e, q)
			t.Logf("ran on %s (%s)", where, reason)
		})
	}
}
