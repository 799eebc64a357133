package devicetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
)

// Str columns flowing through the engine (gpu/ext_strings.go): projected
// out of Run and RunProbe, grouped by, sorted by and carried through Sort,
// gathered, concatenated and downloaded. Expectations are computed here in
// plain Go over the generated strings (strings.Compare is bytewise, as the
// contract's order is). The strings are adversarial: empty, null, shared
// prefixes, one a prefix of another, NUL and bytes >= 0x80 (not UTF-8),
// multi-byte code points, longer than 64 bytes, duplicated.

func strFlowCases() []testCase {
	return []testCase{
		{"strflow/project", testStrFlowProject},
		{"strflow/group_by", testStrFlowGroupBy},
		{"strflow/sort", testStrFlowSort},
		{"strflow/gather_concat", testStrFlowGatherConcat},
		{"strflow/probe", testStrFlowProbe},
	}
}

// strFlowSizes cross a GPU block's and tile's rows and one row.
func strFlowSizes() []int {
	if testing.Short() {
		return []int{1, 1000, 10_007}
	}
	return []int{1, 1000, 100_003}
}

// strFlowFixed are the edge cases, first in every generated column.
var strFlowFixed = []any{
	"ab", "", nil, "a", "abc", "abd", "ab\x00", "\x00", "\x7f", "\x80", "\xff", "\xff\xff",
	"é", "e\u0301", "日本語", "😀", "a😀", strings.Repeat("q", 64), strings.Repeat("q", 64) + "a",
	strings.Repeat("q", 65), strings.Repeat("é", 40), strings.Repeat("ab", 100) + "c", "ab",
}

// strFlowValues returns n values drawn from a pool of distinct strings
// (strFlowFixed, then distinct random ones), about 1 in 16 null; the first
// rows are strFlowFixed in order.
func strFlowValues(n, distinct int, seed uint64) []any {
	rng := rand.New(rand.NewPCG(seed, 77))
	tokens := []string{"a", "b", "a", "é", "日", "😀", "\x80", "\xff", "\x00", "z", " ", "q"}
	short := func(maxLen int) string {
		var b strings.Builder
		for k := rng.IntN(maxLen + 1); k > 0; k-- {
			b.WriteString(tokens[rng.IntN(len(tokens))])
		}
		return b.String()
	}
	pool := append([]any(nil), strFlowFixed[:min(distinct, len(strFlowFixed))]...)
	seen := map[string]bool{}
	for len(pool) < distinct {
		var s string
		switch k := rng.IntN(10); {
		case k < 6:
			s = short(8)
		case k < 8: // a prefix or an extension of another string
			prev, _ := pool[rng.IntN(len(pool))].(string)
			if rng.IntN(2) == 0 && len(prev) > 0 {
				s = prev[:rng.IntN(len(prev))]
			} else {
				s = prev + short(2)
			}
		case k == 8: // long, sharing a 60+ byte prefix
			s = strings.Repeat("q", 60+rng.IntN(20)) + short(4)
		default:
			s = short(60) + short(60)
		}
		if !seen[s] { // distinct random strings, so that many groups are many
			seen[s] = true
			pool = append(pool, s)
		}
	}
	vals := make([]any, n)
	for i := range vals {
		switch {
		case i < len(strFlowFixed):
			vals[i] = strFlowFixed[i]
		case rng.IntN(16) == 0:
			vals[i] = nil
		default:
			vals[i] = pool[rng.IntN(len(pool))]
		}
	}
	return vals
}

// intValues: n int64 values in [lo, hi), 1 in nullEvery null (0: none).
func intValues(n int, lo, hi int64, nullEvery int, seed uint64) []any {
	rng := rand.New(rand.NewPCG(seed, 78))
	out := make([]any, n)
	for i := range out {
		if nullEvery > 0 && rng.IntN(nullEvery) == 0 {
			continue
		}
		out[i] = lo + rng.Int64N(hi-lo)
	}
	return out
}

// strCell renders a generated value as Rows does.
func strCell(v any) string {
	switch x := v.(type) {
	case nil:
		return NullCell
	case string:
		return S(x)
	case int64:
		return I(x)
	case bool:
		return B(x)
	}
	panic(fmt.Sprintf("strCell: %T", v))
}

