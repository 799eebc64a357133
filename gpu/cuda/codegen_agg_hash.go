package cuda

import (
	"fmt"
	"strings"

	"github.com/rigel-db/rigel/gpu"
)

// hashAggLoop generates the row loop of a hash aggregate's rg_agg kernel.
//
// Neighbouring rows often share their group: lineitem is stored in order
// key order, so TPC-H Q18's grouping by l_orderkey sees runs of about four
// equal keys. The loop therefore works a warp at a time: lanes whose key
// equals the previous lane's form a run, each run's partials are combined
// with shuffles (a segmented scan) and only the run's last lane probes the
// table and adds to it. Rows in random key order make runs of one: the
// scans are skipped (the warp has no run of two) and the cost is one
// ballot and KW shuffles per row. Counts of a run are ballot popcounts.
//
// The loop is warp-uniform (every lane of a warp iterates as long as any
// lane has a row) because the shuffles need the whole warp; lanes past n
// take part without a row. Each warp counts the rows it scanned, the rows
// that passed its filter, the runs it added, and the runs starting inside
// the warp and how many of those found their key in the table: from these
// progress counters the host sizes the next table when this one was too
// small (agg_run.go's groupEstimate).
func hashAggLoop(b *strings.Builder, ap *aggPlan) error {
	p := ap.p
	KW := ap.keyWords
	b.WriteString("  const int lane = threadIdx.x & 31;\n  const unsigned FULL = 0xffffffffu;\n  unsigned long long iters = 0, rowsIn = 0, runsIn = 0, innerRuns = 0, innerHits = 0;\n")
	// New slots are counted per block and added to the global fill count
	// fillStep at a time: one word taking an atomic per new group
	// serialized TPC-H Q18's 15M groups. The global count lags by less
	// than fillStep per block, which fillStep keeps under a tenth of the
	// table, so the table stays below 80% full and every probe ends.
	b.WriteString("  __shared__ unsigned blockFill;\n  if (threadIdx.x == 0) blockFill = 0;\n  __syncthreads();\n")
	b.WriteString("  const unsigned fillStep = (unsigned)max(1ull, cap / 10 / gridDim.x);\n")
	loopVar := "i" // the row; a probe's loop entry, whose row is probeRow
	if ap.probe > 0 {
		loopVar = "ix"
	}
	// Once the table is too full a warp that inserts stops: the host grows
	// the table and runs again, and inserting on into a full table would
	// make each probe walk the whole table. Only a warp that inserted since
	// its last look reads the fill count (recheck, warp-uniform): every
	// warp reading it at every step made its one word a hot spot that all
	// of them waited on (TPC-H Q15's aggregate over 60M rows and 100K
	// groups: 1.5 ms at 12% of DRAM bandwidth, device run 1 of session
	// 17). A warp that only finds keys already in the table ends, full
	// table or not; the walks below stop on a full table by themselves.
	b.WriteString("  bool recheck = false;\n")
	// A string key's characters, for hashing and comparing its bytes.
	strKey := map[int]string{} // key word -> its characters
	for ki, k := range p.Keys {
		if e := p.Project[k]; e.Type.Kind == gpu.Str {
			name := fmt.Sprintf("kc%d", ki)
			fmt.Fprintf(b, "  const uint8_t *%s = (const uint8_t *)(A.a[%d] & ~1ull);\n", name, inputWord(e.Col)+2)
			strKey[ap.keyWord[ki]] = name
		}
	}
	fmt.Fprintf(b, "  for (long long %s = blockIdx.x * (long long)blockDim.x + threadIdx.x; %s - lane < n; %s += (long long)gridDim.x * blockDim.x) {\n", loopVar, loopVar, loopVar)
	b.WriteString("    if (recheck && __any_sync(FULL, ((volatile uint32_t *)fill)[0] >= maxFill)) break;\n    recheck = false;\n")
	rowGuard := "i < n"
	if ap.probe > 0 {
		// The pairs of the warp's probe rows, one chain step per turn
		// (warp-uniform: the turns go on while any lane has a pair).
		// Rows scanned are the pairs walked, for groupEstimate.
		fmt.Fprintf(b, "    int32_t bj = ix < n ? ((const int32_t *)A.a[%d])[ix] : -1;\n", sinkWord(p)+probeRepWord)
		b.WriteString("    for (;;) {\n    if (!__any_sync(FULL, bj >= 0) || (recheck && __any_sync(FULL, ((volatile uint32_t *)fill)[0] >= maxFill))) break;\n    recheck = false;\n")
		b.WriteString("    iters += __popc(__ballot_sync(FULL, bj >= 0));\n")
		rowGuard = "bj >= 0"
	} else {
		b.WriteString("    iters++;\n")
	}
	fmt.Fprintf(b, "    bool row = false;\n    uint64_t key[%d] = {0};\n", KW)
	counted, combined := false, false // aggregates needing run counts, run scans
	for j, l := range ap.aggs {
		switch l.a.Kind {
		case gpu.AggCountStar:
			continue
		case gpu.AggCount:
			fmt.Fprintf(b, "    bool a%dn = true;\n", j)
		default:
			fmt.Fprintf(b, "    %s a%dv = 0; bool a%dn = true;\n", ctype(l.arg.Kind), j, j)
			combined = true
		}
		counted = true
	}
	fmt.Fprintf(b, "    if (%s) {\n", rowGuard)
	g := newExprGen(p, ap.packed, b, "      ")
	if ap.probe > 0 {
		g.line("const long long i = %s; (void)i;", probeRow(sinkWord(p)))
		if err := probePreload(g, ap); err != nil {
			return err
		}
	}
	if err := rowFilter(g); err != nil {
		return err
	}
	g.line("if (pass) {")
	g.indent += "  "
	g.line("row = true;")
	pv, pn, err := aggInputs(g, ap)
	if err != nil {
		return err
	}
	for ki, k := range p.Keys {
		packKey(g, ap, ki, p.Project[k].Type, pv[k], pn[k])
	}
	for j, l := range ap.aggs {
		if l.a.Kind == gpu.AggCountStar {
			continue
		}
		if l.a.Kind == gpu.AggCount {
			g.line("a%dn = %s;", j, pn[l.a.Arg])
			continue
		}
		g.line("a%dn = %s; if (!a%dn) a%dv = (%s)%s;", j, pn[l.a.Arg], j, j, ctype(l.arg.Kind), pv[l.a.Arg])
	}
	g.indent = g.indent[:len(g.indent)-2]
	g.line("}")
	b.WriteString("    }\n")

	// Runs: a lane heads a run unless it and the previous lane both have a
	// row with equal keys (for a string key, equal views: equal strings
	// of other views make runs of their own, which add to the same slot).
	b.WriteString("    bool head = !row || lane == 0;\n")
	b.WriteString("    if (!__shfl_up_sync(FULL, (int)row, 1)) head = true;\n")
	for w := 0; w < KW; w++ {
		fmt.Fprintf(b, "    if (__shfl_up_sync(FULL, (unsigned long long)key[%d], 1) != key[%d]) head = true;\n", w, w)
	}
	// A 128-bit sum argument beyond 64 bits: 32 of them could overflow the
	// 128-bit run sum, so that warp makes every row a run of its own and
	// each value reaches the 192-bit table accumulator alone.
	for j, l := range ap.aggs {
		if l.a.Kind == gpu.AggSum && l.arg.Kind == gpu.Decimal128 {
			fmt.Fprintf(b, "    if (__any_sync(FULL, row && !a%dn && (i128)(long long)a%dv != a%dv)) head = true;\n", j, j, j)
		}
	}
	b.WriteString("    const unsigned heads = __ballot_sync(FULL, head);\n")
	b.WriteString("    const unsigned upto = lane == 31 ? FULL : ((2u << lane) - 1u);\n")
	b.WriteString("    const int seg = 31 - __clz(heads & upto);\n")
	if counted {
		b.WriteString("    const unsigned segMask = upto & ~((1u << seg) - 1u);\n")
	}
	b.WriteString("    const bool tail = row && (lane == 31 || ((heads >> (lane + 1)) & 1u));\n")
	b.WriteString("    rowsIn += __popc(__ballot_sync(FULL, row)); runsIn += __popc(__ballot_sync(FULL, tail));\n")
	if combined {
		b.WriteString("    const bool runs = heads != FULL;\n")
	}
	for j, l := range ap.aggs {
		if l.a.Kind == gpu.AggCountStar {
			continue
		}
		fmt.Fprintf(b, "    const unsigned a%dc = __popc(__ballot_sync(FULL, row && !a%dn) & segMask);\n", j, j)
		if l.a.Kind == gpu.AggCount {
			continue
		}
		segScan(b, j, l)
	}

	b.WriteString("    bool inserted = false;\n    if (tail) {\n")
	g = newExprGen(p, ap.packed, b, "      ")
	g.line("uint64_t h = 0x243F6A8885A308D3ull;")
	for w := 0; w < KW; w++ {
		x := fmt.Sprintf("key[%d]", w)
		if cs, ok := strKey[w]; ok {
			x = fmt.Sprintf("rg_str_hash(%s, key[%d])", cs, w)
		}
		g.line("h = (h ^ %s) * 0x9E3779B97F4A7C15ull; h ^= h >> 31;", x)
	}
	g.line("h ^= h >> 29; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 32; h &= cap - 1;")
	g.line("uint64_t slot = ~0ull, probes = 0;")
	g.line("for (;;) {")
	// Slot states: 0 empty, 1 being written, 2 holds a key.
	g.line("  uint32_t st = rg_ld_acquire(&ST[h]);")
	g.line("  if (st == 0) {")
	g.line("    if (atomicCAS(&ST[h], 0u, 1u) == 0u) {")
	for w := 0; w < KW; w++ {
		g.line("      K[h * %d + %d] = key[%d];", KW, w, w)
	}
	g.line("      rg_st_release(&ST[h], 2u);")
	// The fill count is bumped as slots are claimed, not after the warp's
	// probes: counted only after them, a full table went unnoticed while
	// every lane walked it (TPC-H Q11 at SF10: 150 ms).
	g.line("      if ((atomicAdd(&blockFill, 1u) + 1u) %% fillStep == 0u && atomicAdd(fill, fillStep) + fillStep > maxFill) rg_raise(status, RG_TABLE_FULL);")
	g.line("      inserted = true; slot = h; break;")
	g.line("    }")
	// Lost the race: read the state again, with acquire (the CAS's
	// value orders nothing).
	g.line("    st = rg_ld_acquire(&ST[h]);")
	g.line("  }")
	g.line("  while (st == 1) st = rg_ld_acquire(&ST[h]);")
	conds := make([]string, KW)
	for w := 0; w < KW; w++ {
		conds[w] = fmt.Sprintf("((volatile uint64_t *)K)[h * %d + %d] == key[%d]", KW, w, w)
		if cs, ok := strKey[w]; ok {
			conds[w] = fmt.Sprintf("rg_str_eq(%s, ((volatile uint64_t *)K)[h * %d + %d], key[%d])", cs, KW, w, w)
		}
	}
	g.line("  if (%s) { slot = h; break; }", strings.Join(conds, " && "))
	g.line("  h = (h + 1) & (cap - 1);")
	// A long walk may mean the table filled up behind this thread's back
	// (threads already probing finish their run): give up then, or the
	// walks over a full table cost O(capacity) each.
	g.line("  if ((++probes & 31) == 0 && ((volatile uint32_t *)fill)[0] >= maxFill) { rg_raise(status, RG_TABLE_FULL); break; }")
	g.line("  if (probes >= cap) { rg_raise(status, RG_TABLE_FULL); break; }")
	g.line("}")
	g.line("if (slot != ~0ull) {")
	g.line("  uint64_t *R = T + slot * W;")
	g.line("  atomicAdd((unsigned long long *)&R[0], (unsigned long long)(lane - seg + 1));")
	for j, l := range ap.aggs {
		runUpdate(g, j, l)
	}
	g.line("}")
	b.WriteString("    }\n")
	// Runs that start inside the warp follow a row with another key: how
	// often their key is already in the table tells keys that come back
	// (random order) from keys that do not (sorted or clustered order).
	b.WriteString("    innerRuns += __popc(__ballot_sync(FULL, tail && seg > 0)); innerHits += __popc(__ballot_sync(FULL, tail && seg > 0 && !inserted));\n")
	b.WriteString("    recheck = __any_sync(FULL, inserted);\n")
	scanned := "iters * 32ull"
	if ap.probe > 0 {
		fmt.Fprintf(b, "    if (bj >= 0) bj = %s;\n    }\n", probeNextStep(sinkWord(p)))
		scanned = "iters"
	}
	b.WriteString("  }\n")
	b.WriteString("  if (lane == 0 && iters) { atomicAdd(&progress[0], " + scanned + "); atomicAdd(&progress[1], rowsIn); atomicAdd(&progress[2], runsIn); atomicAdd(&progress[3], innerRuns); atomicAdd(&progress[4], innerHits); }\n")
	return nil
}

