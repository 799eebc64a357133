package serve

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

func (s *Server) checkSize(what string, n int) error {
	if n > s.opts.MaxRequestBytes {
		return status.Errorf(codes.InvalidArgument, "rigel serve: the %s is %d bytes, more than this server takes (%d; rigel serve --max-request-bytes raises it)", what, n, s.opts.MaxRequestBytes)
	}
	if n == 0 {
		return status.Errorf(codes.InvalidArgument, "rigel serve: the %s is empty", what)
	}
	return nil
}

// sqlStatement takes SQL text that is one query: the catalog is served
// read-only, so writes, DDL, SET, ATTACH, EXPLAIN ANALYZE of any of them
// and the like are refused here (the engine's CheckQuery, which the engine
// applies again when the statement runs).
func (s *Server) sqlStatement(ctx context.Context, query string) (statement, error) {
	if err := s.checkSize("SQL text", len(query)); err != nil {
		return statement{}, err
	}
	if err := s.eng.CheckQuery(ctx, query); err != nil {
		return statement{}, toStatus(err)
	}
	return statement{body: []byte(query)}, nil
}

func (s *Server) planStatement(p flightsql.SubstraitPlan) (statement, error) {
	if err := s.checkSize("Substrait plan", len(p.Plan)); err != nil {
		return statement{}, err
	}
	return statement{substrait: true, body: p.Plan}, nil
}

func (s *Server) flightInfo(desc *flight.FlightDescriptor, ticket []byte, schema *arrow.Schema) *flight.FlightInfo {
	info := &flight.FlightInfo{
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: ticket}}},
		FlightDescriptor: desc,
		TotalRecords:     -1,
		TotalBytes:       -1,
	}
	if schema != nil {
		info.Schema = flight.SerializeSchema(schema, s.Alloc)
	}
	return info
}

// GetFlightInfoStatement answers a SQL query with a signed ticket that
// carries it.
func (s *Server) GetFlightInfoStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	st, err := s.sqlStatement(ctx, cmd.GetQuery())
	if err != nil {
		return nil, err
	}
	if len(cmd.GetTransactionId()) > 0 {
		return nil, status.Error(codes.Unimplemented, "rigel serve: transactions are not supported (the catalog is read-only)")
	}
	tkt, err := flightsql.CreateStatementQueryTicket(s.tickets.ticket(st))
	if err != nil {
		return nil, err
	}
	return s.flightInfo(desc, tkt, nil), nil
}

// GetFlightInfoSubstraitPlan checks the plan (so that a bad one fails
// here, with the reason) and answers with a signed ticket that carries it.
func (s *Server) GetFlightInfoSubstraitPlan(_ context.Context, cmd flightsql.StatementSubstraitPlan, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	st, err := s.planStatement(cmd.GetPlan())
	if err != nil {
		return nil, err
	}
	schema, err := s.eng.PlanSchema(st.body)
	if err != nil {
		return nil, toStatus(err)
	}
	tkt, err := flightsql.CreateStatementQueryTicket(s.tickets.ticket(st))
	if err != nil {
		return nil, err
	}
	return s.flightInfo(desc, tkt, schema), nil
}

// GetSchemaStatement returns the schema of a query's answer.
func (s *Server) GetSchemaStatement(ctx context.Context, cmd flightsql.StatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	st, err := s.sqlStatement(ctx, cmd.GetQuery())
	return s.schemaResult(ctx, st, err)
}

// GetSchemaSubstraitPlan returns the schema of a plan's answer.
func (s *Server) GetSchemaSubstraitPlan(ctx context.Context, cmd flightsql.StatementSubstraitPlan, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	st, err := s.planStatement(cmd.GetPlan())
	return s.schemaResult(ctx, st, err)
}

