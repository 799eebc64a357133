package rigelsql

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu"
)

// config is a parsed DSN: what DuckDB gets and what rigel keeps.
type config struct {
	duckDSN   string // the DSN without rigel_* options, for duckdb-go
	path      string // absolute database file path; "" for in-memory
	device    string // auto, cuda, host or duckdb
	cacheSize int64  // bytes; 0: no limit
	hasSize   bool
	// deviceMemory is rigel_device_memory: the device memory plans may
	// use (Engine.SetDeviceMemory); 0: the device's own.
	deviceMemory int64
}

// parseDSN splits duckdb-go's DSN ("path?opt=v&...", "" or ":memory:" for
// an in-memory database) into DuckDB's part and rigel's options:
// rigel_device (auto, cuda, host, duckdb; default $RIGEL_DEVICE, else auto),
// rigel_cache_size (bytes, or with a unit: 512MB, 4GB, 1GiB) and
// rigel_device_memory (a size: the device memory plans may use; a plan
// whose tables do not fit streams them, physical's Chunked, and
// partitions its joins, physical's PartitionedJoin).
func parseDSN(dsn string) (config, error) {
	cfg := config{device: "auto"}
	if env := os.Getenv("RIGEL_DEVICE"); env != "" {
		cfg.device = env
	}
	path, rawQuery, hasQuery := strings.Cut(dsn, "?")
	if hasQuery {
		q, err := url.ParseQuery(rawQuery)
		if err != nil {
			return cfg, fmt.Errorf("rigel: cannot parse the DSN's options %q: %w", rawQuery, err)
		}
		for k, vs := range q {
			if !strings.HasPrefix(strings.ToLower(k), "rigel_") {
				continue
			}
			v := vs[len(vs)-1]
			switch strings.ToLower(k) {
			case "rigel_device":
				cfg.device = v
			case "rigel_cache_size":
				n, err := ParseSize(v)
				if err != nil {
					return cfg, fmt.Errorf("rigel: DSN option rigel_cache_size: %w", err)
				}
				cfg.cacheSize, cfg.hasSize = n, true
			case "rigel_device_memory":
				n, err := ParseSize(v)
				if err != nil || n <= 0 {
					return cfg, fmt.Errorf("rigel: DSN option rigel_device_memory: %q is not a positive size (e.g. 2GB, 16GB)", v)
				}
				cfg.deviceMemory = n
			default:
				return cfg, fmt.Errorf("rigel: unknown DSN option %q (rigel takes rigel_device, rigel_cache_size and rigel_device_memory)", k)
			}
			delete(q, k)
		}
		rawQuery = q.Encode()
	}
	switch cfg.device {
	case "auto", "cuda", "host", "duckdb":
	default:
		return cfg, fmt.Errorf("rigel: rigel_device must be %s, not %q", duckdbbridge.DeviceModes, cfg.device)
	}
	cfg.duckDSN = path
	if rawQuery != "" {
		cfg.duckDSN += "?" + rawQuery
	}
	if path != "" && path != ":memory:" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return cfg, fmt.Errorf("rigel: database path %q: %w", path, err)
		}
		cfg.path = abs
	}
	return cfg, nil
}

// ParseSize reads a byte count: a plain number, or one with a unit
// (KB, MB, GB, TB: powers of 1000; KiB, MiB, GiB, TiB: powers of 1024).
func ParseSize(s string) (int64, error) { return gpu.ParseSize(s) }
