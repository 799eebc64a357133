package rigelsql

import (
	"os"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
)

// The tests run on rigel's host device; RIGELSQL_TEST_DEVICE=cuda runs
// them on the GPU (on a machine with one).
var testDevice = "rigel_device=" + cmpOr(os.Getenv("RIGELSQL_TEST_DEVICE"), "host")

func testWhere() duckdbbridge.Where {
	if os.Getenv("RIGELSQL_TEST_DEVICE") == "cuda" {
		return duckdbbridge.OnGPU
	}
	return duckdbbridge.OnHost
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
