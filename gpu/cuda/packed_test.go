package cuda

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/forpack"
)

// A generated kernel reads each packed input with one load of its width
// (none for width 0) plus the frame's base, and the others plain, with no
// branch between the two; with no input packed its source is the plain
// one. Every width compiles.
func TestSourceDecodesItsPackedInputs(t *testing.T) {
	p := q1Pipeline(10471)
	for _, packed := range []packedInputs{nil, {{0, 16}}, {{0, 16}, {3, 8}, {4, 32}, {5, 8}, {6, 0}},
		{{1, 8}, {2, 8}, {3, 12}, {4, 24}, {5, 0}, {6, 32}}} {
		src, err := packedPipelineSource(p, []int{3, 2}, packed)
		if err != nil {
			t.Fatal(err)
		}
		for c := range p.Inputs {
			w := inputWord(c)
			width, isPacked := packed.width(c)
			plain := strings.Contains(src, fmt.Sprintf("((const %s *)A.a[%d])[i]", stype(p.Inputs[c].Kind), w))
			base := strings.Contains(src, fmt.Sprintf("((long long)A.a[%d] >> 7)", w+2))
			var load bool
			switch width {
			case 8, 16, 32:
				load = strings.Contains(src, fmt.Sprintf("((const uint%d_t *)A.a[%d])[i]", width, w))
			case 0:
				load = !strings.Contains(src, fmt.Sprintf("A.a[%d])[i]", w))
			default:
				load, base = strings.Contains(src, fmt.Sprintf("rg_unpacked(A.a[%d], A.a[%d], i)", w, w+2)), true
			}
			if isPacked && (!load || !base || plain) || !isPacked && (!plain || base) {
				t.Fatalf("packed %v: input %d read plain %v, by its width %v, with its base %v", packed, c, plain, load, base)
			}
		}
		skipNoNVRTC(t)
		compileClean(t, "q1_packed"+packed.key(), src)
	}
}

// Kernels get a packed column's words, and their sources decode it, only
// while the policy packs (packedLoads); pipelines take packed columns then
// and are otherwise given their unpacked copies.
func TestPackedInputsFollowThePolicy(t *testing.T) {
	defer func(p packing) { packingPolicy = p }(packingPolicy)
	cols := []*column{{data: 1}, {pack: &packedColumn{words: 2, frame: forpack.Frame{Base: -5, Width: 16}}}, {data: 3}}
	for _, c := range []struct {
		policy packing
		want   packedInputs
	}{{packOff, nil}, {packLarge, packedInputs{{1, 16}}}, {packAll, packedInputs{{1, 16}}}} {
		packingPolicy = c.policy
		if got := packedOf(cols); got.key() != c.want.key() {
			t.Fatalf("policy %d: packed inputs %v, want %v", c.policy, got, c.want)
		}
		if words, _, _ := inputArgs(cols[1]); (words == 2) != (len(c.want) > 0) {
			t.Fatalf("policy %d: kernels get word %d for the packed column", c.policy, words)
		}
		if (pipelineAccepts()&acceptPacked != 0) != (len(c.want) > 0) {
			t.Fatalf("policy %d: pipelines take packed columns: %v", c.policy, len(c.want) == 0)
		}
	}
}

// Compile-ahead generates the source the run will ask for: specialised to
// the packed ones among the columns the foreseen call names
// (gpu.KernelCall.Inputs), plain for the rest and where none is named.
func TestCompileAheadFollowsPackedInputs(t *testing.T) {
	defer func(p packing) { packingPolicy = p }(packingPolicy)
	packingPolicy = packLarge
	p := q1Pipeline(10471)
	dictLen := []int{0, 3, 2, 0, 0, 0, 0}
	cols := make([]*column, len(p.Inputs))
	inputs := make([]gpu.Column, len(p.Inputs))
	for i := range cols {
		cols[i] = &column{data: 1}
		if i == 0 || i == 4 {
			cols[i] = &column{pack: &packedColumn{words: 2, frame: forpack.Frame{Width: uint8(8 << (i / 4))}}}
		}
		inputs[i] = cols[i]
	}
	for _, c := range []struct {
		inputs []gpu.Column
		packed packedInputs
	}{{nil, nil}, {inputs, packedOf(cols)}, {append([]gpu.Column{nil}, inputs[1:]...), packedInputs{{4, 16}}}} {
		fs, err := callSources(gpu.KernelCall{Kind: gpu.CallRun, Pipe: p, DictLen: dictLen, Inputs: c.inputs})
		if err != nil {
			t.Fatal(err)
		}
		want, err := packedPipelineSource(p, dictLen, c.packed)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ = hoistConstants(want); len(fs) != 1 || fs[0].src != want {
			t.Fatalf("inputs packed %v: compile-ahead's source is not the run's", c.packed)
		}
	}
}
