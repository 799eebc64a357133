package cuda

import (
	"fmt"
	"strings"

	"github.com/rigel-db/rigel/gpu"
)

// Aggregate strategies.
const (
	// stratDomain: every key has a small known domain (dictionary codes,
	// booleans); the group is an index into a table of domain-product slots
	// and each thread keeps per-group partials in registers, flushed once
	// per warp at the end. No keys is a domain of one group.
	stratDomain = iota + 1
	// stratHash: a global open-addressing table keyed on the packed keys.
	stratHash
)

const (
	maxDomainGroups = 32
	maxDomainRegs   = 160 // per-thread partial registers the domain strategy may use
	// maxKeyWords bounds a hash aggregate's key (its words in registers and
	// in every table slot): TPC-DS groups by up to 15 columns and a null
	// word (q64). The interpreter holds fewer (programKeyWords).
	maxKeyWords = 16
)

// aggLayout places one aggregate in a table slot (64-bit words).
type aggLayout struct {
	a      gpu.Agg
	arg    gpu.Type // argument type (Project[a.Arg]); zero for count(*)
	val    int      // first value word (-1 for count(*): word 0 is the row count)
	words  int      // value words
	nn     int      // word counting non-null arguments: -1 for count(x) and count(*), 0 (the row count) when the argument is not nullable
	minMax bool
}

// aggPlan is everything the generated aggregate kernels and the host-side
// finalization agree on.
type aggPlan struct {
	p         *gpu.Pipeline
	strat     int
	domains   []int // per key: domain size (+1 for the null group when nullable)
	strides   []int
	groups    int   // stratDomain: number of slots
	keyWord   []int // hash: first key word of each key
	nullBit   []int // hash: bit in the null word, -1 when not nullable
	nullWord  int   // hash: index of the null-flags word, -1 when none
	keyWords  int   // hash: words per key
	slotWords int
	aggs      []aggLayout
	// strs: the string tables of the run (OpStrMap keys' dictionaries).
	strs *strTables
	// probe, when > 0, makes the kernel aggregate the pairs of an inner
	// join (RunProbe, codegen_probe_agg.go): the first probe inputs are
	// the probe side's, read at probe row i, the rest the build side's,
	// read at the build row bj of i's hash chain. probeArgs (rep, next, multi, sel)
	// follow the aggregate's own Args words.
	probe     int
	probeArgs []uint64
	// shared, for stratDomain, keeps each thread's per-group partials in
	// shared memory instead of registers (codegen_agg_shared.go); nil
	// when they stay in registers.
	shared *sharedPartials
	// packed are the inputs that arrive packed (packedInputs).
	packed packedInputs
}

// threads is the aggregate kernel's block size.
func (ap *aggPlan) threads() int {
	if ap.shared != nil {
		return sharedAggThreads
	}
	return blockThreads
}

