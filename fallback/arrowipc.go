package fallback

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/internal/arrowrec"
	"github.com/rigel-db/rigel/internal/ipcfiles"
	"github.com/rigel-db/rigel/internal/sqltext"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// arrowFiles writes a LocalFiles read of Arrow IPC files as a SELECT over
// the table w.ArrowFiles names, which holds the base schema's columns c0,
// c1, ... (read by rigel: DuckDB has no built-in Arrow IPC reader). The
// read's filter, projection and emit are SQL, as for the other formats.
func (w *Writer) arrowFiles(x *plan.LocalFileReadRel, outer *scope) (string, error) {
	if w.ArrowFiles == nil {
		return "", fmt.Errorf("fallback SQL: LocalFiles of Arrow IPC files: DuckDB has no built-in Arrow IPC file reader, and this query gives it no table of their rows")
	}
	base := x.BaseSchema()
	table, err := w.ArrowFiles(x)
	if err != nil {
		return "", err
	}
	a := w.alias()
	sc, err := castScope(base, func(i int) string { return fmt.Sprintf("%s.c%d", a, i) }, outer)
	if err != nil {
		return "", err
	}
	return w.readBody(x, sc, sqltext.Ident(table)+" AS "+a)
}

// ArrowRead is a LocalFiles read of Arrow IPC files that a query written by
// PlanSQLArrow reads from the table Name (columns c0, c1, ...): Read gives
// its rows, which Runner.RunOver registers under Name.
type ArrowRead struct {
	Name string
	Rel  *plan.LocalFileReadRel
}

// PlanSQLArrow is PlanSQL for a plan whose LocalFiles reads may be Arrow
// IPC files: each such read becomes a table of the returned reads. The
// files are not read here, so that writing the SQL fails only on the plan,
// and reading them fails on the files (with their names).
func PlanSQLArrow(root plan.Rel, names []string) (string, []ArrowRead, error) {
	var reads []ArrowRead
	w := &Writer{ArrowFiles: func(r *plan.LocalFileReadRel) (string, error) {
		name := fmt.Sprintf("rigel_arrow_%d", len(reads))
		reads = append(reads, ArrowRead{Name: name, Rel: r})
		return name, nil
	}}
	q, err := w.planSQL(root, names)
	return q, reads, err
}

// Read reads the files, those the policy files allows, into one record
// with columns c0, c1, ... of the base schema, checking that every file
// holds each column (by name) in the base schema's type, exactly (the
// DuckDB type of both must be the same), and no null in a column the base
// schema declares NOT NULL.
func (r ArrowRead) Read(ctx context.Context, files ipcfiles.Access) (arrow.RecordBatch, error) {
	items, err := ipcfiles.Items(r.Rel.ToProto().GetRead().GetLocalFiles())
	if err != nil {
		return nil, err
	}
	base := r.Rel.BaseSchema()
	if len(base.Names) != len(base.Struct.Types) {
		return nil, fmt.Errorf("LocalFiles of Arrow IPC files with a nested base schema: rigel reads top-level columns only")
	}
	cols := make([]ipcfiles.Column, len(base.Names))
	for i, n := range base.Names {
		pt := base.Struct.Types[i]
		want, err := sqlType(pt)
		if err != nil {
			return nil, fmt.Errorf("LocalFiles column %s: %w", n, err)
		}
		cols[i] = ipcfiles.Column{Name: n, NotNull: pt.GetNullability() == types.NullabilityRequired,
			Check: func(f arrow.Field) error {
				got, err := arrowSQLType(f.Type)
				if err != nil {
					return fmt.Errorf("the plan declares %s but the file holds %s, which rigel cannot give DuckDB", want, f.Type)
				}
				if got != want {
					return fmt.Errorf("the plan declares %s but the file holds %s (%s)", want, f.Type, got)
				}
				return nil
			}}
	}
	arrays, err := files.Read(ctx, items, cols)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, a := range arrays {
			a.Release()
		}
	}()
	return arrowrec.Positional(arrays), nil
}
