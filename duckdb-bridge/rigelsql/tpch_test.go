package rigelsql

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/rigel-db/rigel/conformance/tpch"
)

// The 22 TPC-H queries through the driver (host device, read-only DSN)
// give duckdb-go's rows and Go types; most run on the device. Doubles may
// differ in the last bits (summation order), so they compare with a
// relative tolerance of 1e-9.
func TestTPCHSameAsDuckDB(t *testing.T) {
	gen, err := tpch.FindGenerator(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tpch.duckdb")
	if err := tpch.Build(context.Background(), gen, 0.01, path, func(string) {}); err != nil {
		t.Fatal(err)
	}
	dsn := path + "?access_mode=READ_ONLY&threads=2"
	duck := openDB(t, "duckdb", dsn)
	rig := openDB(t, "rigel", dsn+"&"+testDevice)
	rc, _ := Of(rig)
	onDevice := 0
	for n := 1; n <= 22; n++ {
		q, err := tpch.Query(n)
		if err != nil {
			t.Fatal(err)
		}
		before := rc.Stats().Cache
		got, gt := rowsOf(t, rig, q)
		after := rc.Stats().Cache
		if after.Hits+after.Misses > before.Hits+before.Misses {
			onDevice++
		}
		want, wt := rowsOf(t, duck, q)
		for i := range want {
			for j := range want[i] {
				if i < len(got) && j < len(got[i]) {
					if g, ok := got[i][j].(float64); ok {
						if w, ok := want[i][j].(float64); ok && math.Abs(g-w) <= 1e-9*math.Max(1, math.Abs(w)) {
							got[i][j] = w
						}
					}
				}
			}
		}
		sameRows(t, fmt.Sprintf("TPC-H Q%02d", n), got, want, gt, wt)
	}
	if s := rc.Stats(); s.DeviceErrors != 0 {
		t.Errorf("the device failed on %d queries: %v", s.DeviceErrors, s.LastDeviceError)
	}
	t.Logf("%d of 22 queries ran on the host device; cache %+v", onDevice, rc.Stats().Cache)
	if onDevice < 15 {
		t.Errorf("only %d of 22 TPC-H queries ran on the device", onDevice)
	}
}
