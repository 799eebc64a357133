package cuda

import (
	"fmt"
	"strings"

	"github.com/rigel-db/rigel/gpu"
)

// A probe pipeline whose filter has conjuncts over the probe side alone
// (physical's probe fold puts a side's whole filter there: TPC-H Q3, Q7,
// Q10 and Q21 probe lineitem with its date or flag filter) tests them
// before the lookup: rg_probe_find, generated per pipeline, is
// rg_join_count with the test in front, so a probe row the filter drops
// costs its filter columns' loads and no lookup, and is never written out
// by a filter pipeline before the join. It writes the pairs of each tile
// of joinTile probe rows, as rg_join_count does, and instead of every
// row's representative a list of the rows with a match: each tile's
// matched rows and their representatives from the tile's first entry on
// (in row order; a ballot per warp and one scan per tile place them), and
// their number. join.cu's rg_jn_select joins the tiles' lists into one,
// and the probe kernels walk that list (their selection word) instead of
// every probe row, testing on each pair only the rest of the filter.
//
// Measured at TPC-H SF10 on an H100: walking every probe row instead, the
// warps held one pair in 32 lanes, and Q10's aggregate took 1.7 ms over
// lineitem's 60M rows for its 1.1M pairs, against 1.06 ms over the 14.8M
// rows of the filter pipeline the fold replaced (session 16 device run 1);
// a list made from a rep[] of every row (written, then read by a kernel
// with a block scan per 256 rows) cost 0.49 + 0.24 ms in Q7 (run 2).
//
// Args: np, status, inputs (2 words each), string tables, then from
// S = sinkWord of the find pipeline:
const (
	pfRep     = iota // int32 representatives of the matched rows, written (see below)
	pfClen           // uint32 chain length per representative build row
	pfCounts         // uint64 pairs per tile, written
	pfNTiles         // tiles of joinTile probe rows
	pfMulti          // join.cu's flag word: 0 when every chain is one row
	pfSlots          // the hash table (join_find.cuh)
	pfMask           // its capacity - 1
	pfFast           // 1: one 8-byte key without validity (rg_jn_find8)
	pfNKeys          // key columns
	pfMCounts        // uint64 matched probe rows per tile, written
	pfSel            // int32 matched probe rows, written (see below)
	pfKeys           // the key descriptors, JK_WORDS words each (join.cu's from JA_KEYS)
)

// splitProbeFilter splits a probe pipeline's filter into pre, the
// conjuncts that read only probe columns (below np) and cannot raise an
// error (so that testing them on every probe row, matched or not, raises
// none the pairs would not), and rest, the others. A conjunct is an
// argument of a top-level AND or the condition and value of a guard, CASE
// WHEN a THEN b ELSE false: b is tested only where a holds, so its parts
// may move only when all of a is in pre. Either result may be nil.
func splitProbeFilter(f *gpu.Expr, np int) (pre, rest *gpu.Expr) {
	if f == nil {
		return nil, nil
	}
	var ps, rs []*gpu.Expr
	conjuncts(f, np, &ps, &rs)
	return conjunction(ps), conjunction(rs)
}

func conjuncts(e *gpu.Expr, np int, pre, rest *[]*gpu.Expr) {
	switch {
	case e.Op == gpu.OpAnd:
		for _, a := range e.Args {
			conjuncts(a, np, pre, rest)
		}
	case isGuard(e):
		var ra []*gpu.Expr
		conjuncts(e.Args[0], np, pre, &ra)
		if len(ra) > 0 {
			*rest = append(*rest, e) // whole: b stays behind all of a
			return
		}
		conjuncts(e.Args[1], np, pre, rest)
	case gpu.CannotRaise(e) && probeOnly(e, np):
		*pre = append(*pre, e)
	default:
		*rest = append(*rest, e)
	}
}

// isGuard: CASE WHEN a THEN b ELSE false, which passes a row exactly when
// a and b hold, b being evaluated only where a does.
func isGuard(e *gpu.Expr) bool {
	if e.Op != gpu.OpCase || len(e.Args) != 3 {
		return false
	}
	f := e.Args[2]
	return f.Op == gpu.OpConst && f.Type.Kind == gpu.Bool && !f.Const.Null && f.Const.I64 == 0
}

func probeOnly(e *gpu.Expr, np int) bool {
	_, build := probeSide(np, e)
	return len(build) == 0
}

func conjunction(es []*gpu.Expr) *gpu.Expr {
	switch len(es) {
	case 0:
		return nil
	case 1:
		return es[0]
	}
	return gpu.Call(gpu.OpAnd, gpu.Type{Kind: gpu.Bool, Nullable: true}, es...)
}

// probeFindPipeline is the pipeline rg_probe_find is generated from: p's
// inputs with pre as its filter and nothing projected.
func probeFindPipeline(p *gpu.Pipeline, pre *gpu.Expr) *gpu.Pipeline {
	return &gpu.Pipeline{Inputs: p.Inputs, Filter: pre, Sink: gpu.SinkMaterialize}
}

