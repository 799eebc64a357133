package cuda

import (
	"fmt"
	"strings"

	"github.com/rigel-db/rigel/gpu"
)

// emitSource generates the kernels that turn a hash aggregate's table into
// its output columns on the device, so that a grouping with millions of
// groups (TPC-H Q18 groups lineitem by order key) never downloads its table:
//
//   - rg_agg_used counts the used slots of each tile of tileRows slots;
//   - util's rg_scan turns the counts into each tile's first output row;
//   - rg_agg_emit writes each used slot's keys and aggregates at its row, in
//     slot order (warp ballots rank the used slots of a tile, as rg_write
//     ranks passing rows).
//
// Args of both: nslots, status, table, keys, counts|offsets, ntiles, then
// (data, valid) per output column (keys, then aggregates).
func emitSource(ap *aggPlan) string {
	var b strings.Builder
	head := func(name string) {
		fmt.Fprintf(&b, "\nextern \"C\" __global__ void __launch_bounds__(%d) %s(const Args A) {\n", blockThreads, name)
		b.WriteString("  const unsigned long long ns = A.a[0];\n  const uint64_t *T = (const uint64_t *)A.a[2];\n")
		b.WriteString("  const long long ntiles = (long long)A.a[5];\n")
		b.WriteString("  __shared__ uint32_t wcnt[32];\n  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;\n")
		b.WriteString("  for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {\n")
	}
	// Every claimed slot counted its row in word 0.
	used := fmt.Sprintf("(s < ns && T[s * %d] > 0)", ap.slotWords)

	head("rg_agg_used")
	b.WriteString("    uint32_t c = 0;\n")
	fmt.Fprintf(&b, "    for (int k = 0; k < %d; k++) {\n      const unsigned long long s = t * %d + k * %d + threadIdx.x;\n      c += %s;\n    }\n", tileItems, tileRows, blockThreads, used)
	b.WriteString("    c = (uint32_t)rg_warp_sum64(c);\n    if (lane == 0) wcnt[warp] = c;\n    __syncthreads();\n")
	fmt.Fprintf(&b, "    if (threadIdx.x == 0) { uint32_t s = 0; for (int w = 0; w < %d; w++) s += wcnt[w]; ((uint32_t *)A.a[4])[t] = s; }\n", blockThreads/32)
	b.WriteString("    __syncthreads();\n  }\n}\n")

	head("rg_agg_emit")
	fmt.Fprintf(&b, "  const uint64_t *K = (const uint64_t *)A.a[3];\n")
	b.WriteString("    unsigned long long base = ((const unsigned long long *)A.a[4])[t];\n")
	fmt.Fprintf(&b, "    for (int k = 0; k < %d; k++) {\n      const unsigned long long s = t * %d + k * %d + threadIdx.x;\n      const bool ok = %s;\n", tileItems, tileRows, blockThreads, used)
	b.WriteString("      const unsigned m = __ballot_sync(0xffffffffu, ok);\n      if (lane == 0) wcnt[warp] = __popc(m);\n      __syncthreads();\n")
	fmt.Fprintf(&b, "      unsigned before = 0, total = 0;\n      for (int w = 0; w < %d; w++) { if (w < warp) before += wcnt[w]; total += wcnt[w]; }\n", blockThreads/32)
	b.WriteString("      if (ok) {\n        const unsigned long long r = base + before + __popc(m & ((1u << lane) - 1u));\n")
	fmt.Fprintf(&b, "        const uint64_t *R = T + s * %d;\n", ap.slotWords)
	fmt.Fprintf(&b, "        const uint64_t *KS = K + s * %d;\n", ap.keyWords)
	p := ap.p
	col := 0
	for ki, k := range p.Keys {
		t := p.Project[k].Type
		null := "false"
		if ap.nullBit[ki] >= 0 {
			null = fmt.Sprintf("((KS[%d] >> %d) & 1ull)", ap.nullWord, ap.nullBit[ki])
		}
		w := ap.keyWord[ki]
		val := fmt.Sprintf("KS[%d]", w)
		if t.Kind == gpu.Decimal128 {
			val = fmt.Sprintf("I128(KS[%d], KS[%d])", w+1, w)
		}
		emitValue(&b, col, t, null, val)
		col++
	}
	for _, l := range ap.aggs {
		t := l.a.Type
		switch l.a.Kind {
		case gpu.AggCountStar:
			emitValue(&b, col, t, "false", "R[0]")
			col++
			continue
		case gpu.AggCount:
			emitValue(&b, col, t, "false", fmt.Sprintf("R[%d]", l.val))
			col++
			continue
		}
		null := fmt.Sprintf("(R[%d] == 0)", l.nn)
		var val string
		switch {
		case l.a.Kind == gpu.AggSum && l.arg.Kind.IsFloat():
			val = fmt.Sprintf("R[%d]", l.val)
		case l.a.Kind == gpu.AggSum:
			// A 192-bit sum fits the 128-bit result when its top word is
			// the sign extension of the middle one.
			fmt.Fprintf(&b, "        if (!%s && R[%d] != (uint64_t)((long long)R[%d] >> 63)) rg_raise(status, RG_OVERFLOW);\n", null, l.val+2, l.val+1)
			val = fmt.Sprintf("I128(R[%d], R[%d])", l.val+1, l.val)
		case l.arg.Kind == gpu.Decimal128:
			val = fmt.Sprintf("I128(R[%d], R[%d])", l.val+1, l.val)
		case l.arg.Kind.IsFloat():
			// Float min/max keep an order-preserving key: undo it.
			fmt.Fprintf(&b, "        const uint64_t fk%d = R[%d];\n", col, l.val)
			val = fmt.Sprintf("((fk%d >> 63) ? (fk%d & ~(1ull << 63)) : ~fk%d)", col, col, col)
			if t.Kind == gpu.Float32 {
				val = fmt.Sprintf("(uint64_t)(uint32_t)__float_as_int((float)__longlong_as_double((long long)%s))", val)
			}
		default:
			val = fmt.Sprintf("R[%d]", l.val)
		}
		emitValue(&b, col, t, null, val)
		col++
	}
	b.WriteString("      }\n      base += total;\n      __syncthreads();\n    }\n  }\n}\n")
	return b.String()
}

// emitValue writes output column col's row r: the low bytes of the 64-bit
// word val (the bits of a float, the code of a dictionary string, the
// view of a Str one) or the
// i128 val of a 16-byte type; its validity byte, or RG_NULL_NOT_NULLABLE
// when a non-nullable column would get a null.
func emitValue(b *strings.Builder, col int, t gpu.Type, null, val string) {
	dw := 6 + 2*col
	fmt.Fprintf(b, "        {\n          const bool nl = %s;\n", null)
	if t.Nullable {
		fmt.Fprintf(b, "          ((uint8_t *)A.a[%d])[r] = nl ? 0 : 1;\n", dw+1)
	} else {
		b.WriteString("          if (nl) rg_raise(status, RG_NULL_NOT_NULLABLE);\n")
	}
	var ut string
	switch devWidth(t) {
	case 1:
		ut = "uint8_t"
	case 2:
		ut = "uint16_t"
	case 4:
		ut = "uint32_t"
	case 8:
		ut = "uint64_t"
	case 16:
		ut = "i128"
	}
	fmt.Fprintf(b, "          ((%s *)A.a[%d])[r] = nl ? (%s)0 : (%s)(%s);\n        }\n", ut, dw, ut, ut, val)
}