// schemaResult answers a GetSchema call for a statement taken (err nil).
func (s *Server) schemaResult(ctx context.Context, st statement, err error) (*flight.SchemaResult, error) {
	if err != nil {
		return nil, err
	}
	schema, err := s.schemaOf(ctx, st)
	if err != nil {
		return nil, err
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(schema, s.Alloc)}, nil
}

func (s *Server) schemaOf(ctx context.Context, st statement) (*arrow.Schema, error) {
	var schema *arrow.Schema
	var err error
	if st.substrait {
		schema, err = s.eng.PlanSchema(st.body)
	} else {
		schema, err = s.eng.ResultSchema(ctx, string(st.body))
	}
	if err != nil {
		return nil, toStatus(err)
	}
	return schema, nil
}

// DoGetStatement runs the statement a ticket this server signed carries,
// and streams its answer.
func (s *Server) DoGetStatement(ctx context.Context, cmd flightsql.StatementQueryTicket) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	st, err := s.tickets.parse(cmd.GetStatementHandle())
	if err != nil {
		return nil, nil, err
	}
	return s.run(ctx, st)
}

var querySeq atomic.Int64

// run executes a statement and streams its answer; the query log gets a
// line when it starts streaming and one when the stream ends.
func (s *Server) run(ctx context.Context, st statement) (_ *arrow.Schema, _ <-chan flight.StreamChunk, err error) {
	id := querySeq.Add(1)
	start := time.Now()
	cancel := func() {}
	if s.opts.QueryTimeout > 0 {
		// The bound covers the run and the stream: it ends when the
		// answer has been sent (or the run failed).
		ctx, cancel = context.WithTimeoutCause(ctx, s.opts.QueryTimeout,
			fmt.Errorf("%w: the query ran longer than this server allows (%s; rigel serve --query-timeout)", context.DeadlineExceeded, s.opts.QueryTimeout))
		defer func() {
			if err != nil {
				cancel()
			}
		}()
	}
	var stream *duckdbbridge.Stream
	what := "sql"
	if st.substrait {
		what = "substrait"
		stream, err = s.eng.PlanStream(ctx, st.body)
	} else {
		stream, err = s.eng.QueryStream(ctx, string(st.body))
	}
	client := "?"
	if p, ok := peer.FromContext(ctx); ok {
		client = p.Addr.String()
	}
	if err != nil {
		s.opts.Log(fmt.Sprintf("query %d from %s (%s): error: %v", id, client, what, err))
		return nil, nil, toStatus(err)
	}
	where := string(stream.Where)
	if stream.Reason != "" {
		where += " (" + stream.Reason + ")"
	}
	s.opts.Log(fmt.Sprintf("query %d from %s (%s): ran on %s in %s", id, client, what, where, time.Since(start).Round(time.Microsecond)))
	counted := &countingReader{RecordReader: stream, done: func(rows int64, err error) {
		end := "done"
		switch {
		case err != nil:
			end = "failed: " + err.Error()
		case errors.Is(context.Cause(ctx), context.Canceled):
			end = "stopped: the client went away"
		case ctx.Err() != nil:
			end = "stopped: " + context.Cause(ctx).Error()
		}
		cancel()
		s.opts.Log(fmt.Sprintf("query %d: %s, %d rows in %s", id, end, rows, time.Since(start).Round(time.Microsecond)))
	}}
	ch := make(chan flight.StreamChunk, 2)
	go flight.StreamChunksFromReader(ctx, counted, ch)
	return stream.Schema(), ch, nil
}

// countingReader counts the rows it hands out and reports when released.
type countingReader struct {
	array.RecordReader
	rows int64
	done func(rows int64, err error)
}

func (r *countingReader) Next() bool {
	if !r.RecordReader.Next() {
		return false
	}
	r.rows += r.RecordReader.RecordBatch().NumRows()
	return true
}

func (r *countingReader) Release() {
	r.done(r.rows, r.RecordReader.Err())
	r.RecordReader.Release()
}