// planAggregate validates an aggregate pipeline and chooses its strategy.
// dictLen gives the dictionary size of each Dict input column (0 if none).
func planAggregate(p *gpu.Pipeline, dictLen []int) (*aggPlan, error) {
	ap := &aggPlan{p: p, slotWords: 1}
	wide := false // a 128-bit min/max: slots of an even number of words
	for _, k := range p.Keys {
		if k < 0 || k >= len(p.Project) {
			return nil, fmt.Errorf("group key #%d out of range (%d projections)", k, len(p.Project))
		}
	}
	for i, a := range p.Aggs {
		l := aggLayout{a: a, val: -1, nn: -1}
		if a.Kind != gpu.AggCountStar {
			if a.Arg < 0 || a.Arg >= len(p.Project) {
				return nil, fmt.Errorf("aggregate #%d: argument #%d out of range", i, a.Arg)
			}
			l.arg = p.Project[a.Arg].Type
		}
		switch a.Kind {
		case gpu.AggCountStar:
		case gpu.AggCount:
			l.words = 1
		case gpu.AggSum:
			switch {
			case l.arg.Kind.IsInteger():
				if a.Type.Kind != gpu.Decimal128 {
					return nil, fmt.Errorf("sum of %s must give decimal128, plan says %s", l.arg, a.Type)
				}
				l.words = 3
			case l.arg.Kind.IsFloat():
				if a.Type.Kind != gpu.Float64 {
					return nil, fmt.Errorf("sum of %s must give float64, plan says %s", l.arg, a.Type)
				}
				l.words = 1
			default:
				return nil, fmt.Errorf("sum of %s: %w", l.arg, gpu.ErrUnsupported)
			}
		case gpu.AggMin, gpu.AggMax:
			l.minMax = true
			if a.Type.Kind != l.arg.Kind {
				return nil, fmt.Errorf("%s of %s gives %s", a.Kind, l.arg, a.Type)
			}
			l.words = 1
			if l.arg.Kind == gpu.Decimal128 {
				// lo, hi (16-byte aligned: sm_90 updates them with one
				// 128-bit CAS), and a lock word for older GPUs.
				l.words = 3
				ap.slotWords += ap.slotWords % 2
				wide = true
			}
		default:
			return nil, fmt.Errorf("aggregate %s: %w", a.Kind, gpu.ErrUnsupported)
		}
		if l.words > 0 {
			l.val = ap.slotWords
			ap.slotWords += l.words
			// The non-null count of a nullable argument gets its own word;
			// that of a non-nullable one is the group's row count, word 0.
			if a.Kind != gpu.AggCount {
				l.nn = 0
				if l.arg.Nullable {
					l.nn = ap.slotWords
					ap.slotWords++
				}
			}
		}
		ap.aggs = append(ap.aggs, l)
	}
	if wide {
		ap.slotWords += ap.slotWords % 2
	}
	// Domain strategy when every key is a bool or a dictionary column.
	ap.strat = stratDomain
	groups := 1
	for _, k := range p.Keys {
		e := p.Project[k]
		d := 0
		switch {
		case e.Type.Kind == gpu.Bool:
			d = 2
		case e.Op == gpu.OpCol && e.Type.Kind == gpu.Dict && e.Col < len(dictLen):
			d = dictLen[e.Col]
		}
		if d == 0 {
			ap.strat = stratHash
			break
		}
		if e.Type.Nullable {
			d++
		}
		ap.domains = append(ap.domains, d)
		groups *= d
		if groups > maxDomainGroups {
			ap.strat = stratHash
			break
		}
	}
	if ap.strat == stratDomain {
		ap.groups = groups
		ap.shared = chooseSharedPartials(ap)
		if ap.shared == nil && groups*ap.regsPerGroup() > maxDomainRegs && len(p.Keys) > 0 {
			ap.strat = stratHash
		}
	}
	if ap.strat == stratDomain {
		s := 1
		ap.strides = make([]int, len(ap.domains))
		for i := len(ap.domains) - 1; i >= 0; i-- {
			ap.strides[i] = s
			s *= ap.domains[i]
		}
		return ap, nil
	}
	ap.domains, ap.strides = nil, nil
	// Hash keys: each key gets its own word (two for decimal128) and the
	// null flags of nullable keys share one more word.
	words := 0
	nullBits := 0
	for _, k := range p.Keys {
		e := p.Project[k]
		w := 1
		switch e.Type.Kind {
		case gpu.Decimal128:
			w = 2
		case gpu.Str:
			// The key word is the view; equal strings may have different
			// views, so hashAggLoop hashes and compares the bytes.
			if e.Op != gpu.OpCol || e.Col < 0 || e.Col >= len(p.Inputs) {
				return nil, fmt.Errorf("str group key %s is not an input column: %w", e, gpu.ErrUnsupported)
			}
		case gpu.Bool, gpu.Int8, gpu.Int16, gpu.Int32, gpu.Date32, gpu.Float32, gpu.Dict, gpu.Int64, gpu.Decimal64, gpu.Float64:
		default:
			return nil, fmt.Errorf("group key of type %s: %w", e.Type, gpu.ErrUnsupported)
		}
		ap.keyWord = append(ap.keyWord, words)
		words += w
		ap.nullBit = append(ap.nullBit, -1)
		if e.Type.Nullable {
			ap.nullBit[len(ap.nullBit)-1] = nullBits
			nullBits++
		}
	}
	ap.nullWord = -1
	if nullBits > 0 {
		ap.nullWord = words
		words++
	}
	ap.keyWords = max(words, 1)
	if ap.keyWords > maxKeyWords || nullBits > 64 {
		return nil, fmt.Errorf("group keys need %d words, at most %d: %w", ap.keyWords, maxKeyWords, gpu.ErrUnsupported)
	}
	return ap, nil
}

