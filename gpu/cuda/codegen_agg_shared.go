package cuda

import (
	"fmt"
	"strings"

	"github.com/rigel-db/rigel/gpu"
)

// Per-group partials in shared memory, for the domain strategy.
//
// In registers, a thread keeps every group's partials and updates the
// row's group through one `if (gid == g)` block per group. TPC-H Q1 (6
// groups x 5 sums and a count) needs 124 registers that way: 2 blocks of
// 256 threads per SM, 16 warps, too few loads in flight to reach the
// memory bandwidth (1.72 ms against a 0.93 ms floor at SF10).
//
// Here each thread owns one column of a shared-memory table instead:
// slot s of thread t is word s * sharedAggThreads + t, so that a warp's
// accesses to a slot fall on distinct banks whichever group each lane
// updates, and no atomics are needed. The row's group indexes the table,
// so the update is one code path, not one per group. Registers drop to
// what the expressions need and more warps fit on an SM.

// sharedAggThreads is the block size of shared-partial aggregate kernels:
// static shared memory is at most 48 KiB per block, so smaller blocks
// leave more bytes per thread.
const sharedAggThreads = 128

// sharedAggBytes is the static shared memory one block may use (48 KiB).
const sharedAggBytes = 48 << 10

// smBytes is the shared memory an H100 SM gives its resident blocks
// (227 KiB usable of 228).
const smBytes = 227 << 10

type sharedPartials struct {
	groups int
	// counts per group: the row count, then the non-null count of each
	// nullable argument (uint32 each).
	countSlots int
	// words per group: one 64-bit partial per aggregate with a partial.
	wordSlots int
	// per aggregate: its count slot (-1: the row count) and word slot
	// (-1: none).
	countOf, wordOf []int
}

// chooseSharedPartials decides whether a domain aggregate keeps its
// partials in shared memory: when they would need many registers (more
// than one group), every partial is 64 bits (a decimal128 min/max is
// not), and a block's table fits its static shared memory.
func chooseSharedPartials(ap *aggPlan) *sharedPartials {
	if ap.groups < 2 || !aggSharedPartials {
		return nil
	}
	sp := &sharedPartials{groups: ap.groups, countSlots: 1}
	for _, l := range ap.aggs {
		ct, _ := partialType(l)
		if ct == "i128" {
			return nil
		}
		c, w := -1, -1
		if l.a.Kind != gpu.AggCountStar && l.arg.Nullable {
			c = sp.countSlots
			sp.countSlots++
		}
		if ct != "" {
			w = sp.wordSlots
			sp.wordSlots++
		}
		sp.countOf = append(sp.countOf, c)
		sp.wordOf = append(sp.wordOf, w)
	}
	if sp.blockBytes() > sharedAggBytes {
		return nil
	}
	return sp
}

// blockBytes is the shared memory of one block's table.
func (sp *sharedPartials) blockBytes() int {
	return sp.groups * (4*sp.countSlots + 8*sp.wordSlots) * sharedAggThreads
}

// blocksPerSM is the number of blocks whose tables fit one SM, at most
// the 2048 threads an SM holds; it is also the kernel's launch bound, so
// that registers are capped to let that many blocks run.
func (sp *sharedPartials) blocksPerSM() int {
	return min(smBytes/sp.blockBytes(), 2048/sharedAggThreads)
}

func (sp *sharedPartials) countRef(group string, slot int) string {
	return fmt.Sprintf("SC[((%s) * %d + %d) * %d + threadIdx.x]", group, sp.countSlots, slot, sharedAggThreads)
}

func (sp *sharedPartials) wordRef(group string, slot int) string {
	return fmt.Sprintf("SP[((%s) * %d + %d) * %d + threadIdx.x]", group, sp.wordSlots, slot, sharedAggThreads)
}

// declare emits the tables and sets this thread's slots to their initial
// values (each thread writes only its own, so no barrier is needed).
func (sp *sharedPartials) declare(b *strings.Builder, ap *aggPlan) {
	fmt.Fprintf(b, "  __shared__ uint32_t SC[%d];\n", sp.groups*sp.countSlots*sharedAggThreads)
	if sp.wordSlots > 0 {
		fmt.Fprintf(b, "  __shared__ unsigned long long SP[%d];\n", sp.groups*sp.wordSlots*sharedAggThreads)
	}
	fmt.Fprintf(b, "  for (int g = 0; g < %d; g++) {\n", sp.groups)
	for c := 0; c < sp.countSlots; c++ {
		fmt.Fprintf(b, "    %s = 0;\n", sp.countRef("g", c))
	}
	for j, l := range ap.aggs {
		if w := sp.wordOf[j]; w >= 0 {
			ct, init := partialType(l)
			fmt.Fprintf(b, "    reinterpret_cast<%s &>(%s) = %s;\n", ct, sp.wordRef("g", w), init)
		}
	}
	b.WriteString("  }\n")
}

// update adds the row to group gid's partials through references into
// the table.
func (sp *sharedPartials) update(g *exprGen, ap *aggPlan, pv, pn []string) {
	g.line("{")
	g.line("  uint32_t &cnt = %s;", sp.countRef("gid", 0))
	g.line("  cnt++;")
	for j, l := range ap.aggs {
		if c := sp.countOf[j]; c >= 0 {
			g.line("  uint32_t &Q%d = %s;", j, sp.countRef("gid", c))
		}
		if w := sp.wordOf[j]; w >= 0 {
			ct, _ := partialType(l)
			g.line("  %s &P%d = reinterpret_cast<%s &>(%s);", ct, j, ct, sp.wordRef("gid", w))
		}
		nn := "cnt"
		if sp.countOf[j] >= 0 {
			nn = fmt.Sprintf("Q%d", j)
		}
		updatePartial(g, "gid", fmt.Sprintf("P%d", j), nn, l, pv, pn)
	}
	g.line("}")
}

// flushGroup loads group gi's partials of this thread from the table
// under the names the register flush uses and reuses it.
func (sp *sharedPartials) flushGroup(b *strings.Builder, gi int, ap *aggPlan) {
	b.WriteString("  {\n")
	fmt.Fprintf(b, "  const uint32_t cnt%d = %s;\n", gi, sp.countRef(fmt.Sprint(gi), 0))
	for j, l := range ap.aggs {
		if c := sp.countOf[j]; c >= 0 {
			fmt.Fprintf(b, "  const uint32_t %s = %s;\n", nnName(gi, j, l), sp.countRef(fmt.Sprint(gi), c))
		}
		if w := sp.wordOf[j]; w >= 0 {
			ct, _ := partialType(l)
			fmt.Fprintf(b, "  const %s %s = reinterpret_cast<const %s &>(%s);\n", ct, partialName(gi, j), ct, sp.wordRef(fmt.Sprint(gi), w))
		}
	}
	flushGroup(b, gi, ap)
	b.WriteString("  }\n")
}