// probeFindSource generates rg_probe_find for pf (probeFindPipeline),
// whose filter reads only the first np inputs (the probe side's).
func probeFindSource(pf *gpu.Pipeline, packed packedInputs, np int) (string, error) {
	if pf.Filter == nil {
		return "", fmt.Errorf("probe find without a filter")
	}
	if !probeOnly(pf.Filter, np) {
		return "", fmt.Errorf("probe find filter %s reads the build side", pf.Filter)
	}
	var b strings.Builder
	b.WriteString(preludeSrc)
	b.WriteString(joinFindSrc)
	S := sinkWord(pf)
	w := func(k int) int { return S + k }
	b.WriteString("\nextern \"C\" __global__ void __launch_bounds__(JN_THREADS) rg_probe_find(const Args A) {\n")
	b.WriteString("  __shared__ uint64_t kd[JK_MAX * JK_WORDS];\n")
	// wc: the matched rows of each (item, warp) of a tile, then their
	// exclusive scan; tp: the tile's pairs.
	b.WriteString("  __shared__ uint32_t wc[JN_ITEMS * (JN_THREADS / 32)];\n  __shared__ unsigned long long tp;\n")
	// rs: each row's representative, kept for the second pass (in
	// registers, the eight rows' unrolled lookups made the kernel 1.6
	// times slower: session 16 device run 3).
	b.WriteString("  __shared__ int32_t rs[JN_TILE];\n")
	b.WriteString("  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;\n")
	b.WriteString("  if (threadIdx.x == 0) tp = 0;\n")
	fmt.Fprintf(&b, "  const int nk = (int)A.a[%d];\n  rg_jn_load_keys(A, %d, nk, kd);\n", w(pfNKeys), w(pfKeys))
	b.WriteString("  const long long n = (long long)A.a[0];\n")
	fmt.Fprintf(&b, "  int32_t *trep = (int32_t *)A.a[%d], *tsel = (int32_t *)A.a[%d];\n", w(pfRep), w(pfSel))
	fmt.Fprintf(&b, "  const uint32_t *clen = (const uint32_t *)A.a[%d];\n", w(pfClen))
	fmt.Fprintf(&b, "  uint64_t *counts = (uint64_t *)A.a[%d], *mcounts = (uint64_t *)A.a[%d];\n", w(pfCounts), w(pfMCounts))
	fmt.Fprintf(&b, "  const long long ntiles = (long long)A.a[%d];\n", w(pfNTiles))
	fmt.Fprintf(&b, "  const bool unique = *(const uint32_t *)A.a[%d] == 0, fast = A.a[%d] != 0;\n", w(pfMulti), w(pfFast))
	fmt.Fprintf(&b, "  const unsigned long long *slots = (const unsigned long long *)A.a[%d];\n", w(pfSlots))
	fmt.Fprintf(&b, "  const uint64_t mask = A.a[%d];\n", w(pfMask))
	b.WriteString("  for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {\n")
	b.WriteString("    uint64_t pairs = 0;\n")
	b.WriteString("    for (int k = 0; k < JN_ITEMS; k++) {\n      const long long i = t * JN_TILE + k * JN_THREADS + threadIdx.x;\n      int32_t r = -1;\n      if (i < n) {\n")
	g := newExprGen(pf, packed, &b, "        ")
	if err := rowFilter(g); err != nil {
		return "", err
	}
	g.line("if (pass) r = fast ? rg_jn_find8(slots, mask, kd, i) : rg_jn_find(slots, mask, kd, nk, i);")
	g.line("if (r >= 0) pairs += unique ? 1 : clen[r];")
	b.WriteString(`      }
      const unsigned m = __ballot_sync(0xffffffffu, r >= 0);
      rs[k * JN_THREADS + threadIdx.x] = r;
      if (lane == 0) wc[k * (JN_THREADS / 32) + warp] = __popc(m);
    }
    for (int o = 16; o > 0; o >>= 1) pairs += __shfl_down_sync(0xffffffffu, (unsigned long long)pairs, o);
    if (lane == 0 && pairs) atomicAdd(&tp, (unsigned long long)pairs);
    __syncthreads();
    // (item, warp) in row order: rows k * JN_THREADS + warp * 32 + lane.
    if (warp == 0) {
      const uint32_t a = wc[2 * lane], c = wc[2 * lane + 1];
      uint32_t x = a + c;
      for (int o = 1; o < 32; o <<= 1) {
        const uint32_t y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
      }
      wc[2 * lane] = x - a - c;
      wc[2 * lane + 1] = x - c;
      if (lane == 31) {
        mcounts[t] = x;
        counts[t] = tp;
        tp = 0;
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < JN_ITEMS; k++) {
      const int32_t r = rs[k * JN_THREADS + threadIdx.x];
      const unsigned m = __ballot_sync(0xffffffffu, r >= 0);
      if (r >= 0) {
        const long long at = t * JN_TILE + wc[k * (JN_THREADS / 32) + warp] + __popc(m & ((1u << lane) - 1u));
        tsel[at] = (int32_t)(t * JN_TILE + k * JN_THREADS + threadIdx.x);
        trep[at] = r;
      }
    }
    __syncthreads();
  }
}
`)
	return b.String(), nil
}