// aggInputs loads and evaluates the projections that the aggregate reads
// (its keys and arguments): their value and null expressions, by index.
func aggInputs(g *exprGen, ap *aggPlan) (pv, pn []string, err error) {
	p := ap.p
	used := map[int]bool{}
	for _, k := range p.Keys {
		used[k] = true
	}
	for _, l := range ap.aggs {
		if l.a.Kind != gpu.AggCountStar {
			used[l.a.Arg] = true
		}
	}
	var needed []*gpu.Expr
	for j, e := range p.Project {
		if used[j] {
			needed = append(needed, e)
		}
	}
	loadAll(g, needed...)
	pv = make([]string, len(p.Project))
	pn = make([]string, len(p.Project))
	for j, e := range p.Project {
		if !used[j] {
			continue
		}
		if pv[j], pn[j], err = g.expr(e); err != nil {
			return nil, nil, fmt.Errorf("project #%d: %w", j, err)
		}
	}
	return pv, pn, nil
}

// regsPerGroup estimates the 32-bit registers of one group's partials.
func (ap *aggPlan) regsPerGroup() int {
	r := 1
	for _, l := range ap.aggs {
		nn := 0
		if l.arg.Nullable {
			nn = 1
		}
		switch {
		case l.a.Kind == gpu.AggCountStar:
		case l.a.Kind == gpu.AggCount:
			r += nn
		case l.arg.Kind == gpu.Decimal128 && l.minMax:
			r += 4 + nn
		default:
			r += 2 + nn
		}
	}
	return r
}

