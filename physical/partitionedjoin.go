package physical

import (
	"context"
	"fmt"
	"math/bits"
	"sync"

	"github.com/rigel-db/rigel/gpu"
)

// PartitionedJoin runs a join whose sides do not fit in the device's
// memory budget together (a grace hash join; partitionplan.go decides
// where). Its build side runs first; when its output, measured, does not
// fit, it and the probe side are cut into partitions by a hash of their
// first join key (partitionCut), each side's run a segment at a time
// where it streams a scan, each piece copied into host memory as the
// device holds it (gpu.Spiller) and freed on the device. Then, a partition
// at a time, both sides' pieces come back and Body, the join and the
// operators above it up to where the partitions' results meet, runs over
// them (run.partitionedJoin). Rows with
// equal keys fall in the same partition, and every row in exactly one (a
// null key in the first), so every join type keeps its meaning: a left
// row's matches, or its lack of any, are all in its partition.
//
// The partitions' results meet as the segments' of a Chunked do (an
// aggregate merged, a sort with a limit sorted again), or are put
// together as they are where Body ends in neither.
type PartitionedJoin struct {
	Body  Node
	Join  Node // the join in Body whose inputs are Sides' slots
	Sides [2]*PartitionSide
	Parts int // the most partitions it runs in
	// Merge and Final, when Body ends in an aggregate: see Chunked.
	Merge, Final *gpu.Pipeline
	// Bytes is the plan's estimate of the join's inputs (for EXPLAIN),
	// ProbeBytes of its probe side (Left), Budget the device memory they
	// had to fit.
	Bytes, ProbeBytes, Budget int64
}

// PartitionSide is one input of a PartitionedJoin: the plan under it
// (Input) and the leaf that stands for one partition of it in Body.
type PartitionSide struct {
	Input Node
	Key   int // Input's column the partitions are cut by
	// Stream, when set, is a scan under Input whose run takes it a
	// segment of SegmentRows rows at a time (Rows in all).
	Stream      *Scan
	SegmentRows int64
	Rows        int64
	Slot        *PartitionSlot
	left        bool
	// cuts are the pipelines that cut the side, by partition count, made
	// once: the device remembers a pipeline's generated source by the
	// pipeline (gpu/cuda's srcmemo.go), and new ones every run would
	// generate their sources again and push others out of its memo.
	mu   sync.Mutex
	cuts map[int]*partitionCut
}

// cut is the cut of the side into parts partitions.
func (s *PartitionSide) cut(parts int) *partitionCut {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cuts[parts]
	if c == nil {
		c = newPartitionCut(s.Input.OutputTypes(), s.Key, parts)
		if s.cuts == nil {
			s.cuts = map[int]*partitionCut{}
		}
		s.cuts[parts] = c
	}
	return c
}

// PartitionSlot is a leaf of a PartitionedJoin's Body: one partition of
// a side, given to Body's run by the PartitionedJoin.
type PartitionSlot struct{ side *PartitionSide }

func (s *PartitionSlot) OutputTypes() []gpu.Type { return s.side.Input.OutputTypes() }

// Children is the side's input. The PartitionedJoin gives Body's run the
// slot's output (a partition); where it does not (the probe side of a
// join whose build side fit), the slot runs its input.
func (s *PartitionSlot) Children() []Node { return []Node{s.side.Input} }
func (s *PartitionSlot) Describe() string {
	which := "right"
	if s.side.left {
		which = "left"
	}
	d := fmt.Sprintf("Partition of the %s side, cut by the hash of #%d", which, s.side.Key)
	if s.side.Stream != nil {
		segs := (s.side.Rows + s.side.SegmentRows - 1) / max(s.side.SegmentRows, 1)
		d += fmt.Sprintf(", %s streamed in %d segment(s) of %d rows", s.side.Stream.Table, max(segs, 1), s.side.SegmentRows)
	}
	return d
}

func (p *PartitionedJoin) OutputTypes() []gpu.Type { return p.Body.OutputTypes() }

// Children is Body, for EXPLAIN and plan walks; the run runs it a
// partition at a time (run.partitionedJoin).
func (p *PartitionedJoin) Children() []Node     { return []Node{p.Body} }
func (p *PartitionedJoin) execChildren() []Node { return nil }
func (p *PartitionedJoin) Describe() string {
	return fmt.Sprintf("PartitionedJoin in %d partitions (its inputs would take about %s, the device budget is %s)",
		p.Parts, gpu.SizeText(p.Bytes), gpu.SizeText(p.Budget))
}