// strPredCell is a string predicate's value over v (null in, null out).
func strPredCell(v any, f func(s string) bool) string {
	if v == nil {
		return NullCell
	}
	return B(f(v.(string)))
}

func uploadStrVals(t testing.TB, dev gpu.Device, vals []any) gpu.Column {
	t.Helper()
	arr := MakeArray(String, vals...)
	defer arr.Release()
	return uploadStr(t, dev, arr)
}

func expectUnsupported(t testing.TB, err error, what string) {
	t.Helper()
	var pe *panicError
	if errors.As(err, &pe) {
		t.Fatalf("%s: %v", what, err)
	}
	if !errors.Is(err, gpu.ErrUnsupported) {
		t.Fatalf("%s: error %v, want ErrUnsupported", what, err)
	}
}

// mustRun runs p and checks the output kinds; the caller releases.
func mustRun(t testing.TB, dev gpu.Device, p *gpu.Pipeline, in []gpu.Column) []gpu.Column {
	t.Helper()
	out, err := runSafely(dev, p, in)
	if err != nil {
		t.Fatalf("run %s: %v", p, err)
	}
	checkOutputTypes(t, p, out)
	return out
}

// Projections of Str columns: of an upload filtered on an int and on a
// string predicate, then of that output (rows into an upload, perhaps
// non-nullable, projected as nullable) and of a padded gather.
func testStrFlowProject(t *testing.T, dev gpu.Device) {
	for _, n := range strFlowSizes() {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			vals := strFlowValues(n, n/3+2, uint64(n))
			ks := intValues(n, 0, 10, 9, uint64(n))
			sc := uploadStrVals(t, dev, vals)
			defer sc.Release()
			kc := Upload(t, dev, MakeArray(I32, ks...))
			defer kc.Release()
			st, kt := sc.Type(), kc.Type()
			s, k := gpu.Col(0, st), gpu.Col(1, kt)
			startsQ := pred(&gpu.StrFunc{Kind: gpu.StrStartsWith, Pattern: "q"}, s)
			nb := N(TBool)
			p1 := &gpu.Pipeline{Inputs: []gpu.Type{st, kt},
				Filter: gpu.Call(gpu.OpOr, nb, gpu.Call(gpu.OpLt, nb, k, gpu.Const(TI32, gpu.Value{I64: 5})), startsQ),
				Project: []*gpu.Expr{s, k, pred(&gpu.StrFunc{Kind: gpu.StrStartsWith, Pattern: "ab"}, s),
					pred(&gpu.StrFunc{Kind: gpu.StrContains, Pattern: "é"}, s)},
				Sink: gpu.SinkMaterialize}
			var want1 []string
			var keptS, keptK []any
			for i, v := range vals {
				kLess := ks[i] != nil && ks[i].(int64) < 5
				sQ := v != nil && strings.HasPrefix(v.(string), "q")
				if !kLess && !sQ {
					continue
				}
				keptS, keptK = append(keptS, v), append(keptK, ks[i])
				want1 = append(want1, Row(strCell(v), strCell(ks[i]),
					strPredCell(v, func(s string) bool { return strings.HasPrefix(s, "ab") }),
					strPredCell(v, func(s string) bool { return strings.Contains(s, "é") })))
			}
			out1 := mustRun(t, dev, p1, []gpu.Column{sc, kc})
			defer ReleaseCols(out1)
			if out1[0].Type().Kind != gpu.Str {
				t.Fatalf("projection of a str column gave %s", out1[0].Type())
			}
			expectRows(t, Rows(t, dev, out1), want1, true)

			// The output as an input: filtered again, projected as nullable.
			d0, d1 := out1[0].Type(), out1[1].Type()
			ds := gpu.Col(0, d0)
			p2 := &gpu.Pipeline{Inputs: []gpu.Type{d0, d1},
				Filter:  gpu.Call(gpu.OpGe, nb, gpu.Col(1, d1), gpu.Const(TI32, gpu.Value{I64: 2})),
				Project: []*gpu.Expr{gpu.Col(0, N(d0)), pred(&gpu.StrFunc{Kind: gpu.StrEndsWith, Pattern: "c"}, ds)},
				Sink:    gpu.SinkMaterialize}
			var want2 []string
			for i, v := range keptS {
				if keptK[i] == nil || keptK[i].(int64) < 2 {
					continue
				}
				want2 = append(want2, Row(strCell(v), strPredCell(v, func(s string) bool { return strings.HasSuffix(s, "c") })))
			}
			expectRows(t, RunPipeline(t, dev, p2, out1[:2]), want2, true)

			// A padded gather (nulls, repeats) as an input.
			idx, want3 := make([]any, 0, n+3), []string{}
			rng := rand.New(rand.NewPCG(uint64(n), 5))
			for j := 0; j < n+3; j++ {
				r := rng.IntN(n+n/4+1) - n/4 - 1 // some negative
				idx = append(idx, int64(r))
				v := any(nil)
				if r >= 0 {
					v = vals[r]
				}
				want3 = append(want3, Row(strCell(v), strPredCell(v, func(s string) bool { return strings.Contains(s, "a") })))
			}
			ic := Upload(t, dev, MakeArray(I32, idx...))
			defer ic.Release()
			g, err := dev.Gather(context.Background(), []gpu.Column{sc}, ic, true)
			if err != nil {
				t.Fatalf("gather: %v", err)
			}
			defer ReleaseCols(g)
			gt := g[0].Type()
			p3 := &gpu.Pipeline{Inputs: []gpu.Type{gt},
				Project: []*gpu.Expr{gpu.Col(0, gt), pred(&gpu.StrFunc{Kind: gpu.StrContains, Pattern: "a"}, gpu.Col(0, gt))},
				Sink:    gpu.SinkMaterialize}
			expectRows(t, RunPipeline(t, dev, p3, g), want3, true)
		})
	}
}

