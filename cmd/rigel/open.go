package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/duckdb-bridge/rigelsql"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/cuda"
	"github.com/rigel-db/rigel/gpu/host"
)

// common flags of commands that run queries.
type engineFlags struct {
	db         string
	device     string
	file       string
	hostMemory string
	// deviceMemory is --device-memory: the device memory plans may use.
	deviceMemory string
	// inMemory: without --db the command runs on an empty in-memory
	// DuckDB (queries of files: SELECT ... FROM 'x.parquet'), as DuckDB's
	// CLI does. Commands that need tables (bench, serve) leave it off.
	inMemory bool
}

func (f *engineFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.db, "db", "", "DuckDB database file")
	fs.StringVar(&f.device, "device", "auto", "where to run: auto (GPU if there is one, else DuckDB), cuda, host (rigel's reference engine on the CPU), duckdb; program checks the GPU interpreter's programs on the CPU")
	fs.StringVar(&f.file, "f", "", "read the SQL from this file")
	registerHostMemory(fs, &f.hostMemory)
	registerDeviceMemory(fs, &f.deviceMemory)
}

// registerDeviceMemory adds --device-memory, the memory budget of the
// device's plans.
func registerDeviceMemory(fs *flag.FlagSet, v *string) {
	fs.StringVar(v, "device-memory", "", "the device memory queries may use (e.g. 16GB; default all of the GPU's, or with --device host its --host-memory): half holds cached table columns, and a query whose tables would not fit streams its largest ones through the device a segment at a time")
}

// memoryFlags reads --device-memory (0 when not given; a bad size is a
// usage error that names it), before anything is opened, and says what
// --host-memory the device opens with: --device-memory where the device
// is the host and --host-memory is not given.
func memoryFlags(device, hostMemory, deviceMemory string) (hostBudget string, deviceBytes int64, err error) {
	if deviceMemory == "" {
		return hostMemory, 0, nil
	}
	n, err := rigelsql.ParseSize(deviceMemory)
	if err != nil || n <= 0 {
		return "", 0, usageError{fmt.Sprintf("--device-memory: %q is not a positive size (e.g. 2GB, 16GB, 1GiB)", deviceMemory)}
	}
	if device == "host" && hostMemory == "" {
		hostMemory = deviceMemory
	}
	return hostMemory, n, nil
}

// setDeviceMemory gives eng the budget memoryFlags read (0: none given,
// the engine keeps its default).
func setDeviceMemory(eng *duckdbbridge.Engine, bytes int64) error {
	if bytes == 0 {
		return nil
	}
	return eng.SetDeviceMemory(bytes)
}

// registerHostMemory adds --host-memory, the host device's memory budget.
func registerHostMemory(fs *flag.FlagSet, v *string) {
	fs.StringVar(v, "host-memory", "", "with --device host: the memory its columns and running queries may hold (e.g. 8GB); default a quarter of this machine's or cgroup's")
}

// openDevice opens the chosen device (duckdbbridge.OpenDevice); a bad mode
// or size is a usage error. hostMemory ("" for the default) is the host
// device's budget.
func openDevice(mode, hostMemory string) (gpu.Device, string, error) {
	if hostMemory != "" {
		if mode != "host" {
			return nil, "", usageError{"--host-memory goes with --device host"}
		}
		n, err := rigelsql.ParseSize(hostMemory)
		if err != nil || n <= 0 {
			return nil, "", usageError{fmt.Sprintf("--host-memory: %q is not a positive size (e.g. 512MB, 8GB, 1GiB)", hostMemory)}
		}
		d, err := host.NewWithOptions(host.Options{MemoryLimit: n})
		return d, "", err
	}
	switch mode {
	case "auto", "cuda", "host", "duckdb":
		return duckdbbridge.OpenDevice(mode)
	case "program":
		// The host device with every pipeline the CUDA device's
		// interpreter runs evaluated from its program in Go: what a first
		// run on a GPU computes, checked on a machine without one.
		return cuda.NewProgramChecker(host.New()), "", nil
	}
	return nil, "", usageError{fmt.Sprintf("--device must be %s (or program: the GPU interpreter's programs evaluated on the CPU, for checking), not %q", duckdbbridge.DeviceModes, mode)}
}

// openDB opens an existing DuckDB file read-only, or without one an
// in-memory database where inMemory allows it.
func openDB(path string, inMemory bool) (*sql.DB, string, error) {
	if path == "" && !inMemory {
		return nil, "", usageError{"--db FILE is required"}
	}
	return duckdbbridge.OpenCatalog(context.Background(), duckdbbridge.CatalogSpec{DB: path})
}

// openEngine opens database and device together.
func openEngine(f *engineFlags) (*duckdbbridge.Engine, func(), error) {
	// The GPU starts (CUDA context, utility kernels) while DuckDB opens its
	// file: neither waits for the other.
	type opened struct {
		dev    gpu.Device
		reason string
		err    error
	}
	hostBudget, deviceBytes, err := memoryFlags(f.device, f.hostMemory, f.deviceMemory)
	if err != nil {
		return nil, nil, err
	}
	devc := make(chan opened, 1)
	go func() {
		dev, reason, err := openDevice(f.device, hostBudget)
		devc <- opened{dev, reason, err}
	}()
	db, id, err := openDB(f.db, f.inMemory)
	o := <-devc
	if err != nil {
		if o.dev != nil {
			o.dev.Close()
		}
		return nil, nil, err
	}
	if o.err != nil {
		db.Close()
		return nil, nil, o.err
	}
	dev, reason := o.dev, o.reason
	if dev == nil && f.device == "auto" {
		fmt.Fprintln(os.Stderr, "rigel: "+reason+"; DuckDB runs the queries (--device=host runs rigel's reference engine on the CPU)")
	}
	eng := duckdbbridge.NewEngine(db, id, dev, reason)
	if err := setDeviceMemory(eng, deviceBytes); err != nil {
		if dev != nil {
			dev.Close()
		}
		db.Close()
		return nil, nil, err
	}
	eng.SetProgress(func(msg string) { fmt.Fprintln(os.Stderr, "rigel: "+msg) })
	closeAll := func() {
		eng.Flush()
		if dev != nil {
			dev.Close()
		}
		db.Close()
	}
	return eng, closeAll, nil
}

// parseFlags parses flags placed before, between or after the positional
// arguments, and returns the positionals. An argument is a flag only when
// it starts with '-' and holds no white space, so that SQL text beginning
// with a comment ("-- total sales\nSELECT ...") is SQL; after "--" every
// argument is positional.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	// The flag package's own usage text is silenced: main prints rigel's.
	fs.SetOutput(io.Discard)
	var pos []string
	for len(args) > 0 {
		n := flagRun(fs, args)
		if err := fs.Parse(args[:n]); err != nil {
			return nil, usageError{err.Error()}
		}
		args = args[n:]
		switch {
		case len(args) == 0:
		case args[0] == "--":
			return append(pos, args[1:]...), nil
		default:
			pos = append(pos, args[0])
			args = args[1:]
		}
	}
	return pos, nil
}

// flagRun is how many leading arguments are flags and their values.
func flagRun(fs *flag.FlagSet, args []string) int {
	i := 0
	for i < len(args) && isFlag(args[i]) {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		i++
		if f := fs.Lookup(name); f != nil && !hasValue && !isBoolFlag(f) && i < len(args) {
			i++ // its value, whatever it looks like
		}
	}
	return i
}

func isFlag(arg string) bool {
	return len(arg) > 1 && arg[0] == '-' && arg != "--" && !strings.ContainsAny(arg, " \t\n\r")
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