// partitionPieces are one side's partitions held in host memory: for
// each partition the pieces its segments gave, each a column set as the
// device held it, and a piece with no rows (kept on the device, where it
// takes nothing) for a partition no row fell in.
type partitionPieces struct {
	held  [][][]gpu.HostColumn
	empty [][]gpu.Column
	bytes int64
}

func (pp *partitionPieces) release() {
	for _, part := range pp.held {
		for _, piece := range part {
			releaseHeld(piece)
		}
	}
	releaseParts(pp.empty)
	pp.held, pp.empty = nil, nil
}

// partitionedJoin runs p. The build side (Right) runs first, its output
// kept on the device while it fits beside the cache (the plan's estimate
// is an upper bound) and the join then runs over it whole (buildFits);
// past that its output goes to host memory, is cut into as many
// partitions as its size needs (partsFor), and so is the probe side; Body
// runs a partition at a time.
func (r *run) partitionedJoin(ctx context.Context, p *PartitionedJoin) ([]gpu.Column, error) {
	sp, ok := r.x.Dev.(gpu.Spiller)
	if !ok {
		return nil, fmt.Errorf("a partitioned join on a device that cannot copy columns to host memory: %w", gpu.ErrUnsupported)
	}
	out, err := r.collectSide(ctx, sp, p.Sides[1], p.Budget/residentShare/hashTableShare)
	defer out.release()
	if err != nil {
		return nil, err
	}
	ns := r.nodeStats(p) // EXPLAIN ANALYZE: the partitions the join ran in
	ns.Partitions, ns.PartitionBytes = 1, out.bytes
	if out.host == nil {
		return r.buildFits(ctx, p, out.dev)
	}
	parts := max(p.partsFor(out.bytes), 2)
	ns.Partitions = parts
	build := newPartitionPieces(parts)
	defer build.release()
	pc := p.Sides[1].cut(parts)
	for i, piece := range out.host {
		cols, err := restoreColumns(ctx, sp, piece)
		if err != nil {
			return nil, err
		}
		err = build.cut(ctx, r.x.Dev, sp, pc, cols)
		releaseColumns(cols)
		if err != nil {
			return nil, err
		}
		releaseHeld(piece)
		out.host[i] = nil
	}
	given := map[Node][]gpu.Column{}
	slot := func(n Node) bool { return n == Node(p.Sides[0].Slot) || n == Node(p.Sides[1].Slot) }
	if err := r.runResident(ctx, p.Body, slot, given); err != nil {
		return nil, err
	}
	probe := newPartitionPieces(parts)
	defer probe.release()
	pc = p.Sides[0].cut(parts)
	if err := r.runSide(ctx, p.Sides[0], func(_ *run, out []gpu.Column) error {
		return probe.cut(ctx, r.x.Dev, sp, pc, out)
	}); err != nil {
		return nil, err
	}
	ns.PartitionBytes = probe.bytes + build.bytes
	if held := probe.bytes + build.bytes; held > hostColumnLimit() {
		return nil, fmt.Errorf("a partitioned join holds %s of its inputs in host memory, more than the %s it may (%w)",
			gpu.SizeText(held), gpu.SizeText(hostColumnLimit()), gpu.ErrOutOfMemory)
	}
	var outs [][]gpu.Column
	defer func() { releaseParts(outs) }()
	for k := range parts {
		sub := r.subRun(given)
		out, err := func() ([]gpu.Column, error) {
			defer r.endSubRun(sub)
			for i, pp := range []*partitionPieces{probe, build} {
				cols, err := sub.restorePartition(ctx, sp, pp, k)
				if err != nil {
					return nil, err
				}
				sub.given[p.Sides[i].Slot] = cols
			}
			out, err := sub.node(ctx, p.Body)
			if err != nil {
				return nil, err
			}
			return sub.handOver(ctx, out)
		}()
		if err != nil {
			return nil, fmt.Errorf("partition %d of %d of a partitioned join: %w", k+1, parts, err)
		}
		outs = append(outs, out)
	}
	return r.mergeParts(ctx, p.Body, p.Merge, p.Final, outs, "partitioned join")
}

// partsFor is the partitions p runs in when its build side holds bytes:
// enough for one partition of it and its hash table, and of the probe
// side as the plan estimated it, to take a partitionShare of the budget;
// a power of two at most Parts. One when the build side fits whole.
func (p *PartitionedJoin) partsFor(bytes int64) int {
	if bytes*hashTableShare <= p.Budget/residentShare {
		return 1
	}
	per := max(p.Budget/partitionShare, 1)
	return min(powerOfTwoAtLeast((p.ProbeBytes+bytes*hashTableShare+per-1)/per), p.Parts)
}

