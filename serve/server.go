// Package serve is rigel's Arrow Flight SQL endpoint: hosts that speak
// Flight SQL (JDBC, ADBC, pyarrow.flight, Doris, ...) send SQL or Substrait
// plans and get Arrow record batches back, computed on rigel's device where
// it can and by DuckDB where it cannot.
package serve

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Options configure a server. Zero values give the defaults.
type Options struct {
	// Token, when set, is the bearer token every call must carry
	// ("authorization: Bearer TOKEN").
	Token string
	// TLS, when set, serves over TLS.
	TLS *tls.Config
	// MaxRequestBytes bounds a SQL text or a Substrait plan
	// (default 16 MiB); MaxMessageBytes bounds any gRPC message the server
	// receives (default MaxRequestBytes + 1 MiB).
	MaxRequestBytes, MaxMessageBytes int
	// MaxPrepared bounds the open prepared statements of all clients
	// (default 10,000), MaxPreparedPerClient those of one connection
	// (default 1,000): a client that never closes its statements cannot
	// fill memory, nor take the slots every client shares. A client's
	// statements are freed when its connection closes.
	MaxPrepared, MaxPreparedPerClient int
	// Log hears one line per query (the query log) and per server event,
	// each at most MaxLogLine bytes (longer ones are cut, saying so).
	Log func(msg string)
	// QueryTimeout, when set, bounds each query's run and the sending of
	// its answer; a query past it is cancelled (its client gets
	// DEADLINE_EXCEEDED). Clients may set shorter deadlines of their own.
	QueryTimeout time.Duration
	// AllowFiles lists the folders whose files clients' SQL (read_parquet,
	// read_csv, ...) and Substrait plans (LocalFiles reads) may read:
	// regular files only, each read at most MaxFileBytes (0: the default,
	// ipcfiles.DefaultMaxBytes). None by default: a client of the server
	// must not read the server's files.
	AllowFiles   []string
	MaxFileBytes int64
	// AllowFileAccess lets clients read any file the server can
	// (AllowFiles then must be empty): for a server whose clients are
	// its own operator.
	AllowFileAccess bool
}

const (
	defaultMaxRequest           = 16 << 20
	defaultMaxPrepared          = 10000
	defaultMaxPreparedPerClient = 1000
	// maxStreamsPerClient bounds the calls one connection may have in
	// flight at once (gRPC's own default is unbounded).
	maxStreamsPerClient = 256
)

// Server serves one engine over Flight SQL.
type Server struct {
	flightsql.BaseServer
	eng  *duckdbbridge.Engine
	opts Options
	grpc *grpc.Server

	tickets  *ticketSigner
	prepared *preparedStatements
}

// New makes a server for an engine.
func New(eng *duckdbbridge.Engine, opts Options) (*Server, error) {
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = defaultMaxRequest
	}
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = opts.MaxRequestBytes + 1<<20
	}
	if opts.MaxPrepared <= 0 {
		opts.MaxPrepared = defaultMaxPrepared
	}
	if opts.MaxPreparedPerClient <= 0 {
		opts.MaxPreparedPerClient = min(defaultMaxPreparedPerClient, opts.MaxPrepared)
	}
	if opts.Log == nil {
		opts.Log = func(string) {}
	}
	log := opts.Log
	opts.Log = func(msg string) { log(cutLine(msg, MaxLogLine)) }
	if opts.AllowFileAccess && len(opts.AllowFiles) > 0 {
		return nil, errors.New("serve: allowing every file and allowing some folders contradict each other; give one")
	}
	if !opts.AllowFileAccess {
		// A one-way switch in DuckDB: SQL cannot open it again.
		if err := eng.RestrictFiles(opts.AllowFiles, opts.MaxFileBytes); err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
	}
	s := &Server{eng: eng, opts: opts, tickets: newTicketSigner(), prepared: newPreparedStatements(opts.MaxPrepared, opts.MaxPreparedPerClient)}
	s.Alloc = memory.DefaultAllocator
	if err := s.registerSqlInfo(); err != nil {
		return nil, err
	}
	gopts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(opts.MaxMessageBytes),
		grpc.MaxConcurrentStreams(maxStreamsPerClient),
		grpc.StatsHandler(connTracker{s.prepared}),
		grpc.ChainUnaryInterceptor(s.unaryAuth),
		grpc.ChainStreamInterceptor(s.streamAuth),
	}
	if opts.TLS != nil {
		gopts = append(gopts, grpc.Creds(credentials.NewTLS(opts.TLS)))
	}
	s.grpc = grpc.NewServer(gopts...)
	flight.RegisterFlightServiceServer(s.grpc, flightsql.NewFlightServer(s))
	return s, nil
}

