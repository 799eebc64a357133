package physical

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/internal/ipcfiles"
)

// ArrowFiles reads Arrow IPC files (a Substrait ReadRel over LocalFiles in
// "arrow" format) when the plan runs, and uploads their columns to the
// device. The files are read at every run, not cached: unlike a database's
// tables, nobody tells rigel when a file changes. Only files the
// executor's Files policy allows are read.
type ArrowFiles struct {
	Items   []ipcfiles.Item
	Columns []string   // the base schema's names, matched by name in each file
	Types   []gpu.Type // the base schema's types, which each file must hold
}

func (a *ArrowFiles) OutputTypes() []gpu.Type { return a.Types }
func (a *ArrowFiles) Children() []Node        { return nil }
func (a *ArrowFiles) Describe() string {
	items := make([]string, len(a.Items))
	for i, it := range a.Items {
		items[i] = it.String()
	}
	return fmt.Sprintf("ArrowFiles %s [%s]", strings.Join(items, ", "), strings.Join(a.Columns, ", "))
}

// arrowFiles reads the files and uploads their columns.
func (r *run) arrowFiles(ctx context.Context, a *ArrowFiles) ([]gpu.Column, error) {
	cols := make([]ipcfiles.Column, len(a.Columns))
	for i, name := range a.Columns {
		want := a.Types[i]
		cols[i] = ipcfiles.Column{Name: name, NotNull: !want.Nullable, Check: func(f arrow.Field) error {
			return sameFileType(want, f.Type)
		}}
	}
	arrays, err := r.x.Files.Read(ctx, a.Items, cols)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, arr := range arrays {
			arr.Release()
		}
	}()
	out := make([]gpu.Column, 0, len(arrays))
	for i, arr := range arrays {
		col, err := r.x.Dev.Upload(ctx, arr)
		if err != nil {
			return nil, fmt.Errorf("%s: column %s: %w", a.Describe(), a.Columns[i], err)
		}
		out = append(out, r.keep([]gpu.Column{col})...)
		if got := col.Type(); got.Kind != a.Types[i].Kind || got.Scale != a.Types[i].Scale {
			return nil, fmt.Errorf("%s: column %s uploads as %s, the plan expects %s", a.Describe(), a.Columns[i], got, a.Types[i])
		}
		r.st.Scan.BytesFromHost += arrayBytes(arr)
	}
	return out, nil
}

// sameFileType says whether a file's Arrow type is the plan's column type:
// the same kind and, for decimals, the same precision and scale. No cast
// is made: a file holding other types than the plan declares is an error
// naming both (DuckDB would cast; a reader that silently narrows could
// change values).
func sameFileType(want gpu.Type, dt arrow.DataType) error {
	got, err := gpu.TypeOf(dt, true)
	if err != nil {
		return fmt.Errorf("the plan declares %s but the file holds %s, which rigel cannot read", kindName(want), dt)
	}
	same := got.Kind == want.Kind
	if want.Kind == gpu.Decimal64 || want.Kind == gpu.Decimal128 {
		same = got.Precision == want.Precision && got.Scale == want.Scale
	}
	if !same {
		return fmt.Errorf("the plan declares %s but the file holds %s", kindName(want), dt)
	}
	return nil
}

// kindName is the plan's type in words (without nullability, which the
// null check reports).
func kindName(t gpu.Type) string {
	switch t.Kind {
	case gpu.Decimal64, gpu.Decimal128:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case gpu.Dict:
		return "string"
	}
	return t.WithNullable(false).String()
}
