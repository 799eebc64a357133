package physical

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/internal/arrowrec"
)

// Fallback runs a subtree the device cannot run as SQL on the host database
// (DuckDB): its inputs' device columns are downloaded to Arrow and
// registered under InputNames (columns c0, c1, ...), the SQL runs there,
// and its result columns are uploaded back. Types are the SQL result's
// column types, which the SQL casts to what the plan declares.
type Fallback struct {
	SQL        string
	Inputs     []Node
	InputNames []string
	Types      []gpu.Type
	// Reason says why this subtree is not on the device (EXPLAIN shows it).
	Reason string
}

func (f *Fallback) OutputTypes() []gpu.Type { return f.Types }
func (f *Fallback) Children() []Node        { return f.Inputs }
func (f *Fallback) Describe() string {
	in := ""
	if len(f.InputNames) > 0 {
		in = " over " + strings.Join(f.InputNames, ", ")
	}
	return fmt.Sprintf("Fallback DuckDB SQL%s (reason: %s): %s", in, f.Reason, f.SQL)
}

// SQLRunner runs a fallback's SQL over Arrow inputs registered under names,
// returning the whole result (fallback.Runner for DuckDB).
type SQLRunner interface {
	RunOver(ctx context.Context, query string, names []string, inputs []arrow.RecordBatch) (arrow.RecordBatch, error)
}

// HasFallback reports whether any node of the plan is a Fallback.
func HasFallback(root Node) bool {
	return len(FallbackReasons(root)) > 0
}

// FallbackReasons lists the reasons of the plan's Fallback nodes, in plan
// order (for the query log and results).
func FallbackReasons(root Node) []string {
	var out []string
	var walk func(n Node)
	walk = func(n Node) {
		if f, ok := n.(*Fallback); ok {
			out = append(out, f.Reason)
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(root)
	return out
}

// fallback downloads the inputs, runs the SQL and uploads its result.
func (r *run) fallback(ctx context.Context, f *Fallback, ins [][]gpu.Column) ([]gpu.Column, error) {
	if r.x.SQL == nil {
		return nil, fmt.Errorf("no host database to run it on (it falls back because %s): %w", f.Reason, gpu.ErrUnsupported)
	}
	recs := make([]arrow.RecordBatch, len(ins))
	defer func() {
		for _, rec := range recs {
			if rec != nil {
				rec.Release()
			}
		}
	}()
	for i, cols := range ins {
		rec, err := r.download(ctx, f.Inputs[i].OutputTypes(), cols)
		if err != nil {
			return nil, fmt.Errorf("input %d: %w", i, err)
		}
		recs[i] = rec
	}
	res, err := r.x.SQL.RunOver(ctx, f.SQL, f.InputNames, recs)
	if errors.Is(err, arrowrec.ErrTooLarge) {
		// An answer this large would not fit the device either: the
		// engine runs the whole query on DuckDB, which streams it.
		return nil, fmt.Errorf("%w: %w", err, gpu.ErrOutOfMemory)
	}
	if err != nil {
		return nil, err
	}
	defer res.Release()
	if int(res.NumCols()) != len(f.Types) {
		return nil, fmt.Errorf("the SQL gave %d columns, the plan wants %d", res.NumCols(), len(f.Types))
	}
	out := make([]gpu.Column, len(f.Types))
	for i, want := range f.Types {
		got, err := gpu.TypeOf(res.Column(i).DataType(), true)
		if err != nil {
			return nil, fmt.Errorf("result column %d: %w", i, err)
		}
		if got.Kind != want.Kind || got.Precision != want.Precision || got.Scale != want.Scale {
			return nil, fmt.Errorf("result column %d is %s, the plan wants %s", i, got, want)
		}
		col, err := r.x.Dev.Upload(ctx, res.Column(i))
		if err != nil {
			return nil, fmt.Errorf("result column %d: %w", i, err)
		}
		out[i] = col
		r.keep([]gpu.Column{col})
	}
	return out, nil
}

// download copies device columns into one Arrow record with columns c0...
func (r *run) download(ctx context.Context, types []gpu.Type, cols []gpu.Column) (arrow.RecordBatch, error) {
	arrays := make([]arrow.Array, len(cols))
	defer func() {
		for _, a := range arrays {
			if a != nil {
				a.Release()
			}
		}
	}()
	if bd, ok := r.x.Dev.(gpu.BatchDownloader); ok {
		all, err := bd.DownloadAll(ctx, cols)
		if err != nil {
			return nil, err
		}
		copy(arrays, all)
	} else {
		for i, c := range cols {
			a, err := r.x.Dev.Download(ctx, c)
			if err != nil {
				return nil, err
			}
			arrays[i] = a
		}
	}
	return arrowrec.Positional(arrays), nil
}
