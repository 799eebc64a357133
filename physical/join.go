package physical

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rigel-db/rigel/gpu"
)

// JoinType is the semantics of a Join. Left is the probe side (the side
// the outer, semi, anti and single types are about), Right the build side.
type JoinType uint8

const (
	JoinInner JoinType = iota + 1
	JoinLeft           // every left row, right columns null where none matched
	JoinRight          // every right row, left columns null where none matched
	JoinFull           // both
	JoinSemi           // left rows with at least one match; left columns only
	JoinAnti           // left rows without a match; left columns only
	// JoinSingle is JoinLeft where a left row may match at most one right
	// row (a scalar subquery); more is an error, as in DuckDB.
	JoinSingle
)

var joinTypeNames = map[JoinType]string{
	JoinInner: "inner", JoinLeft: "left", JoinRight: "right", JoinFull: "full",
	JoinSemi: "semi", JoinAnti: "anti", JoinSingle: "single",
}

func (t JoinType) String() string { return joinTypeNames[t] }

// LeftOnly reports whether the join gives Left's columns only (semi, anti).
func (t JoinType) LeftOnly() bool { return t == JoinSemi || t == JoinAnti }

// PadsLeft reports whether the join keeps right rows without a match, with
// null left columns (right, full).
func (t JoinType) PadsLeft() bool { return t == JoinRight || t == JoinFull }

// PadsRight reports whether the join keeps left rows without a match, with
// null right columns (left, full, single).
func (t JoinType) PadsRight() bool { return t == JoinLeft || t == JoinFull || t == JoinSingle }

// ErrSubqueryRows is DuckDB's error for a scalar subquery that returned
// more than one row; the engine reports it as the query's error. Devices
// report it as gpu.ErrSubqueryRows, the same error.
var ErrSubqueryRows = gpu.ErrSubqueryRows

// Join matches the rows of Left and Right whose key columns are equal (all
// of them; a null key matches only where NullsEqual says so) and for which
// Residual, over Left's columns followed by Right's, is true. With no keys
// every pair of rows is a candidate (a cross product, for small inputs).
// The output is Left's columns then Right's (Left's only for semi and
// anti), nullable on the side a join pads.
type Join struct {
	Left, Right         Node
	Type                JoinType
	LeftKeys, RightKeys []int
	NullsEqual          []bool
	Residual            *gpu.Expr
}

func (j *Join) Children() []Node { return []Node{j.Left, j.Right} }

func (j *Join) OutputTypes() []gpu.Type {
	lt, rt := j.Left.OutputTypes(), j.Right.OutputTypes()
	if j.Type.LeftOnly() {
		return lt
	}
	out := make([]gpu.Type, 0, len(lt)+len(rt))
	for _, t := range lt {
		out = append(out, t.WithNullable(t.Nullable || j.Type.PadsLeft()))
	}
	for _, t := range rt {
		out = append(out, t.WithNullable(t.Nullable || j.Type.PadsRight()))
	}
	return out
}

func (j *Join) Describe() string {
	d := "HashJoin " + j.Type.String() + " [" + j.keysText() + "]"
	if len(j.LeftKeys) == 0 {
		d = "CrossJoin " + j.Type.String()
	}
	if j.Residual != nil {
		d += " where " + j.Residual.String()
	}
	return d
}

// keysText renders the join's key pairs for EXPLAIN: "L#0 = R#1, L#2 <=> R#0"
// (<=> where nulls are equal). Every node built from a Join shows them so.
func (j *Join) keysText() string {
	keys := make([]string, len(j.LeftKeys))
	for i := range j.LeftKeys {
		op := "="
		if j.NullsEqual != nil && j.NullsEqual[i] {
			op = "<=>"
		}
		keys[i] = fmt.Sprintf("L#%d %s R#%d", j.LeftKeys[i], op, j.RightKeys[i])
	}
	return strings.Join(keys, ", ")
}

// MaxCrossPairs bounds the candidate pairs of a join without equal keys:
// they are listed on the host and uploaded, which suits the small inputs
// such plans have (a scalar subquery's one row) and nothing larger.
const MaxCrossPairs = 1 << 24