// segScan combines aggregate j's values over each lane's run (a segmented
// inclusive scan: lane L ends with the combination of lanes seg..L, so a
// run's tail holds the whole run). Nulls hold their aggregate's identity.
func segScan(b *strings.Builder, j int, l aggLayout) {
	v := fmt.Sprintf("a%dv", j)
	isMax := l.a.Kind == gpu.AggMax
	cmp := map[bool]string{true: ">", false: "<"}[isMax]
	switch {
	case l.a.Kind == gpu.AggSum && l.arg.Kind.IsFloat():
		fmt.Fprintf(b, "    double a%ds = a%dn ? 0.0 : (double)%s;\n", j, j, v)
		fmt.Fprintf(b, "    if (runs) for (int d = 1; d < 32; d <<= 1) { const double x = __shfl_up_sync(FULL, a%ds, d); if (lane - d >= seg) a%ds += x; }\n", j, j)
	case l.a.Kind == gpu.AggSum:
		// Values of at most 64 bits: a run of 32 sums exactly in 128 bits
		// (wider decimal values end runs, see hashAggLoop).
		fmt.Fprintf(b, "    i128 a%ds = a%dn ? (i128)0 : (i128)%s;\n", j, j, v)
		fmt.Fprintf(b, "    if (runs) for (int d = 1; d < 32; d <<= 1) {\n")
		fmt.Fprintf(b, "      const uint64_t lo = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)a%ds, d);\n", j)
		fmt.Fprintf(b, "      const uint64_t hi = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)((u128)a%ds >> 64), d);\n", j)
		fmt.Fprintf(b, "      if (lane - d >= seg) a%ds = (i128)((u128)a%ds + (((u128)hi << 64) | lo));\n    }\n", j, j)
	case l.arg.Kind == gpu.Decimal128: // min/max
		fmt.Fprintf(b, "    i128 a%ds = a%dn ? %s : (i128)%s;\n", j, j, map[bool]string{true: "I128(0x8000000000000000ull, 0)", false: "I128(0x7fffffffffffffffull, ~0ull)"}[isMax], v)
		fmt.Fprintf(b, "    if (runs) for (int d = 1; d < 32; d <<= 1) {\n")
		fmt.Fprintf(b, "      const uint64_t lo = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)a%ds, d);\n", j)
		fmt.Fprintf(b, "      const uint64_t hi = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)((u128)a%ds >> 64), d);\n", j)
		fmt.Fprintf(b, "      const i128 x = I128(hi, lo); if (lane - d >= seg && x %s a%ds) a%ds = x;\n    }\n", cmp, j, j)
	case l.arg.Kind.IsFloat():
		fmt.Fprintf(b, "    unsigned long long a%ds = a%dn ? %s : (unsigned long long)rg_f64_key((double)%s);\n", j, j, map[bool]string{true: "0ull", false: "~0ull"}[isMax], v)
		fmt.Fprintf(b, "    if (runs) for (int d = 1; d < 32; d <<= 1) { const unsigned long long x = __shfl_up_sync(FULL, a%ds, d); if (lane - d >= seg && x %s a%ds) a%ds = x; }\n", j, cmp, j, j)
	default:
		fmt.Fprintf(b, "    long long a%ds = a%dn ? %s : (long long)%s;\n", j, j, map[bool]string{true: "(-9223372036854775807LL - 1)", false: "9223372036854775807LL"}[isMax], v)
		fmt.Fprintf(b, "    if (runs) for (int d = 1; d < 32; d <<= 1) { const long long x = __shfl_up_sync(FULL, a%ds, d); if (lane - d >= seg && x %s a%ds) a%ds = x; }\n", j, cmp, j, j)
	}
}

