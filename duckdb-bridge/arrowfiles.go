package duckdbbridge

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/fallback"
)

// fallbackArrow runs a whole plan's SQL on DuckDB over the Arrow IPC files
// it reads (fallback.PlanSQLArrow): rigel reads the files (those the
// engine's file policy allows), since DuckDB has no built-in Arrow IPC
// reader, and registers their rows as the tables the SQL names. A plan
// without such reads runs as plain SQL.
func (e *Engine) fallbackArrow(ctx context.Context, query string, reads []fallback.ArrowRead) (*Result, error) {
	if len(reads) == 0 {
		return e.fallback(ctx, query)
	}
	start := time.Now()
	names := make([]string, len(reads))
	recs := make([]arrow.RecordBatch, 0, len(reads))
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for i, r := range reads {
		rec, err := r.Read(ctx, e.files)
		if err != nil {
			return nil, err
		}
		names[i] = r.Name
		recs = append(recs, rec)
	}
	rec, err := e.runner().RunOver(ctx, query, names, recs)
	if err != nil {
		return nil, err
	}
	return &Result{Record: rec, Where: OnFallback, ExecNanos: time.Since(start).Nanoseconds()}, nil
}
