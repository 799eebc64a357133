package duckdbbridge

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rigel-db/rigel/fallback"
	"github.com/rigel-db/rigel/gpu"
)

// Stream is a query's answer as a stream of Arrow record batches, and where
// it ran. The caller must Release it.
type Stream struct {
	array.RecordReader
	Where  Where
	Reason string // why it fell back; empty otherwise
	Plan   string // EXPLAIN text, when rigel ran it
}

// StreamBatchRows bounds the rows of each batch of a device result in a
// stream, so that one message on the wire stays a few MB.
const StreamBatchRows = 64 * 1024

// QueryStream runs a query (a statement CheckQuery passes) and streams its
// answer. A device result is complete when it comes back (the device
// computes it whole) and is handed out in batches of StreamBatchRows; a
// fallback streams DuckDB's batches as DuckDB produces them.
func (e *Engine) QueryStream(ctx context.Context, query string) (_ *Stream, err error) {
	defer recoverBug(&err)
	if err := e.CheckQuery(ctx, query); err != nil {
		return nil, err
	}
	p, err := e.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	res, reason, err := e.tryDevice(ctx, p, 0)
	if err != nil {
		return nil, err
	}
	if res != nil {
		return &Stream{RecordReader: batchReader(res.Record), Where: res.Where, Plan: res.Plan, Reason: res.Reason}, nil
	}
	rr, err := fallback.RunSQL(ctx, e.db, query)
	if err != nil {
		return nil, err
	}
	return &Stream{RecordReader: rr, Where: OnFallback, Reason: reason}, nil
}

// PlanStream runs a Substrait plan (RunPlan) and streams its answer.
func (e *Engine) PlanStream(ctx context.Context, plan []byte) (*Stream, error) {
	res, err := e.RunPlan(ctx, plan)
	if err != nil {
		return nil, err
	}
	return &Stream{RecordReader: batchReader(res.Record), Where: res.Where, Plan: res.Plan, Reason: res.Reason}, nil
}

// batchReader hands out rec in slices of StreamBatchRows rows (no copies)
// and takes over the caller's reference to rec.
func batchReader(rec arrow.RecordBatch) array.RecordReader {
	defer rec.Release()
	var parts []arrow.RecordBatch
	for lo := int64(0); lo < rec.NumRows(); lo += StreamBatchRows {
		parts = append(parts, rec.NewSlice(lo, min(lo+StreamBatchRows, rec.NumRows())))
	}
	rr, _ := array.NewRecordReader(rec.Schema(), parts) // same schema: cannot fail
	for _, p := range parts {
		p.Release()
	}
	return rr
}

// ResultSchema returns the Arrow schema of a query's answer without
// running it: DuckDB plans the query under a LIMIT 0. A statement that
// cannot be wrapped that way (SHOW, PRAGMA, ...) is run and its schema
// taken.
func (e *Engine) ResultSchema(ctx context.Context, query string) (*arrow.Schema, error) {
	q := strings.TrimRight(strings.TrimSpace(query), "; \t\n")
	rr, err := fallback.RunSQL(ctx, e.db, "SELECT * FROM (\n"+q+"\n) LIMIT 0")
	if err != nil {
		if rr, err = fallback.RunSQL(ctx, e.db, query); err != nil {
			return nil, err
		}
	}
	defer rr.Release()
	return rr.Schema(), nil
}

// PlanSchema returns the Arrow schema of a Substrait plan's answer, or the
// error that running it would give.
func (e *Engine) PlanSchema(plan []byte) (*arrow.Schema, error) {
	p, err := e.PreparePlan(plan)
	if err != nil {
		return nil, err
	}
	types := p.Root.OutputTypes()
	fields := make([]arrow.Field, len(types))
	for i, t := range types {
		fields[i] = arrow.Field{Name: p.Names[i], Type: gpu.ArrowType(t), Nullable: t.Nullable}
	}
	return arrow.NewSchema(fields, nil), nil
}
