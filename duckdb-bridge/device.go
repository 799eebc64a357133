package duckdbbridge

import (
	"fmt"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/cuda"
	"github.com/rigel-db/rigel/gpu/host"
)

// DeviceModes lists the modes OpenDevice takes.
const DeviceModes = "auto, cuda, host or duckdb"

// OpenDevice opens the device a mode names: "cuda" (the GPU, an error
// without one), "host" (rigel's reference engine on the CPU), "duckdb" (no
// device: DuckDB runs every query) or "auto" (the GPU if there is one, else
// no device). Without a device it returns the reason, which the engine
// shows with every result.
func OpenDevice(mode string) (gpu.Device, string, error) {
	switch mode {
	case "duckdb":
		return nil, "--device=duckdb", nil
	case "host":
		return host.New(), "", nil
	case "cuda", "auto", "":
		d, err := cuda.Open()
		if err == nil {
			return d, "", nil
		}
		if mode == "cuda" {
			return nil, "", err
		}
		return nil, fmt.Sprintf("no GPU (%v)", err), nil
	}
	return nil, "", fmt.Errorf("device must be %s, not %q", DeviceModes, mode)
}