// join runs j over its inputs' columns.
func (r *run) join(ctx context.Context, j *Join, left, right []gpu.Column) ([]gpu.Column, error) {
	return r.joinSwapping(ctx, j, left, right, swapBuildRatio)
}

// joinSwapping is join with the hash table on the left side when the
// right side has more than ratio times its rows.
func (r *run) joinSwapping(ctx context.Context, j *Join, left, right []gpu.Column, ratio int) ([]gpu.Column, error) {
	nl, nr := rowCount(left), rowCount(right)
	p, b, err := r.candidates(ctx, j, left, right, nl, nr, ratio)
	if err != nil {
		return nil, err
	}
	if j.Residual != nil {
		if p, b, err = r.residual(ctx, j, left, right, p, b); err != nil {
			return nil, err
		}
	}
	switch j.Type {
	case JoinSemi, JoinAnti:
		rows, err := r.unmatched(ctx, p, nl)
		if err != nil {
			return nil, err
		}
		if j.Type == JoinSemi {
			if rows, err = r.unmatched(ctx, rows, nl); err != nil {
				return nil, err
			}
		}
		return r.gather(ctx, left, rows, false)
	case JoinLeft, JoinSingle, JoinFull:
		lost, err := r.unmatched(ctx, p, nl)
		if err != nil {
			return nil, err
		}
		if j.Type == JoinSingle && p.Len() > nl-lost.Len() {
			return nil, ErrSubqueryRows
		}
		if p, b, err = r.pad(ctx, p, b, lost); err != nil {
			return nil, err
		}
	}
	if j.Type.PadsLeft() {
		lost, err := r.unmatched(ctx, b, nr)
		if err != nil {
			return nil, err
		}
		if b, p, err = r.pad(ctx, b, p, lost); err != nil {
			return nil, err
		}
	}
	lc, err := r.gather(ctx, left, p, j.Type.PadsLeft())
	if err != nil {
		return nil, err
	}
	rc, err := r.gather(ctx, right, b, j.Type.PadsRight())
	if err != nil {
		return nil, err
	}
	return append(lc, rc...), nil
}

// unmatched is Device.Unmatched, its result freed with the run's.
func (r *run) unmatched(ctx context.Context, idx gpu.Column, n int) (gpu.Column, error) {
	rows, err := r.x.Dev.Unmatched(ctx, idx, n)
	if err != nil {
		return nil, err
	}
	r.keep([]gpu.Column{rows})
	return rows, nil
}

// swapBuildRatio: how many times larger than the probe side the plan's
// build side must be for the join to build on the probe side instead.
const swapBuildRatio = 32

// candidates returns the pairs of rows with equal keys, or every pair.
func (r *run) candidates(ctx context.Context, j *Join, left, right []gpu.Column, nl, nr, ratio int) (p, b gpu.Column, err error) {
	if len(j.LeftKeys) == 0 {
		if err := r.checkRows(fmt.Sprintf("a join without equal keys over %d x %d rows", nl, nr), int64(nl)*int64(nr), crossTypes(j)); err != nil {
			return nil, nil, &RunRefusal{Op: RefusedCross, Err: err}
		}
		return r.crossPairs(ctx, nl, nr)
	}
	lk, rk := pick(left, j.LeftKeys), pick(right, j.RightKeys)
	// The hash table goes on the plan's build side unless that side is far
	// larger than the other (an estimate gone wrong): HashJoin's pairs are
	// the same set either way, and the join types are made from the pairs
	// afterwards. TPC-H Q18's plan joins 624 rows to lineitem with lineitem
	// on the build side: 4.4 ms of build at SF10 for 4,368 pairs. Short of
	// that, the plan's choice stands, because pairs come in probe order and
	// operators above may gain from it (an aggregate grouping by the
	// probe side's key finds runs of equal keys). A left join under a
	// ProbePipeline swaps sooner (leftSwapRatio).
	if nr > ratio*nl {
		b, p, err = r.x.Dev.HashJoin(ctx, lk, rk, j.NullsEqual)
	} else {
		p, b, err = r.x.Dev.HashJoin(ctx, rk, lk, j.NullsEqual)
	}
	if err != nil {
		return nil, nil, err
	}
	r.keep([]gpu.Column{p, b})
	return p, b, nil
}