// Group by (Str) and (Int32, Str) with count(*) and sum(int64), over few
// and over many distinct strings.
func testStrFlowGroupBy(t *testing.T, dev gpu.Device) {
	for _, n := range strFlowSizes() {
		for _, many := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/many=%v", n, many), func(t *testing.T) {
				distinct := 9
				if many {
					distinct = 2 * n
				}
				vals := strFlowValues(n, distinct, uint64(n)+3)
				ks := intValues(n, 0, 3, 11, uint64(n)+4)
				xs := intValues(n, -1e12, 1e12, 7, uint64(n)+5)
				sc := uploadStrVals(t, dev, vals)
				defer sc.Release()
				cols := []gpu.Column{sc, Upload(t, dev, MakeArray(I32, ks...)), Upload(t, dev, MakeArray(I64, xs...))}
				defer ReleaseCols(cols[1:])
				types := []gpu.Type{cols[0].Type(), cols[1].Type(), cols[2].Type()}
				proj := []*gpu.Expr{gpu.Col(0, types[0]), gpu.Col(1, types[1]), gpu.Col(2, types[2])}
				for _, keys := range [][]int{{0}, {1, 0}} {
					p := &gpu.Pipeline{Inputs: types, Project: proj, Sink: gpu.SinkAggregate,
						Keys: keys, Aggs: []gpu.Agg{countStar(), sumDec(2, 0)}}
					type acc struct {
						count, sum int64
						sums       bool
					}
					groups := map[string]*acc{}
					for i, v := range vals {
						cells := []string{strCell(v)}
						if len(keys) == 2 {
							cells = []string{strCell(ks[i]), strCell(v)}
						}
						key := Row(cells...)
						a := groups[key]
						if a == nil {
							a = &acc{}
							groups[key] = a
						}
						a.count++
						if xs[i] != nil {
							a.sum += xs[i].(int64)
							a.sums = true
						}
					}
					var want []string
					for key, a := range groups {
						sum := NullCell
						if a.sums {
							sum = D(a.sum, 0)
						}
						want = append(want, Row(key, I(a.count), sum))
					}
					if many && n >= 100_000 && len(keys) == 1 && len(groups) < 50_000 {
						t.Fatalf("only %d distinct strings generated, want >= 50000", len(groups))
					}
					got := RunPipeline(t, dev, p, cols)
					if err := EqualRows(got, want, false, 0); err != nil {
						t.Fatalf("group by %v (%d groups): %v", keys, len(groups), err)
					}
				}
			})
		}
	}
}