// runUpdate adds a run's combined aggregate j to slot R.
func runUpdate(g *exprGen, j int, l aggLayout) {
	if l.a.Kind == gpu.AggCountStar {
		return
	}
	g.line("  if (a%dc) {", j)
	if l.a.Kind == gpu.AggCount {
		g.line("    atomicAdd((unsigned long long *)&R[%d], (unsigned long long)a%dc);", l.val, j)
		g.line("  }")
		return
	}
	if l.nn > 0 {
		g.line("    atomicAdd((unsigned long long *)&R[%d], (unsigned long long)a%dc);", l.nn, j)
	}
	s := fmt.Sprintf("a%ds", j)
	isMax := l.a.Kind == gpu.AggMax
	fn := map[bool]string{true: "atomicMax", false: "atomicMin"}[isMax]
	switch {
	case l.a.Kind == gpu.AggSum && l.arg.Kind.IsFloat():
		g.line("    atomicAdd((double *)&R[%d], %s);", l.val, s)
	case l.a.Kind == gpu.AggSum:
		g.line("    rg_atomic_add192(&R[%d], %s);", l.val, s)
	case l.arg.Kind == gpu.Decimal128:
		g.line("    rg_atomic_minmax128(&R[%d], %s, %v);", l.val, s, isMax)
	case l.arg.Kind.IsFloat():
		g.line("    %s((unsigned long long *)&R[%d], %s);", fn, l.val, s)
	default:
		g.line("    %s((long long *)&R[%d], %s);", fn, l.val, s)
	}
	g.line("  }")
}
