package translate

import (
	"fmt"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/internal/ipcfiles"
	"github.com/rigel-db/rigel/physical"
	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// localFiles translates a ReadRel over LocalFiles. Arrow IPC files are read
// by rigel itself (physical.ArrowFiles: arrow-go reads them at run time and
// the device gets their columns), since DuckDB has no built-in Arrow IPC
// reader. Other formats are unsupported here, so that the relation falls
// back to DuckDB's read_parquet / read_csv (fallback/sqlfiles.go).
//
// What the read says is honoured or refused, never ignored: every item
// (their union, in order); paths, file:// URIs, globs and folders;
// partition_index; the base schema, which every file must hold by name and
// type; the filter and the projection. Byte ranges (start/length) are
// refused (ipcfiles.Items).
func (t *translator) localFiles(r *plan.LocalFileReadRel) (*stream, error) {
	items := r.ToProto().GetRead().GetLocalFiles().GetItems()
	arrowItems := 0
	for _, it := range items {
		if it.GetArrow() != nil {
			arrowItems++
		}
	}
	if len(items) > 0 && arrowItems == 0 {
		// The same words as any relation the device does not run: the
		// fallback's DuckDB readers take Parquet and CSV.
		return nil, unsupported(fmt.Sprintf("relation %s", substrait.RelName(r)))
	}
	node, err := arrowFilesNode(r)
	if err != nil {
		return nil, err
	}
	s := identity(node)
	// A best_effort_filter may be ignored: the plan re-checks it above.
	if f := r.Filter(); f != nil {
		cond, err := exprConv{s.exprs}.convert(f)
		if err != nil {
			return nil, fmt.Errorf("ReadRel LocalFiles filter: %w", err)
		}
		s.filter = cond
	}
	if p := r.Projection(); p != nil {
		cols, err := maskColumns(p, len(node.Types))
		if err != nil {
			return nil, fmt.Errorf("ReadRel LocalFiles projection: %w", err)
		}
		exprs := make([]*gpu.Expr, len(cols))
		for i, c := range cols {
			exprs[i] = s.exprs[c]
		}
		s.exprs = exprs
	}
	return s, nil
}

// arrowFilesNode is the node reading the base schema's columns of a
// LocalFiles read of Arrow IPC files (without its filter and projection).
func arrowFilesNode(r *plan.LocalFileReadRel) (*physical.ArrowFiles, error) {
	files, err := ipcfiles.Items(r.ToProto().GetRead().GetLocalFiles())
	if err != nil {
		return nil, fmt.Errorf("ReadRel %w", err)
	}
	base := r.BaseSchema()
	if len(base.Names) != len(base.Struct.Types) {
		return nil, fmt.Errorf("ReadRel LocalFiles of Arrow IPC files with a nested base schema: rigel reads top-level columns only")
	}
	node := &physical.ArrowFiles{Items: files, Columns: base.Names}
	for i, ft := range base.Struct.Types {
		gt, err := gpuType(ft)
		if err != nil {
			return nil, fmt.Errorf("ReadRel LocalFiles (Arrow IPC) column %s: %w", base.Names[i], err)
		}
		node.Types = append(node.Types, gt)
	}
	return node, nil
}

// arrowFilesInput gives a fallback's SQL the rows of the Arrow IPC files it
// reads (DuckDB cannot read them): the files become an input of f, read
// and registered as a table when f runs. Used where the read itself cannot
// run on the device (its filter, or a subquery holding it, falls back).
func arrowFilesInput(f *physical.Fallback) func(r *plan.LocalFileReadRel) (string, error) {
	return func(r *plan.LocalFileReadRel) (string, error) {
		node, err := arrowFilesNode(r)
		if err != nil {
			return "", err
		}
		name := fmt.Sprintf("rigel_input_%d", len(f.Inputs))
		f.Inputs = append(f.Inputs, node)
		f.InputNames = append(f.InputNames, name)
		return name, nil
	}
}