// aggregateSource generates rg_agg_init and rg_agg for the plan. Args: n,
// status, inputs..., then table, nslots, keys, fill, capacity, maxFill,
// slot states.
func aggregateSource(ap *aggPlan) (string, error) {
	p := ap.p
	var b strings.Builder
	b.WriteString(preludeSrc)
	S := sinkWord(p)
	W := ap.slotWords
	fmt.Fprintf(&b, "\n#define W %d\n", W)

	// Init: zeros, min/max identities, empty keys.
	fmt.Fprintf(&b, "extern \"C\" __global__ void __launch_bounds__(%d) rg_agg_init(const Args A) {\n", blockThreads)
	fmt.Fprintf(&b, "  uint64_t *T = (uint64_t *)A.a[%d]; const uint64_t ns = A.a[%d]; uint32_t *ST = (uint32_t *)A.a[%d];\n", S, S+1, S+6)
	b.WriteString("  for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < ns; s += (uint64_t)gridDim.x * blockDim.x) {\n")
	b.WriteString("    for (int w = 0; w < W; w++) T[s * W + w] = 0;\n    if (ST) ST[s] = 0;\n")
	for _, l := range ap.aggs {
		if !l.minMax {
			continue
		}
		isMax := l.a.Kind == gpu.AggMax
		switch {
		case l.arg.Kind == gpu.Decimal128:
			if isMax {
				fmt.Fprintf(&b, "    T[s * W + %d] = 0; T[s * W + %d] = 0x8000000000000000ull;\n", l.val, l.val+1)
			} else {
				fmt.Fprintf(&b, "    T[s * W + %d] = ~0ull; T[s * W + %d] = 0x7fffffffffffffffull;\n", l.val, l.val+1)
			}
		case l.arg.Kind.IsFloat():
			if !isMax {
				fmt.Fprintf(&b, "    T[s * W + %d] = ~0ull;\n", l.val)
			}
		default:
			if isMax {
				fmt.Fprintf(&b, "    T[s * W + %d] = 0x8000000000000000ull;\n", l.val)
			} else {
				fmt.Fprintf(&b, "    T[s * W + %d] = 0x7fffffffffffffffull;\n", l.val)
			}
		}
	}
	b.WriteString("  }\n}\n")

	minBlocks := aggMinBlocks
	if ap.shared != nil {
		minBlocks = ap.shared.blocksPerSM()
	}
	fmt.Fprintf(&b, "\nextern \"C\" __global__ void __launch_bounds__(%d, %d) rg_agg(const Args A) {\n", ap.threads(), minBlocks)
	b.WriteString("  const long long n = (long long)A.a[0];\n \n")
	fmt.Fprintf(&b, "  uint64_t *T = (uint64_t *)A.a[%d];\n", S)
	G := ap.groups
	if ap.shared != nil {
		ap.shared.declare(&b, ap)
	} else if ap.strat == stratDomain {
		for g := 0; g < G; g++ {
			fmt.Fprintf(&b, "  uint32_t cnt%d = 0;\n", g)
			for j, l := range ap.aggs {
				declPartial(&b, g, j, l)
			}
		}
	} else {
		// fill: the claimed slots (uint32), then five uint64 progress
		// counters (see hashAggLoop and tableFill).
		fmt.Fprintf(&b, "  uint64_t *K = (uint64_t *)A.a[%d]; uint32_t *fill = (uint32_t *)A.a[%d]; uint32_t *ST = (uint32_t *)A.a[%d];\n", S+2, S+3, S+6)
		fmt.Fprintf(&b, "  unsigned long long *progress = (unsigned long long *)A.a[%d] + 1;\n", S+3)
		fmt.Fprintf(&b, "  const uint64_t cap = A.a[%d], maxFill = A.a[%d];\n", S+4, S+5)
		if err := hashAggLoop(&b, ap); err != nil {
			return "", err
		}
		b.WriteString("}\n")
		b.WriteString(emitSource(ap))
		return b.String(), nil
	}
	g := newExprGen(p, ap.packed, &b, "    ")
	if ap.probe > 0 {
		// One pass of the body per pair of probe row i.
		b.WriteString("  for (long long ix = blockIdx.x * (long long)blockDim.x + threadIdx.x; ix < n; ix += (long long)gridDim.x * blockDim.x) {\n")
		fmt.Fprintf(&b, "    const long long i = %s; (void)i;\n", probeRow(S))
		fmt.Fprintf(&b, "    for (int32_t bj = ((const int32_t *)A.a[%d])[ix]; bj >= 0; bj = %s) {\n", S+probeRepWord, probeNextStep(S))
		g.indent = "      "
		if err := probePreload(g, ap); err != nil {
			return "", err
		}
	} else {
		b.WriteString("  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {\n")
	}
	if err := rowFilter(g); err != nil {
		return "", err
	}
	g.line("if (pass) {")
	g.indent += "  "
	pv, pn, err := aggInputs(g, ap)
	if err != nil {
		return "", err
	}
	terms := []string{"0"}
	for ki, k := range p.Keys {
		code := fmt.Sprintf("(int)%s", pv[k])
		if p.Project[k].Type.Nullable {
			code = fmt.Sprintf("(%s ? %d : (int)%s)", pn[k], ap.domains[ki]-1, pv[k])
		}
		terms = append(terms, fmt.Sprintf("%s * %d", code, ap.strides[ki]))
	}
	g.line("const int gid = %s;", strings.Join(terms, " + "))
	if ap.shared != nil {
		ap.shared.update(g, ap, pv, pn)
	} else {
		for gi := 0; gi < G; gi++ {
			g.line("if (gid == %d) {", gi)
			g.line("  cnt%d++;", gi)
			for j, l := range ap.aggs {
				updatePartial(g, fmt.Sprint(gi), partialName(gi, j), nnName(gi, j, l), l, pv, pn)
			}
			g.line("}")
		}
	}
	g.indent = g.indent[:len(g.indent)-2]
	g.line("}")
	if ap.probe > 0 {
		b.WriteString("    }\n")
	}
	b.WriteString("  }\n")
	b.WriteString("  const int lane = threadIdx.x & 31;\n")
	for gi := 0; gi < G; gi++ {
		if ap.shared != nil {
			ap.shared.flushGroup(&b, gi, ap)
			continue
		}
		flushGroup(&b, gi, ap)
	}
	b.WriteString("}\n")
	return b.String(), nil
}

