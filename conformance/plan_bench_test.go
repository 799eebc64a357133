package conformance

import (
	"context"
	"testing"

	"github.com/rigel-db/rigel/conformance/tpch"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu/host"
)

// BenchmarkPlanTPCH plans the 22 TPC-H queries anew on a read-only file
// (Engine.LoadColumns plans without the plan cache; the columns it loads
// are in the device cache after the first round): what a query's first
// run spends before its kernels. One op is all 22.
//
//	go test -run '^$' -bench PlanTPCH ./conformance/
func BenchmarkPlanTPCH(b *testing.B) {
	ctx := context.Background()
	db, id, err := duckdbbridge.OpenCatalog(ctx, duckdbbridge.CatalogSpec{DB: tpchDB(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	e := duckdbbridge.NewEngine(db, id, host.New(), "")
	round := func() {
		for n := 1; n <= 22; n++ {
			q, _ := tpch.Query(n)
			if err := e.LoadColumns(ctx, q); err != nil {
				b.Fatalf("Q%d: %v", n, err)
			}
		}
	}
	round()
	b.ResetTimer()
	for range b.N {
		round()
	}
}