// Sort by Str keys (both directions, nulls first and last, after and
// before another key, with and without a limit), Str payload carried
// along, ties in input order.
func testStrFlowSort(t *testing.T, dev gpu.Device) {
	for _, n := range strFlowSizes() {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			vals := strFlowValues(n, n/4+5, uint64(n)+10)
			ks := intValues(n, 0, 4, 9, uint64(n)+11)
			ids := make([]any, n)
			for i := range ids {
				ids[i] = int64(i)
			}
			pay := strFlowValues(n, n+5, uint64(n)+12)
			data := [][]any{vals, ks, ids, pay}
			cols := []gpu.Column{uploadStrVals(t, dev, vals), Upload(t, dev, MakeArray(I32, ks...)),
				Upload(t, dev, MakeArray(I64, ids...)), uploadStrVals(t, dev, pay)}
			defer ReleaseCols(cols)
			less := func(keys []gpu.SortKey) func(a, b int) int {
				return func(a, b int) int {
					for _, k := range keys {
						x, y := data[k.Col][a], data[k.Col][b]
						if x == nil || y == nil {
							if (x == nil) == (y == nil) {
								continue
							}
							if (x == nil) == k.NullsFirst {
								return -1
							}
							return 1
						}
						var c int
						if s, ok := x.(string); ok {
							c = strings.Compare(s, y.(string))
						} else {
							c = cmp.Compare(x.(int64), y.(int64))
						}
						if k.Descending {
							c = -c
						}
						if c != 0 {
							return c
						}
					}
					return 0
				}
			}
			for _, keys := range [][]gpu.SortKey{
				{{Col: 0}},
				{{Col: 0, Descending: true}},
				{{Col: 0, NullsFirst: true}},
				{{Col: 0, Descending: true, NullsFirst: true}},
				{{Col: 1}, {Col: 0, Descending: true}},
				{{Col: 0, NullsFirst: true}, {Col: 2, Descending: true}},
				{{Col: 3, Descending: true}},
			} {
				perm := make([]int, n)
				for i := range perm {
					perm[i] = i
				}
				order := less(keys)
				sort.SliceStable(perm, func(i, j int) bool { return order(perm[i], perm[j]) < 0 })
				for _, limit := range []int{0, 10, 100} {
					m := n
					if limit > 0 && limit < n {
						m = limit
					}
					want := make([]string, m)
					for j, r := range perm[:m] {
						want[j] = Row(strCell(vals[r]), strCell(ks[r]), strCell(ids[r]), strCell(pay[r]))
					}
					got := sortRows(t, dev, cols, keys, limit)
					if err := EqualRows(got, want, true, 0); err != nil {
						t.Fatalf("sort %v limit %d: %v", keys, limit, err)
					}
				}
			}
		})
	}
}