func partialName(g, j int) string { return fmt.Sprintf("p%d_%d", g, j) }
func nnName(g, j int, l aggLayout) string {
	if l.arg.Nullable {
		return fmt.Sprintf("q%d_%d", g, j)
	}
	return fmt.Sprintf("cnt%d", g)
}

func declPartial(b *strings.Builder, g, j int, l aggLayout) {
	if l.a.Kind == gpu.AggCountStar {
		return
	}
	if l.arg.Nullable {
		fmt.Fprintf(b, "  uint32_t %s = 0;\n", nnName(g, j, l))
	}
	if ct, init := partialType(l); ct != "" {
		fmt.Fprintf(b, "  %s %s = %s;\n", ct, partialName(g, j), init)
	}
}

// partialType is the C type and initial value of aggregate l's per-thread
// partial; "" for count and count(*), which keep only counts.
func partialType(l aggLayout) (ctype, init string) {
	isMax := l.a.Kind == gpu.AggMax
	switch {
	case l.a.Kind == gpu.AggCount || l.a.Kind == gpu.AggCountStar:
		return "", ""
	case l.a.Kind == gpu.AggSum && l.arg.Kind.IsFloat():
		return "double", "0"
	case l.a.Kind == gpu.AggSum:
		return "long long", "0"
	case l.arg.Kind == gpu.Decimal128:
		if isMax {
			return "i128", "I128(0x8000000000000000ull, 0)"
		}
		return "i128", "I128(0x7fffffffffffffffull, ~0ull)"
	case l.arg.Kind.IsFloat():
		if isMax {
			return "uint64_t", "0"
		}
		return "uint64_t", "~0ull"
	default:
		if isMax {
			return "long long", "(-9223372036854775807LL - 1)"
		}
		return "long long", "9223372036854775807LL"
	}
}