// crossTypes is what a join without equal keys makes for every pair of
// rows before anything filters them: the two row index columns, then the
// columns its residual reads (gathered at every pair) or, without one, the
// output of an inner or outer join (a semi or anti join keeps left rows
// only, no more than the left side has).
func crossTypes(j *Join) []gpu.Type {
	types := []gpu.Type{gpu.JoinIndexType, gpu.JoinIndexType}
	all := append(append([]gpu.Type(nil), j.Left.OutputTypes()...), j.Right.OutputTypes()...)
	switch {
	case j.Residual != nil:
		used := map[int]bool{}
		gpu.MarkColumns(j.Residual, used)
		for i, t := range all {
			if used[i] {
				types = append(types, t)
			}
		}
	case !j.Type.LeftOnly():
		types = append(types, j.OutputTypes()...)
	}
	return types
}

func (r *run) crossPairs(ctx context.Context, nl, nr int) (gpu.Column, gpu.Column, error) {
	if nl == 1 || nr == 1 {
		return r.broadcastPairs(ctx, nl, nr)
	}
	if int64(nl)*int64(nr) > MaxCrossPairs {
		return nil, nil, &RunRefusal{Op: RefusedCross, Err: fmt.Errorf("a join without equal keys over %d x %d rows (more than %d pairs): %w", nl, nr, MaxCrossPairs, gpu.ErrUnsupported)}
	}
	pb := array.NewInt32Builder(memory.DefaultAllocator)
	bb := array.NewInt32Builder(memory.DefaultAllocator)
	defer pb.Release()
	defer bb.Release()
	pb.Reserve(nl * nr)
	bb.Reserve(nl * nr)
	for i := 0; i < nl; i++ {
		if err := gpu.CtxErr(ctx); err != nil {
			return nil, nil, err
		}
		for k := 0; k < nr; k++ {
			pb.Append(int32(i))
			bb.Append(int32(k))
		}
	}
	var cols [2]gpu.Column
	for i, bld := range []*array.Int32Builder{pb, bb} {
		arr := bld.NewArray()
		c, err := r.x.Dev.Upload(ctx, arr)
		arr.Release()
		if err != nil {
			return nil, nil, err
		}
		cols[i] = c
		r.keep([]gpu.Column{c})
	}
	return cols[0], cols[1], nil
}

// broadcastPairs lists the pairs of a cross product with a one-row side
// (a scalar subquery's result, TPC-H Q11 and Q22) on the device: the other
// side's rows in order (the unmatched rows of an empty index) beside a
// column of zeros. Listing them on the host and uploading cost more than the
// whole rest of those queries.
func (r *run) broadcastPairs(ctx context.Context, nl, nr int) (gpu.Column, gpu.Column, error) {
	empty := array.NewInt32Builder(memory.DefaultAllocator).NewArray()
	defer empty.Release()
	none, err := r.x.Dev.Upload(ctx, empty)
	if err != nil {
		return nil, nil, err
	}
	r.keep([]gpu.Column{none})
	rows, err := r.unmatched(ctx, none, nl*nr) // one side has one row
	if err != nil {
		return nil, nil, err
	}
	zeros, err := r.x.Dev.Run(ctx, zerosPipeline, []gpu.Column{rows})
	if err != nil {
		return nil, nil, err
	}
	r.keep(zeros)
	if nr == 1 {
		return rows, zeros[0], nil
	}
	return zeros[0], rows, nil
}

// zerosPipeline writes a zero per row (broadcastPairs), noRowPipeline a
// -1, "no row" (pad). Made once, so that every run hands the device the
// same pipelines.
var (
	zerosPipeline = &gpu.Pipeline{
		Inputs:  []gpu.Type{gpu.JoinIndexType},
		Project: []*gpu.Expr{gpu.Const(gpu.JoinIndexType, gpu.Value{})},
		Sink:    gpu.SinkMaterialize,
	}
	noRowPipeline = &gpu.Pipeline{
		Inputs:  []gpu.Type{gpu.JoinIndexType},
		Project: []*gpu.Expr{gpu.Const(gpu.JoinIndexType, gpu.Value{I64: -1})},
		Sink:    gpu.SinkMaterialize,
	}
)