// powerOfTwoAtLeast is the least power of two not below n (1 for n <= 1).
func powerOfTwoAtLeast(n int64) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len64(uint64(n-1))
}

// buildFits runs p's join over its build side whole (build, the
// caller's), the probe side as the plan without partitions would: a
// segment of its streamed scan at a time where the join's type gives a
// segment's part of the output (JoinType.streamsSide), else whole.
func (r *run) buildFits(ctx context.Context, p *PartitionedJoin, build [][]gpu.Column) ([]gpu.Column, error) {
	given := map[Node][]gpu.Column{}
	cols := build[0]
	if len(build) > 1 {
		var err error
		if cols, err = r.x.Dev.Concat(ctx, build); err != nil {
			return nil, fmt.Errorf("putting the build side's %d parts together: %w", len(build), err)
		}
		r.keep(cols)
	}
	given[p.Sides[1].Slot] = cols
	probe := p.Sides[0]
	if probe.Stream == nil || !joinOf(p.Join).Type.streamsSide(true) {
		sub := r.subRun(given)
		defer r.endSubRun(sub)
		out, err := sub.node(ctx, p.Body)
		if err != nil {
			return nil, err
		}
		out, err = sub.handOver(ctx, out)
		if err != nil {
			return nil, err
		}
		return r.keep(out), nil
	}
	var outs [][]gpu.Column
	defer func() { releaseParts(outs) }()
	err := r.streamSegments(ctx, probe.Stream, probe.SegmentRows, p.Body, given, func(sub *run, out []gpu.Column) error {
		out, err := sub.handOver(ctx, out)
		if err == nil {
			outs = append(outs, out)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return r.mergeParts(ctx, p.Body, p.Merge, p.Final, outs, "partitioned join")
}

// runSide runs side's input, whole or a segment of its streamed scan at
// a time, in a run of its own whose intermediates go when it ends, and
// hands use each output.
func (r *run) runSide(ctx context.Context, side *PartitionSide, use func(sub *run, out []gpu.Column) error) error {
	sub := r.subRun(nil)
	defer r.endSubRun(sub)
	if side.Stream == nil {
		out, err := sub.node(ctx, side.Input)
		if err != nil {
			return err
		}
		return use(sub, out)
	}
	return sub.streamSegments(ctx, side.Stream, side.SegmentRows, side.Input, map[Node][]gpu.Column{}, use)
}

// streamSegments runs body over stream a segment at a time: stream's
// columns held on the host, the subtrees of body that do not read it run
// once first (their outputs added to given), then eachSegment.
func (r *run) streamSegments(ctx context.Context, stream *Scan, segRows int64, body Node, given map[Node][]gpu.Column, use func(sub *run, out []gpu.Column) error) error {
	host, err := r.x.Cache.hostColumns(ctx, r.x.Source, stream, segRows)
	if err != nil {
		return err
	}
	defer r.x.Cache.unpinHost(host)
	if err := r.runResident(ctx, body, func(n Node) bool { return n == Node(stream) }, given); err != nil {
		return err
	}
	return r.eachSegment(ctx, stream, segRows, host, body, given, use)
}

// sideOutput is a side's output, its runs' parts kept on the device
// while they fit, in host memory once they do not.
type sideOutput struct {
	dev   [][]gpu.Column
	host  [][]gpu.HostColumn
	bytes int64
}

func (so *sideOutput) release() {
	releaseParts(so.dev)
	for _, piece := range so.host {
		releaseHeld(piece)
	}
	so.dev, so.host = nil, nil
}

// collectSide runs side and keeps its output: on the device while it
// takes at most fit bytes, else all of it in host memory.
func (r *run) collectSide(ctx context.Context, sp gpu.Spiller, side *PartitionSide, fit int64) (*sideOutput, error) {
	so := &sideOutput{}
	err := r.runSide(ctx, side, func(sub *run, out []gpu.Column) error {
		var n int64
		for _, col := range out {
			n += columnBytes(col)
		}
		so.bytes += n
		if so.host == nil && so.bytes <= fit {
			owned, err := sub.handOver(ctx, out)
			if err == nil {
				so.dev = append(so.dev, owned)
			}
			return err
		}
		for len(so.dev) > 0 { // past fit: what the device held goes to host memory
			if err := so.spill(ctx, sp, so.dev[0]); err != nil {
				return err
			}
			releaseColumns(so.dev[0])
			so.dev = so.dev[1:]
		}
		return so.spill(ctx, sp, out)
	})
	if err == nil && so.host != nil && so.bytes > hostColumnLimit() {
		err = fmt.Errorf("a partitioned join's build side takes %s, more than the %s of host memory it may (%w)",
			gpu.SizeText(so.bytes), gpu.SizeText(hostColumnLimit()), gpu.ErrOutOfMemory)
	}
	return so, err
}

func (so *sideOutput) spill(ctx context.Context, sp gpu.Spiller, cols []gpu.Column) error {
	held, err := spillColumns(ctx, sp, cols)
	if err != nil {
		return err
	}
	so.host = append(so.host, held)
	return nil
}

// spillColumns copies cols into host memory (all or none).
func spillColumns(ctx context.Context, sp gpu.Spiller, cols []gpu.Column) ([]gpu.HostColumn, error) {
	held := make([]gpu.HostColumn, 0, len(cols))
	for _, col := range cols {
		h, err := sp.Spill(ctx, col)
		if err != nil {
			releaseHeld(held)
			return nil, fmt.Errorf("copying a partitioned join's column to host memory: %w", err)
		}
		held = append(held, h)
	}
	return held, nil
}

// restoreColumns puts host copies back on the device (all or none); the
// columns are the caller's.
func restoreColumns(ctx context.Context, sp gpu.Spiller, held []gpu.HostColumn) ([]gpu.Column, error) {
	cols := make([]gpu.Column, 0, len(held))
	for _, h := range held {
		col, err := sp.Restore(ctx, h)
		if err != nil {
			releaseColumns(cols)
			return nil, fmt.Errorf("restoring a partitioned join's column: %w", err)
		}
		cols = append(cols, col)
	}
	return cols, nil
}

func newPartitionPieces(parts int) *partitionPieces {
	return &partitionPieces{held: make([][][]gpu.HostColumn, parts), empty: make([][]gpu.Column, parts)}
}

// cut cuts out, a side's output, into pp's partitions by pc.
func (pp *partitionPieces) cut(ctx context.Context, dev gpu.Device, sp gpu.Spiller, pc *partitionCut, out []gpu.Column) error {
	h, err := dev.Run(ctx, pc.hash, out)
	if err != nil {
		return fmt.Errorf("hashing a side's keys: %w", err)
	}
	defer releaseColumns(h)
	hashed := append(append([]gpu.Column{}, out...), h...)
	for k, keep := range pc.keep {
		if err := gpu.CtxErr(ctx); err != nil {
			return err
		}
		piece, err := dev.Run(ctx, keep, hashed)
		if err != nil {
			return fmt.Errorf("cutting partition %d: %w", k+1, err)
		}
		if err := pp.hold(ctx, sp, k, piece); err != nil {
			return err
		}
	}
	return nil
}

// hold copies piece, one partition's rows of a side's output, into host
// memory and frees it on the device (the first piece with no rows stays,
// for a partition no row falls in).
func (pp *partitionPieces) hold(ctx context.Context, sp gpu.Spiller, k int, piece []gpu.Column) error {
	if rowCount(piece) == 0 {
		if pp.empty[k] == nil {
			pp.empty[k] = piece
		} else {
			releaseColumns(piece)
		}
		return nil
	}
	defer releaseColumns(piece)
	held, err := spillColumns(ctx, sp, piece)
	if err != nil {
		return err
	}
	for _, h := range held {
		pp.bytes += h.Bytes()
	}
	pp.held[k] = append(pp.held[k], held)
	if pp.bytes > hostColumnLimit() {
		return fmt.Errorf("a partitioned join's side takes more than the %s of host memory it may (%w)", gpu.SizeText(hostColumnLimit()), gpu.ErrOutOfMemory)
	}
	return nil
}

// restorePartition puts partition k of a side back on the device, its
// pieces put together; the columns are the run's.
func (r *run) restorePartition(ctx context.Context, sp gpu.Spiller, pp *partitionPieces, k int) ([]gpu.Column, error) {
	held := pp.held[k]
	if len(held) == 0 {
		return pp.empty[k], nil
	}
	pieces := make([][]gpu.Column, 0, len(held))
	for _, piece := range held {
		cols, err := restoreColumns(ctx, sp, piece)
		if err != nil {
			releaseParts(pieces)
			return nil, err
		}
		pieces = append(pieces, cols)
	}
	if len(pieces) == 1 {
		return r.keep(pieces[0]), nil
	}
	defer releaseParts(pieces)
	all, err := r.x.Dev.Concat(ctx, pieces)
	if err != nil {
		return nil, fmt.Errorf("putting a partition's %d pieces together: %w", len(pieces), err)
	}
	return r.keep(all), nil
}