// Gather (repeats, padNulls), Concat of gathers of one upload and of two
// uploads (which a device may refuse), Download and DownloadAll of each.
func testStrFlowGatherConcat(t *testing.T, dev gpu.Device) {
	for _, n := range strFlowSizes() {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			vals := strFlowValues(n, n/2+3, uint64(n)+20)
			sc := uploadStrVals(t, dev, vals)
			defer sc.Release()
			rng := rand.New(rand.NewPCG(uint64(n), 21))
			gather := func(m int, pad bool) (gpu.Column, []any) {
				t.Helper()
				idx, want := make([]any, m), make([]any, m)
				for j := range idx {
					r := rng.IntN(n)
					if pad && rng.IntN(5) == 0 {
						r = -1 - rng.IntN(3)
					}
					if j > 0 && rng.IntN(4) == 0 {
						r = int(idx[j-1].(int64)) // a repeat
					}
					idx[j] = int64(r)
					if r >= 0 {
						want[j] = vals[r]
					}
				}
				ic := Upload(t, dev, MakeArray(I32, idx...))
				defer ic.Release()
				g, err := dev.Gather(context.Background(), []gpu.Column{sc}, ic, pad)
				if err != nil {
					t.Fatalf("gather (padNulls %v): %v", pad, err)
				}
				if g[0].Type().Kind != gpu.Str || g[0].Len() != m || (pad && !g[0].Type().Nullable) {
					t.Fatalf("gather (padNulls %v) of %d rows gave %s of %d rows", pad, m, g[0].Type(), g[0].Len())
				}
				return g[0], want
			}
			expectStrs := func(what string, c gpu.Column, want []any) {
				t.Helper()
				exp := make([]string, len(want))
				for i, v := range want {
					exp[i] = strCell(v)
				}
				if err := EqualRows(Rows(t, dev, []gpu.Column{c}), exp, true, 0); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
			}
			g1, w1 := gather(n+7, false)
			defer g1.Release()
			g2, w2 := gather(n/2+5, true)
			defer g2.Release()
			expectStrs("gather", g1, w1)
			expectStrs("gather with padNulls", g2, w2)

			cat, err := dev.Concat(context.Background(), [][]gpu.Column{{g1}, {g2}, {sc}})
			if err != nil {
				t.Fatalf("concat of one upload's gathers: %v", err)
			}
			defer ReleaseCols(cat)
			if !cat[0].Type().Nullable || cat[0].Type().Kind != gpu.Str {
				t.Fatalf("concat gave %s, want nullable str", cat[0].Type())
			}
			wcat := append(append(append([]any(nil), w1...), w2...), vals...)
			expectStrs("concat", cat[0], wcat)

			// Another upload: a device may refuse it (ErrUnsupported).
			other := strFlowValues(n/3+1, 50, uint64(n)+22)
			oc := uploadStrVals(t, dev, other)
			defer oc.Release()
			var mixed []gpu.Column
			err = callSafely(func() (err error) {
				mixed, err = dev.Concat(context.Background(), [][]gpu.Column{{oc}, {g2}})
				return err
			})
			if err != nil {
				expectUnsupported(t, err, "concat of two uploads")
			} else {
				defer ReleaseCols(mixed)
				expectStrs("concat of two uploads", mixed[0], append(append([]any(nil), other...), w2...))
			}

			// An empty column padded: every row null.
			empty := uploadStrVals(t, dev, nil)
			defer empty.Release()
			neg := Upload(t, dev, MakeArray(I32, int64(-1), int64(-2)))
			defer neg.Release()
			ge, err := dev.Gather(context.Background(), []gpu.Column{empty}, neg, true)
			if err != nil {
				t.Fatalf("padded gather of an empty str column: %v", err)
			}
			defer ReleaseCols(ge)
			expectStrs("padded gather of an empty column", ge[0], []any{nil, nil})

			if bd, ok := dev.(gpu.BatchDownloader); ok {
				all := []gpu.Column{g1, g2, cat[0], ge[0]}
				got, err := bd.DownloadAll(context.Background(), all)
				if err != nil {
					t.Fatalf("download all: %v", err)
				}
				defer ReleaseAll(got)
				for i, w := range [][]any{w1, w2, wcat, {nil, nil}} {
					arr := MakeArray(String, w...)
					same := array.Equal(got[i], arr)
					arr.Release()
					if !same {
						t.Fatalf("DownloadAll column %d differs from the expected strings", i)
					}
				}
			}
		})
	}
}