// residual keeps the pairs for which j.Residual holds: the columns it
// reads are gathered for every pair and one pipeline filters the pairs.
func (r *run) residual(ctx context.Context, j *Join, left, right []gpu.Column, p, b gpu.Column) (gpu.Column, gpu.Column, error) {
	all := append(append([]gpu.Column(nil), left...), right...)
	types := make([]gpu.Type, len(all))
	for i, c := range all {
		types[i] = c.Type()
	}
	pipe, read := residualPipeline(j, types)
	inputs := []gpu.Column{p, b}
	for side, idx := range []gpu.Column{p, b} {
		var cols []gpu.Column
		for _, i := range read {
			if (i < len(left)) == (side == 0) {
				cols = append(cols, all[i])
			}
		}
		if len(cols) == 0 {
			continue
		}
		g, err := r.gather(ctx, cols, idx, false)
		if err != nil {
			return nil, nil, err
		}
		inputs = append(inputs, g...)
	}
	out, err := r.x.Dev.Run(ctx, pipe, inputs)
	if err != nil {
		return nil, nil, fmt.Errorf("join condition %s: %w", j.Residual, err)
	}
	r.keep(out)
	return out[0], out[1], nil
}

// residualPipeline is the pipeline residual runs for j over columns of
// types (Left's then Right's): its inputs are the two row index columns,
// then the columns j.Residual reads (read, in order: Left's, then
// Right's), gathered at every pair; it keeps the pairs the residual holds
// for.
func residualPipeline(j *Join, types []gpu.Type) (pipe *gpu.Pipeline, read []int) {
	used := map[int]bool{}
	gpu.MarkColumns(j.Residual, used)
	inputs := []gpu.Type{gpu.JoinIndexType, gpu.JoinIndexType}
	remap := map[int]int{}
	for i, t := range types {
		if used[i] {
			remap[i] = len(inputs)
			inputs = append(inputs, t)
			read = append(read, i)
		}
	}
	return &gpu.Pipeline{
		Inputs:  inputs,
		Filter:  gpu.Renumbered(j.Residual, remap),
		Project: []*gpu.Expr{gpu.Col(0, gpu.JoinIndexType), gpu.Col(1, gpu.JoinIndexType)},
		Sink:    gpu.SinkMaterialize,
	}, read
}

// pad appends the rows lost (unmatched on one side) to that side's index
// column, and as many "no row" indexes to the other side's.
func (r *run) pad(ctx context.Context, same, other, lost gpu.Column) (gpu.Column, gpu.Column, error) {
	if lost.Len() == 0 {
		return same, other, nil
	}
	none, err := r.x.Dev.Run(ctx, noRowPipeline, []gpu.Column{lost})
	if err != nil {
		return nil, nil, err
	}
	r.keep(none)
	out, err := r.x.Dev.Concat(ctx, [][]gpu.Column{{same, other}, {lost, none[0]}})
	if err != nil {
		return nil, nil, err
	}
	r.keep(out)
	return out[0], out[1], nil
}

func (r *run) gather(ctx context.Context, cols []gpu.Column, idx gpu.Column, padNulls bool) ([]gpu.Column, error) {
	if len(cols) == 0 {
		return nil, nil
	}
	out, err := r.x.Dev.Gather(ctx, cols, idx, padNulls)
	if err != nil {
		return nil, err
	}
	return r.keep(out), nil
}

func pick(cols []gpu.Column, idx []int) []gpu.Column {
	out := make([]gpu.Column, len(idx))
	for i, k := range idx {
		out[i] = cols[k]
	}
	return out
}

// rowCount is the length of a node's output. A node always has at least
// one column: translate keeps one where a plan reads none.
func rowCount(cols []gpu.Column) int {
	if len(cols) == 0 {
		return 0
	}
	return cols[0].Len()
}