func (s *Server) prepare(ctx context.Context, st statement) (flightsql.ActionCreatePreparedStatementResult, error) {
	var res flightsql.ActionCreatePreparedStatementResult
	schema, err := s.schemaOf(ctx, st)
	if err != nil {
		return res, err
	}
	h, err := s.prepared.add(clientOf(ctx), &prepared{st: st, schema: schema})
	if err != nil {
		return res, err
	}
	res.Handle = []byte(h)
	res.DatasetSchema = schema
	res.ParameterSchema = arrow.NewSchema(nil, nil)
	return res, nil
}

// CreatePreparedStatement prepares SQL; the answer's schema comes back
// with the handle (JDBC needs it to tell queries from updates).
func (s *Server) CreatePreparedStatement(ctx context.Context, req flightsql.ActionCreatePreparedStatementRequest) (flightsql.ActionCreatePreparedStatementResult, error) {
	if len(req.GetTransactionId()) > 0 {
		return flightsql.ActionCreatePreparedStatementResult{}, status.Error(codes.Unimplemented, "rigel serve: transactions are not supported (the catalog is read-only)")
	}
	st, err := s.sqlStatement(ctx, req.GetQuery())
	if err != nil {
		return flightsql.ActionCreatePreparedStatementResult{}, err
	}
	return s.prepare(ctx, st)
}

// CreatePreparedSubstraitPlan prepares a Substrait plan.
func (s *Server) CreatePreparedSubstraitPlan(ctx context.Context, req flightsql.ActionCreatePreparedSubstraitPlanRequest) (flightsql.ActionCreatePreparedStatementResult, error) {
	st, err := s.planStatement(req.GetPlan())
	if err != nil {
		return flightsql.ActionCreatePreparedStatementResult{}, err
	}
	return s.prepare(ctx, st)
}

// ClosePreparedStatement forgets a prepared statement of the caller's.
func (s *Server) ClosePreparedStatement(ctx context.Context, req flightsql.ActionClosePreparedStatementRequest) error {
	return s.prepared.close(clientOf(ctx), req.GetPreparedStatementHandle())
}

func (s *Server) lookup(ctx context.Context, handle []byte) (*prepared, error) {
	return s.prepared.get(clientOf(ctx), handle)
}

// GetFlightInfoPreparedStatement answers with a ticket that names the
// prepared statement.
func (s *Server) GetFlightInfoPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	p, err := s.lookup(ctx, cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	return s.flightInfo(desc, desc.Cmd, p.schema), nil
}

// GetSchemaPreparedStatement returns a prepared statement's answer schema.
func (s *Server) GetSchemaPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	p, err := s.lookup(ctx, cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(p.schema, s.Alloc)}, nil
}

// DoGetPreparedStatement runs a prepared statement.
func (s *Server) DoGetPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	p, err := s.lookup(ctx, cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, nil, err
	}
	return s.run(ctx, p.st)
}

// DoPutCommandStatementUpdate refuses updates: the catalog is served
// read-only.
func (s *Server) DoPutCommandStatementUpdate(context.Context, flightsql.StatementUpdate) (int64, error) {
	return 0, status.Error(codes.PermissionDenied, "rigel serve: the catalog is served read-only; updates are not taken")
}

// DoPutPreparedStatementQuery would bind parameters; rigel's statements
// take none.
func (s *Server) DoPutPreparedStatementQuery(ctx context.Context, cmd flightsql.PreparedStatementQuery, rdr flight.MessageReader, _ flight.MetadataWriter) ([]byte, error) {
	if _, err := s.lookup(ctx, cmd.GetPreparedStatementHandle()); err != nil {
		return nil, err
	}
	for rdr.Next() {
		if rdr.RecordBatch().NumCols() > 0 {
			return nil, status.Error(codes.Unimplemented, "rigel serve: statement parameters are not supported yet; put the values in the SQL text")
		}
	}
	return cmd.GetPreparedStatementHandle(), nil
}
