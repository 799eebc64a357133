package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/serve"
)

// cmdServe runs the Arrow Flight SQL server until SIGINT or SIGTERM.
func cmdServe(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	db := fs.String("db", "", "DuckDB database file (opened read-only)")
	var parquet multiFlag
	fs.Var(&parquet, "parquet", "folder of Parquet files, one table per NAME.parquet file or NAME/ folder (repeatable)")
	device := fs.String("device", "auto", "where to run: auto (GPU if there is one, else DuckDB), cuda, host, duckdb")
	var hostMemory, deviceMemory string
	registerHostMemory(fs, &hostMemory)
	registerDeviceMemory(fs, &deviceMemory)
	listen := fs.String("listen", "127.0.0.1:31337", "address to listen on (port 0 picks a free port)")
	tokenFile := fs.String("token-file", "", "file holding the bearer token clients must send (or set RIGEL_TOKEN)")
	cert := fs.String("tls-cert", "", "TLS certificate (PEM); with --tls-key, serve over TLS")
	key := fs.String("tls-key", "", "TLS private key (PEM)")
	maxReq := fs.Int("max-request-bytes", 16<<20, "largest SQL text or Substrait plan taken")
	var allowFiles multiFlag
	fs.Var(&allowFiles, "allow-files", "a folder whose files clients may read, from SQL (read_parquet, read_csv) and Substrait plans (LocalFiles) alike (repeatable); none by default")
	fileAccess := fs.Bool("allow-file-access", false, "let clients read any file this machine's user can (for a server whose clients are its operator); off by default")
	queryTimeout := fs.Duration("query-timeout", 0, "cancel a query that runs (and streams its answer) longer than this; 0: no bound but the client's own deadline")
	grace := fs.Duration("shutdown-grace", 30*time.Second, "on SIGINT/SIGTERM, how long running queries may finish before they are cancelled")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{"serve takes no positional arguments"}
	}
	if *maxReq <= 0 {
		return usageError{fmt.Sprintf("--max-request-bytes must be positive, not %d", *maxReq)}
	}
	if *db == "" && len(parquet) == 0 {
		return usageError{"serve needs a catalog: --db FILE and/or --parquet FOLDER"}
	}
	if *queryTimeout < 0 {
		return usageError{fmt.Sprintf("--query-timeout must not be negative, not %s", *queryTimeout)}
	}
	if *fileAccess && len(allowFiles) > 0 {
		return usageError{"--allow-file-access (every file) and --allow-files DIR (some folders) contradict each other; give one"}
	}
	opts := serve.Options{MaxRequestBytes: *maxReq, AllowFileAccess: *fileAccess, AllowFiles: allowFiles, QueryTimeout: *queryTimeout, Log: func(msg string) { fmt.Fprintln(os.Stderr, "rigel serve: "+msg) }}
	if opts.Token, err = readToken(*tokenFile); err != nil {
		return err
	}
	if (*cert == "") != (*key == "") {
		return usageError{"--tls-cert and --tls-key go together"}
	}
	if *cert != "" {
		pair, err := tls.LoadX509KeyPair(*cert, *key)
		if err != nil {
			return fmt.Errorf("TLS: %w", err)
		}
		opts.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	}
	hostBudget, deviceBytes, err := memoryFlags(*device, hostMemory, deviceMemory)
	if err != nil {
		return err
	}
	dev, reason, err := openDevice(*device, hostBudget)
	if err != nil {
		return err
	}
	if dev != nil {
		defer dev.Close()
	}
	sqlDB, id, err := duckdbbridge.OpenCatalog(ctx, duckdbbridge.CatalogSpec{DB: *db, Parquet: parquet})
	if err != nil {
		return err
	}
	defer sqlDB.Close()
	eng := duckdbbridge.NewEngine(sqlDB, id, dev, reason)
	defer eng.Flush()
	if err := setDeviceMemory(eng, deviceBytes); err != nil {
		return err
	}
	eng.SetProgress(func(msg string) { opts.Log(msg) })
	srv, err := serve.New(eng, opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *listen, err)
	}
	scheme := "grpc+tcp"
	if opts.TLS != nil {
		scheme = "grpc+tls"
	}
	where := "no device (" + reason + "): DuckDB answers every query"
	if dev != nil {
		where = "device " + describeDevice(eng)
	}
	auth := "no token"
	if opts.Token != "" {
		auth = "bearer token required"
	}
	var catalog []string
	if *db != "" {
		catalog = append(catalog, "DuckDB file "+*db)
	}
	for _, p := range parquet {
		catalog = append(catalog, "Parquet folder "+p)
	}
	files := "clients read no files of this machine"
	switch {
	case *fileAccess:
		files = "clients may read any file of this machine"
	case len(allowFiles) > 0:
		files = "clients may read the files under " + strings.Join(allowFiles, ", ")
	}
	opts.Log(fmt.Sprintf("listening on %s://%s (%s, %s; catalog: %s; %s)", scheme, ln.Addr(), where, auth, strings.Join(catalog, ", "), files))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	opts.Log(fmt.Sprintf("shutting down: running queries get %s to finish", *grace))
	srv.Shutdown(*grace)
	if err := <-served; err != nil {
		return err
	}
	opts.Log("stopped")
	return nil
}

func describeDevice(e *duckdbbridge.Engine) string {
	info := e.Device().Info()
	if info.Model != "" {
		return info.Name + " (" + info.Model + ")"
	}
	return info.Name
}

// readToken reads the bearer token from a file or RIGEL_TOKEN (a flag value
// would show in the process list).
func readToken(file string) (string, error) {
	if file == "" {
		return os.Getenv("RIGEL_TOKEN"), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("token file %s is empty", file)
	}
	return tok, nil
}

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