// Serve answers calls on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	err := s.grpc.Serve(ln)
	if errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

// Shutdown stops taking calls and lets running ones finish; after grace,
// the ones still running are cancelled (their clients get CANCELLED or
// UNAVAILABLE). Prepared statements are dropped.
func (s *Server) Shutdown(grace time.Duration) {
	done := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(grace):
		s.opts.Log(fmt.Sprintf("shutdown: calls still running after %s are cancelled", grace))
		s.grpc.Stop()
		<-done
	}
	s.prepared.clear()
}

func (s *Server) registerSqlInfo() error {
	for id, v := range map[flightsql.SqlInfo]any{
		flightsql.SqlInfoFlightSqlServerName:                "rigel",
		flightsql.SqlInfoFlightSqlServerVersion:             Version,
		flightsql.SqlInfoFlightSqlServerArrowVersion:        "18",
		flightsql.SqlInfoFlightSqlServerReadOnly:            true,
		flightsql.SqlInfoFlightSqlServerSql:                 true,
		flightsql.SqlInfoFlightSqlServerSubstrait:           true,
		flightsql.SqlInfoFlightSqlServerSubstraitMinVersion: "0.30.0",
		flightsql.SqlInfoFlightSqlServerSubstraitMaxVersion: "0.85.0",
		flightsql.SqlInfoFlightSqlServerTransaction:         int32(flightsql.SqlTransactionNone),
		flightsql.SqlInfoFlightSqlServerCancel:              false,
		flightsql.SqlInfoFlightSqlServerBulkIngestion:       false,
		flightsql.SqlInfoDDLCatalog:                         false,
		flightsql.SqlInfoDDLSchema:                          false,
		flightsql.SqlInfoDDLTable:                           false,
		flightsql.SqlInfoIdentifierCase:                     int32(flightsql.SqlCaseSensitivityCaseInsensitive),
		flightsql.SqlInfoQuotedIdentifierCase:               int32(flightsql.SqlCaseSensitivityCaseInsensitive),
		flightsql.SqlInfoIdentifierQuoteChar:                `"`,
	} {
		if err := s.RegisterSqlInfo(id, v); err != nil {
			return fmt.Errorf("serve: sql info %v: %w", id, err)
		}
	}
	return nil
}

// Version is rigel's server version, as GetSqlInfo reports it.
const Version = "0.1.0"

// authorize checks the bearer token of a call.
func (s *Server) authorize(ctx context.Context) error {
	if s.opts.Token == "" {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get("authorization") {
		tok, ok := strings.CutPrefix(v, "Bearer ")
		if ok && subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) == 1 {
			return nil
		}
	}
	return status.Error(codes.Unauthenticated, "rigel serve: this server wants a bearer token (header \"authorization: Bearer TOKEN\"); the call had none or a wrong one")
}

// The interceptors check the token and turn a panic in a call into an
// INTERNAL error for that call (gRPC would let it end the process: one bad
// plan must not stop the server for everyone).
func (s *Server) unaryAuth(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (_ any, err error) {
	defer s.recoverCall(info.FullMethod, &err)
	if err := s.authorize(ctx); err != nil {
		return nil, err
	}
	return h(ctx, req)
}

func (s *Server) streamAuth(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) (err error) {
	defer s.recoverCall(info.FullMethod, &err)
	if err := s.authorize(ss.Context()); err != nil {
		return err
	}
	return h(srv, ss)
}

func (s *Server) recoverCall(method string, err *error) {
	if r := recover(); r != nil {
		s.opts.Log(fmt.Sprintf("internal error (a bug) in %s: %v\n%s", method, r, debug.Stack()))
		*err = status.Error(codes.Internal, cutLine(fmt.Sprintf("rigel serve: internal error (a bug; the server logged it and keeps serving): %v", r), MaxErrorText))
	}
}