// updatePartial adds one row to the partial `name` of aggregate l (its
// non-null count `nn`) of group `group` (a number or an expression).
func updatePartial(g *exprGen, group, name, nn string, l aggLayout, pv, pn []string) {
	if l.a.Kind == gpu.AggCountStar {
		return
	}
	v, n := pv[l.a.Arg], pn[l.a.Arg]
	g.line("  if (!%s) {", n)
	if l.arg.Nullable {
		g.line("    %s++;", nn)
	}
	isMax := l.a.Kind == gpu.AggMax
	switch {
	case l.a.Kind == gpu.AggCount:
	case l.a.Kind == gpu.AggSum && l.arg.Kind.IsFloat():
		g.line("    %s += (double)%s;", name, v)
	case l.a.Kind == gpu.AggSum:
		// An int64 partial is exact until an add overflows; then the
		// partial goes to the table's 192-bit accumulator and restarts.
		acc := fmt.Sprintf("&T[(%s) * W + %d]", group, l.val)
		if l.arg.Kind == gpu.Decimal128 {
			g.line("    const i128 x = (i128)%s; const long long xl = (long long)x;", v)
			g.line("    if ((i128)xl != x) rg_atomic_add192_rare(%s, x); else {", acc)
		} else {
			g.line("    const long long xl = (long long)%s; {", v)
		}
		g.line("      const long long s = (long long)((unsigned long long)%s + (unsigned long long)xl);", name)
		g.line("      if (((%s ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(%s, (i128)%s); %s = xl; } else %s = s;", name, acc, name, name, name)
		g.line("    }")
	case l.arg.Kind == gpu.Decimal128:
		g.line("    if ((i128)%s %s %s) %s = (i128)%s;", v, map[bool]string{true: ">", false: "<"}[isMax], name, name, v)
	case l.arg.Kind.IsFloat():
		g.line("    { const uint64_t k = rg_f64_key((double)%s); if (k %s %s) %s = k; }", v, map[bool]string{true: ">", false: "<"}[isMax], name, name)
	default:
		g.line("    if ((long long)%s %s %s) %s = (long long)%s;", v, map[bool]string{true: ">", false: "<"}[isMax], name, name, v)
	}
	g.line("  }")
}

// flushGroup reduces group g's partials across each warp and adds them to
// the table with one atomic per warp and word.
func flushGroup(b *strings.Builder, gi int, ap *aggPlan) {
	fmt.Fprintf(b, "  {\n    uint64_t *R = T + %d * W;\n", gi)
	fmt.Fprintf(b, "    const uint64_t c = rg_warp_total64(cnt%d);\n    if (lane == 0 && c) atomicAdd((unsigned long long *)&R[0], (unsigned long long)c);\n", gi)
	for j, l := range ap.aggs {
		if l.a.Kind == gpu.AggCountStar {
			continue
		}
		name := partialName(gi, j)
		nn := fmt.Sprintf("nn%d_%d", gi, j)
		fmt.Fprintf(b, "    const uint64_t %s = rg_warp_total64(%s);\n", nn, nnName(gi, j, l))
		if l.a.Kind == gpu.AggCount {
			fmt.Fprintf(b, "    if (lane == 0 && %s) atomicAdd((unsigned long long *)&R[%d], (unsigned long long)%s);\n", nn, l.val, nn)
			continue
		}
		if l.nn > 0 {
			fmt.Fprintf(b, "    if (lane == 0 && %s) atomicAdd((unsigned long long *)&R[%d], (unsigned long long)%s);\n", nn, l.nn, nn)
		}
		isMax := l.a.Kind == gpu.AggMax
		switch {
		case l.a.Kind == gpu.AggSum && l.arg.Kind.IsFloat():
			fmt.Fprintf(b, "    { double s = %s; for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);\n", name)
			fmt.Fprintf(b, "      if (lane == 0 && %s) atomicAdd((double *)&R[%d], s); }\n", nn, l.val)
		case l.a.Kind == gpu.AggSum:
			fmt.Fprintf(b, "    rg_flush_sum128(&R[%d], (i128)%s);\n", l.val, name)
		case l.arg.Kind == gpu.Decimal128:
			cmp := map[bool]string{true: ">", false: "<"}[isMax]
			fmt.Fprintf(b, "    { i128 s = %s; for (int o = 16; o > 0; o >>= 1) {\n", name)
			b.WriteString("        const uint64_t lo = __shfl_down_sync(0xffffffffu, (unsigned long long)(uint64_t)s, o);\n")
			b.WriteString("        const uint64_t hi = __shfl_down_sync(0xffffffffu, (unsigned long long)(uint64_t)((u128)s >> 64), o);\n")
			fmt.Fprintf(b, "        const i128 x = I128(hi, lo); if (x %s s) s = x; }\n", cmp)
			// The 128-bit min/max is a CAS loop (a lock before sm_90):
			// the warps of a block combine first in shared memory so that
			// one update per block, not per warp, reaches the table (a max
			// over 100,000 rows took 15 ms with a lock per warp, TPC-H Q15
			// at SF10).
			fmt.Fprintf(b, "      __shared__ i128 bs%d_%d[%d]; __shared__ unsigned long long bn%d_%d[%d];\n", gi, j, blockThreads/32, gi, j, blockThreads/32)
			fmt.Fprintf(b, "      if (lane == 0) { bs%d_%d[threadIdx.x >> 5] = s; bn%d_%d[threadIdx.x >> 5] = %s; }\n      __syncthreads();\n", gi, j, gi, j, nn)
			fmt.Fprintf(b, "      if (threadIdx.x == 0) { unsigned long long any = 0;\n        for (int w = 0; w < %d; w++) if (bn%d_%d[w]) { if (!any || bs%d_%d[w] %s s) s = bs%d_%d[w]; any = 1; }\n", blockThreads/32, gi, j, gi, j, cmp, gi, j)
			fmt.Fprintf(b, "        if (any) rg_atomic_minmax128(&R[%d], s, %v); } }\n", l.val, isMax)
		case l.arg.Kind.IsFloat():
			fn := map[bool]string{true: "max", false: "min"}[isMax]
			fmt.Fprintf(b, "    { unsigned long long s = %s; for (int o = 16; o > 0; o >>= 1) s = %s(s, __shfl_down_sync(0xffffffffu, s, o));\n", name, fn)
			fmt.Fprintf(b, "      if (lane == 0 && %s) atomic%s((unsigned long long *)&R[%d], s); }\n", nn, strings.Title(fn), l.val)
		default:
			fn := map[bool]string{true: "max", false: "min"}[isMax]
			fmt.Fprintf(b, "    { long long s = %s; for (int o = 16; o > 0; o >>= 1) s = %s(s, __shfl_down_sync(0xffffffffu, s, o));\n", name, fn)
			fmt.Fprintf(b, "      if (lane == 0 && %s) atomic%s((long long *)&R[%d], s); }\n", nn, strings.Title(fn), l.val)
		}
	}
	b.WriteString("  }\n")
}

