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
	node, bad, err := arrowFilesNode(r)
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
	return pruneArrowFiles(s, node, bad, outputMapping(r))
}

// pruneArrowFiles keeps the columns that the read's filter, projection and
// emit use (substrait.Load turns a projection mask into an emit): only
// those are read and uploaded, and a column of a type the device cannot
// hold is an error only when it is used.
func pruneArrowFiles(s *stream, node *physical.ArrowFiles, bad map[int]error, emit []int32) (*stream, error) {
	used := map[int]bool{}
	gpu.MarkColumns(s.filter, used)
	kept := map[int]bool{} // the outputs the emit keeps
	for i := range s.exprs {
		kept[i] = emit == nil
	}
	for _, j := range emit {
		kept[int(j)] = true // out of range: rel() reports it
	}
	for i, e := range s.exprs {
		if kept[i] {
			gpu.MarkColumns(e, used)
		}
	}
	for i := range node.Columns {
		if used[i] && bad[i] != nil {
			return nil, bad[i]
		}
	}
	if len(used) == 0 {
		// count(*) alone reads no column, but the rows are counted from
		// a column: keep one.
		for i := range node.Columns {
			if bad[i] == nil {
				used[i] = true
				break
			}
		}
		if len(used) == 0 {
			return nil, bad[0]
		}
	}
	pruned := &physical.ArrowFiles{Items: node.Items}
	remap := map[int]int{}
	for i, c := range node.Columns {
		if used[i] {
			remap[i] = len(pruned.Columns)
			pruned.Columns = append(pruned.Columns, c)
			pruned.Types = append(pruned.Types, node.Types[i])
		}
	}
	out := &stream{src: pruned, filter: gpu.Renumbered(s.filter, remap), exprs: make([]*gpu.Expr, len(s.exprs))}
	for i, e := range s.exprs {
		if kept[i] {
			out.exprs[i] = gpu.Renumbered(e, remap)
		} else {
			// An output the emit drops (rel() applies the emit next):
			// any column of the pruned read holds its place.
			out.exprs[i] = gpu.Col(0, pruned.Types[0])
		}
	}
	return out, nil
}

// arrowFilesNode is the node reading the base schema's columns of a
// LocalFiles read of Arrow IPC files (without its filter and projection).
// A column of a type the device cannot hold gets a placeholder type, and
// its error in bad.
func arrowFilesNode(r *plan.LocalFileReadRel) (*physical.ArrowFiles, map[int]error, error) {
	files, err := ipcfiles.Items(r.ToProto().GetRead().GetLocalFiles())
	if err != nil {
		return nil, nil, fmt.Errorf("ReadRel %w", err)
	}
	base := r.BaseSchema()
	if len(base.Names) != len(base.Struct.Types) {
		return nil, nil, fmt.Errorf("ReadRel LocalFiles of Arrow IPC files with a nested base schema: rigel reads top-level columns only")
	}
	if len(base.Names) == 0 {
		return nil, nil, fmt.Errorf("ReadRel LocalFiles of Arrow IPC files with an empty base schema: no column would carry the row count")
	}
	node := &physical.ArrowFiles{Items: files, Columns: base.Names}
	bad := map[int]error{}
	for i, ft := range base.Struct.Types {
		gt, err := gpuType(ft)
		if err != nil {
			bad[i] = fmt.Errorf("ReadRel LocalFiles (Arrow IPC) column %s: %w", base.Names[i], err)
			gt = gpu.Type{Kind: gpu.Bool, Nullable: true}
		}
		node.Types = append(node.Types, gt)
	}
	return node, bad, nil
}

// arrowFilesInput gives a fallback's SQL the rows of the Arrow IPC files it
// reads (DuckDB cannot read them): the files become an input of f, read
// and registered as a table when f runs. Used where the read itself cannot
// run on the device (its filter, or a subquery holding it, falls back).
func arrowFilesInput(f *physical.Fallback) func(r *plan.LocalFileReadRel) (string, error) {
	return func(r *plan.LocalFileReadRel) (string, error) {
		node, bad, err := arrowFilesNode(r)
		if err != nil {
			return "", err
		}
		for i := range node.Columns {
			if bad[i] != nil { // the SQL reads every column
				return "", bad[i]
			}
		}
		name := fmt.Sprintf("rigel_input_%d", len(f.Inputs))
		f.Inputs = append(f.Inputs, node)
		f.InputNames = append(f.InputNames, name)
		return name, nil
	}
}