// RunProbe with Str payload on both sides (projected, filtered by a string
// predicate, grouped by), ProbeCounts with a Str condition, and Str join
// keys refused by both.
func testStrFlowProbe(t *testing.T, dev gpu.Device) {
	pr, okProbe := dev.(gpu.ProbeRunner)
	pc, okCounts := dev.(gpu.ProbeCounter)
	if !okProbe && !okCounts {
		t.Skipf("SKIP: %s has no RunProbe or ProbeCounts", dev.Info().Name)
	}
	const np, nb = 1500, 400
	pk, ps := intValues(np, 0, 60, 12, 31), strFlowValues(np, 300, 32)
	bk, bs := intValues(nb, 0, 60, 12, 33), strFlowValues(nb, 100, 34)
	probe := []gpu.Column{Upload(t, dev, MakeArray(I64, pk...)), uploadStrVals(t, dev, ps)}
	defer ReleaseCols(probe)
	build := []gpu.Column{Upload(t, dev, MakeArray(I64, bk...)), uploadStrVals(t, dev, bs)}
	defer ReleaseCols(build)
	in := []gpu.Type{probe[0].Type(), probe[1].Type(), build[0].Type(), build[1].Type()}
	notAB := gpu.Call(gpu.OpNot, N(TBool), pred(&gpu.StrFunc{Kind: gpu.StrStartsWith, Pattern: "ab"}, gpu.Col(3, in[3])))
	pass := func(p, b int) bool { // the pair's keys match and notAB is true
		return pk[p] != nil && bk[b] != nil && pk[p].(int64) == bk[b].(int64) &&
			bs[b] != nil && !strings.HasPrefix(bs[b].(string), "ab")
	}
	if okProbe {
		p := &gpu.Pipeline{Inputs: in, Filter: notAB,
			Project: []*gpu.Expr{gpu.Col(1, in[1]), gpu.Col(3, in[3]), gpu.Col(0, in[0])}, Sink: gpu.SinkMaterialize}
		var want []string
		counts := map[string]int64{}
		for i := 0; i < np; i++ {
			for j := 0; j < nb; j++ {
				if pass(i, j) {
					want = append(want, Row(strCell(ps[i]), strCell(bs[j]), strCell(pk[i])))
					counts[strCell(ps[i])]++
				}
			}
		}
		out, err := pr.RunProbe(context.Background(), p, probe, build, []int{0}, []int{0}, nil)
		if err != nil {
			t.Fatalf("run probe: %v", err)
		}
		checkOutputTypes(t, p, out)
		got := Rows(t, dev, out)
		ReleaseCols(out)
		if err := EqualRows(got, want, false, 0); err != nil {
			t.Fatalf("run probe projecting str columns: %v", err)
		}
		agg := &gpu.Pipeline{Inputs: in, Filter: notAB, Project: []*gpu.Expr{gpu.Col(1, in[1])},
			Sink: gpu.SinkAggregate, Keys: []int{0}, Aggs: []gpu.Agg{countStar()}}
		want = want[:0]
		for k, c := range counts {
			want = append(want, Row(k, I(c)))
		}
		out, err = pr.RunProbe(context.Background(), agg, probe, build, []int{0}, []int{0}, nil)
		if err != nil {
			t.Fatalf("run probe grouped by a str column: %v", err)
		}
		got = Rows(t, dev, out)
		ReleaseCols(out)
		if err := EqualRows(got, want, false, 0); err != nil {
			t.Fatalf("run probe grouped by a str column: %v", err)
		}
		out, err = runProbeSafely(pr, p, probe, build, []int{1}, []int{1}, nil)
		ReleaseCols(out)
		expectUnsupported(t, err, "run probe on str keys")
	}
	if okCounts {
		p := &gpu.Pipeline{Inputs: in, Filter: notAB, Sink: gpu.SinkMaterialize}
		want := make([]string, np)
		for i := range want {
			var c int64
			for j := 0; j < nb; j++ {
				if pass(i, j) {
					c++
				}
			}
			want[i] = I(c)
		}
		c, err := pc.ProbeCounts(context.Background(), p, probe, build, []int{0}, []int{0}, nil)
		if err != nil {
			t.Fatalf("probe counts with a str condition: %v", err)
		}
		got := Rows(t, dev, []gpu.Column{c})
		c.Release()
		if err := EqualRows(got, want, true, 0); err != nil {
			t.Fatalf("probe counts with a str condition: %v", err)
		}
		err = callSafely(func() error {
			c, err := pc.ProbeCounts(context.Background(), p, probe, build, []int{1}, []int{1}, nil)
			if c != nil {
				c.Release()
			}
			return err
		})
		expectUnsupported(t, err, "probe counts on str keys")
	}
}