// packKey stores one key in its word(s) of `key`: integers as int64,
// floats by their bit pattern with -0 and NaN made canonical; a null key
// leaves its words zero and sets its bit in the null word.
func packKey(g *exprGen, ap *aggPlan, ki int, t gpu.Type, v, n string) {
	w := ap.keyWord[ki]
	var set string
	switch t.Kind {
	case gpu.Float64:
		set = fmt.Sprintf("key[%d] = (%s == 0.0 ? 0ull : (%s != %s ? 0x7ff8000000000000ull : (uint64_t)__double_as_longlong(%s)));", w, v, v, v, v)
	case gpu.Float32:
		set = fmt.Sprintf("key[%d] = (%s == 0.0f ? 0ull : (%s != %s ? 0x7fc00000ull : (uint64_t)(uint32_t)__float_as_int(%s)));", w, v, v, v, v)
	case gpu.Decimal128:
		set = fmt.Sprintf("key[%d] = (uint64_t)%s; key[%d] = (uint64_t)((u128)%s >> 64);", w, v, w+1, v)
	default:
		set = fmt.Sprintf("key[%d] = (uint64_t)(long long)%s;", w, v)
	}
	if ap.nullBit[ki] >= 0 {
		g.line("if (%s) key[%d] |= 1ull << %d; else { %s }", n, ap.nullWord, ap.nullBit[ki], set)
	} else {
		g.line("%s", set)
	}
}

// aggMinBlocks is the aggregate kernel's minimum resident blocks per SM:
// it caps registers (65536 / (256 * 2) = 128) so that per-group partials
// do not leave one block per SM, too few warps to hide memory latency.
var aggMinBlocks = 1

// aggSharedPartials lets domain aggregates keep partials in shared memory
// (codegen_agg_shared.go); the benchmark turns it off to compare.
var aggSharedPartials = true
