package cuda

import (
	"math/big"

	"github.com/rigel-db/rigel/gpu"
)

// samplePipeline is a pipeline whose generated kernels the NVRTC test
// compiles (and the GPU tests run). Add cases here to cover new IR shapes.
type samplePipeline struct {
	name    string
	p       *gpu.Pipeline
	dictLen []int // dictionary size per input (0 for non-dict inputs)
}

var (
	tBool   = gpu.Type{Kind: gpu.Bool}
	tI8     = gpu.Type{Kind: gpu.Int8}
	tI16    = gpu.Type{Kind: gpu.Int16}
	tI32    = gpu.Type{Kind: gpu.Int32}
	tI64    = gpu.Type{Kind: gpu.Int64}
	tF32    = gpu.Type{Kind: gpu.Float32}
	tF64    = gpu.Type{Kind: gpu.Float64}
	tDate   = gpu.Type{Kind: gpu.Date32}
	tDict   = gpu.Type{Kind: gpu.Dict}
	tDec152 = gpu.Type{Kind: gpu.Decimal64, Precision: 15, Scale: 2}
)

func nul(t gpu.Type) gpu.Type                              { return t.WithNullable(true) }
func dec128(p, s int32) gpu.Type                           { return gpu.Type{Kind: gpu.Decimal128, Precision: p, Scale: s} }
func dec64(p, s int32) gpu.Type                            { return gpu.Type{Kind: gpu.Decimal64, Precision: p, Scale: s} }
func ci(t gpu.Type, v int64) *gpu.Expr                     { return gpu.Const(t, gpu.Value{I64: v}) }
func cf(t gpu.Type, v float64) *gpu.Expr                   { return gpu.Const(t, gpu.Value{F64: v}) }
func call(op gpu.Op, t gpu.Type, a ...*gpu.Expr) *gpu.Expr { return gpu.Call(op, t, a...) }

// q6Pipeline: filter shipdate in [d0, d1), discount in [lo, hi], quantity
// < q; sum(extendedprice * discount). Inputs: shipdate, discount,
// quantity, extendedprice.
func q6Pipeline(d0, d1 int32) *gpu.Pipeline {
	ship, disc, qty, price := gpu.Col(0, tDate), gpu.Col(1, tDec152), gpu.Col(2, tDec152), gpu.Col(3, tDec152)
	return &gpu.Pipeline{
		Inputs: []gpu.Type{tDate, tDec152, tDec152, tDec152},
		Filter: call(gpu.OpAnd, tBool,
			call(gpu.OpGe, tBool, ship, ci(tDate, int64(d0))),
			call(gpu.OpLt, tBool, ship, ci(tDate, int64(d1))),
			call(gpu.OpGe, tBool, disc, ci(tDec152, 5)),
			call(gpu.OpLe, tBool, disc, ci(tDec152, 7)),
			call(gpu.OpLt, tBool, qty, ci(tDec152, 2400))),
		Project: []*gpu.Expr{call(gpu.OpMul, dec128(38, 4), price, disc)},
		Sink:    gpu.SinkAggregate,
		Aggs:    []gpu.Agg{{Kind: gpu.AggSum, Arg: 0, Type: nul(dec128(38, 4))}},
	}
}

// q1Pipeline: TPC-H Q1 as DuckDB plans it. Inputs: shipdate, returnflag,
// linestatus, quantity, extendedprice, discount, tax.
func q1Pipeline(cutoff int32) *gpu.Pipeline {
	ship := gpu.Col(0, tDate)
	rf, ls := gpu.Col(1, tDict), gpu.Col(2, tDict)
	qty, price, disc, tax := gpu.Col(3, tDec152), gpu.Col(4, tDec152), gpu.Col(5, tDec152), gpu.Col(6, tDec152)
	one := ci(tDec152, 100)
	discPrice := call(gpu.OpMul, dec64(18, 4), price, call(gpu.OpSub, tDec152, one, disc))
	charge := call(gpu.OpMul, dec128(38, 6),
		call(gpu.OpCast, dec128(38, 4), discPrice),
		call(gpu.OpCast, dec128(38, 2), call(gpu.OpAdd, tDec152, one, tax)))
	sum := func(arg int, s int32) gpu.Agg { return gpu.Agg{Kind: gpu.AggSum, Arg: arg, Type: nul(dec128(38, s))} }
	cnt := func(arg int) gpu.Agg { return gpu.Agg{Kind: gpu.AggCount, Arg: arg, Type: tI64} }
	return &gpu.Pipeline{
		Inputs:  []gpu.Type{tDate, tDict, tDict, tDec152, tDec152, tDec152, tDec152},
		Filter:  call(gpu.OpLe, tBool, ship, ci(tDate, int64(cutoff))),
		Project: []*gpu.Expr{rf, ls, qty, price, discPrice, charge, disc},
		Sink:    gpu.SinkAggregate,
		Keys:    []int{0, 1},
		Aggs: []gpu.Agg{sum(2, 2), sum(3, 2), sum(4, 4), sum(5, 6), sum(6, 2),
			cnt(2), cnt(3), cnt(6), {Kind: gpu.AggCountStar, Type: tI64}},
	}
}

// samplePipelines covers every Op, every Kind, both sinks and both
// aggregate strategies.
func samplePipelines() []samplePipeline {
	big128 := new(big.Int).Lsh(big.NewInt(1), 100)
	allKinds := []gpu.Type{nul(tBool), nul(tI8), nul(tI16), nul(tI32), nul(tI64), nul(tF32), nul(tF64),
		nul(tDate), nul(tDec152), nul(dec128(38, 4)), nul(tDict)}
	cols := func() []*gpu.Expr {
		out := make([]*gpu.Expr, len(allKinds))
		for i, t := range allKinds {
			out[i] = gpu.Col(i, t)
		}
		return out
	}
	c := cols()
	arith := []*gpu.Expr{
		call(gpu.OpAdd, nul(tI16), c[1], c[1]),
		call(gpu.OpSub, nul(tI32), c[2], c[2]),
		call(gpu.OpMul, nul(tI64), c[3], c[3]),
		call(gpu.OpAdd, nul(tI64), c[4], ci(tI64, -1)),
		call(gpu.OpMul, nul(dec128(38, 4)), c[8], c[8]),
		call(gpu.OpAdd, nul(dec128(38, 4)), c[9], gpu.Const(dec128(38, 4), gpu.Value{I128: big128})),
		call(gpu.OpMul, nul(dec128(38, 8)), c[9], c[9]),
		call(gpu.OpSub, nul(dec128(38, 4)), c[9], c[9]),
		call(gpu.OpNeg, nul(tI64), c[4]),
		call(gpu.OpNeg, nul(dec128(38, 4)), c[9]),
		call(gpu.OpDiv, nul(tF64), c[6], cf(tF64, 3)),
		call(gpu.OpMul, nul(tF32), c[5], c[5]),
		call(gpu.OpNeg, nul(tF64), c[6]),
		call(gpu.OpCast, nul(tI8), c[4]),
		call(gpu.OpCast, nul(dec64(18, 4)), c[8]),
		call(gpu.OpCast, nul(dec64(10, 0)), c[8]),
		// A CASE branch widened to the CASE's precision (coalesce of a
		// DECIMAL(15,2) and 0, typed DECIMAL(18,2)).
		call(gpu.OpCase, nul(dec64(18, 2)), call(gpu.OpIsNotNull, tBool, c[8]), call(gpu.OpCast, nul(dec64(18, 2)), c[8]), ci(dec64(18, 2), 0)),
		call(gpu.OpCast, nul(tI32), c[9]),
		call(gpu.OpCast, nul(tF64), c[8]),
		call(gpu.OpCast, nul(tF32), c[9]),
		call(gpu.OpCast, nul(tF64), c[4]),
		call(gpu.OpCast, nul(tF64), c[5]),
		call(gpu.OpCast, nul(tF32), c[6]),
		call(gpu.OpCase, nul(tI64), call(gpu.OpGt, nul(tBool), c[4], ci(tI64, 0)), c[4],
			call(gpu.OpIsNull, tBool, c[3]), ci(tI64, 7), gpu.Const(tI64, gpu.Value{Null: true})),
		call(gpu.OpCase, nul(tDict), c[0], c[10], c[10]),
		call(gpu.OpNot, nul(tBool), c[0]),
		call(gpu.OpIsNotNull, tBool, c[7]),
		call(gpu.OpOr, nul(tBool), c[0], call(gpu.OpEq, nul(tBool), c[10], ci(tDict, 1)),
			call(gpu.OpNe, nul(tBool), c[5], c[5]), call(gpu.OpLe, nul(tBool), c[6], c[6])),
		call(gpu.OpGe, nul(tBool), c[7], ci(tDate, 9000)),
		call(gpu.OpLt, nul(tBool), c[9], c[9]),
	}
	for _, e := range c {
		arith = append(arith, e)
	}
	filter := call(gpu.OpAnd, nul(tBool), c[0], call(gpu.OpGt, nul(tBool), c[2], ci(tI16, 0)))
	dl := make([]int, len(allKinds))
	dl[10] = 5
	var out []samplePipeline
	out = append(out, samplePipeline{"materialize-all-ops", &gpu.Pipeline{
		Inputs: allKinds, Filter: filter, Project: arith, Sink: gpu.SinkMaterialize}, dl})
	out = append(out, samplePipeline{"materialize-no-filter", &gpu.Pipeline{
		Inputs: []gpu.Type{tI64}, Project: []*gpu.Expr{gpu.Col(0, tI64)}, Sink: gpu.SinkMaterialize}, nil})
	// Hash aggregate over every packable key kind and every aggregate.
	hash := &gpu.Pipeline{Inputs: allKinds, Project: c, Sink: gpu.SinkAggregate, Keys: []int{7, 10}}
	for i, t := range allKinds {
		if t.Kind == gpu.Dict || t.Kind == gpu.Bool {
			continue
		}
		res := t
		hash.Aggs = append(hash.Aggs, gpu.Agg{Kind: gpu.AggMin, Arg: i, Type: res}, gpu.Agg{Kind: gpu.AggMax, Arg: i, Type: res})
		if t.Kind.IsFloat() {
			hash.Aggs = append(hash.Aggs, gpu.Agg{Kind: gpu.AggSum, Arg: i, Type: nul(tF64)})
		} else {
			hash.Aggs = append(hash.Aggs, gpu.Agg{Kind: gpu.AggSum, Arg: i, Type: nul(dec128(38, scaleOf(t)))})
		}
		hash.Aggs = append(hash.Aggs, gpu.Agg{Kind: gpu.AggCount, Arg: i, Type: tI64})
	}
	hash.Aggs = append(hash.Aggs, gpu.Agg{Kind: gpu.AggCountStar, Type: tI64})
	out = append(out, samplePipeline{"aggregate-hash-all", hash, dl})
	for _, keys := range [][]int{{1}, {2}, {3}, {4}, {5}, {6}, {8}, {9}, {0, 3, 4, 9}} {
		p := *hash
		p.Keys = keys
		out = append(out, samplePipeline{"aggregate-hash-keys", &p, dl})
	}
	// 64-bit keys fit only when not nullable.
	for _, t := range []gpu.Type{tI64, tF64, tDec152} {
		out = append(out, samplePipeline{"aggregate-hash-key-" + t.String(), &gpu.Pipeline{
			Inputs: []gpu.Type{t, tI64}, Project: []*gpu.Expr{gpu.Col(0, t), gpu.Col(1, tI64)},
			Sink: gpu.SinkAggregate, Keys: []int{0},
			Aggs: []gpu.Agg{{Kind: gpu.AggSum, Arg: 1, Type: nul(dec128(38, 0))}, {Kind: gpu.AggCountStar, Type: tI64}},
		}, nil})
	}
	dom := *hash
	dom.Keys = []int{0}
	dom.Aggs = hash.Aggs[:12]
	out = append(out, samplePipeline{"aggregate-domain-bool", &dom, dl})
	none := *hash
	none.Keys = nil
	out = append(out, samplePipeline{"aggregate-no-keys", &none, dl})
	out = append(out, strFlowSamples()...)
	out = append(out, samplePipeline{"tpch-q6", q6Pipeline(8766, 9131), nil})
	out = append(out, samplePipeline{"tpch-q1", q1Pipeline(10471), []int{0, 3, 2, 0, 0, 0, 0}})
	return out
}

// strFlowSamples: Str columns projected as they are (beside a per-row
// predicate) and used as group keys, nullable or not, alone or with
// another key (TPC-H Q10's grouping by customer name, address, phone and
// comment).
func strFlowSamples() []samplePipeline {
	ns := nul(tStr)
	like := gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrLike, Pattern: "%special%"}, nul(tBool), gpu.Col(1, ns))
	in := []gpu.Type{nul(tI64), ns, tStr}
	return []samplePipeline{
		{"str-project", &gpu.Pipeline{Inputs: in, Filter: like,
			Project: []*gpu.Expr{gpu.Col(2, tStr), gpu.Col(0, nul(tI64)), gpu.Col(1, ns)}, Sink: gpu.SinkMaterialize}, nil},
		{"str-group-keys", &gpu.Pipeline{Inputs: in, Filter: like,
			Project: []*gpu.Expr{gpu.Col(0, nul(tI64)), gpu.Col(1, ns), gpu.Col(2, tStr)}, Sink: gpu.SinkAggregate, Keys: []int{1, 0, 2},
			Aggs: []gpu.Agg{{Kind: gpu.AggCountStar, Type: tI64}, {Kind: gpu.AggSum, Arg: 0, Type: nul(dec128(38, 0))}}}, nil},
		{"str-group-key-alone", &gpu.Pipeline{Inputs: in,
			Project: []*gpu.Expr{gpu.Col(2, tStr)}, Sink: gpu.SinkAggregate, Keys: []int{0},
			Aggs: []gpu.Agg{{Kind: gpu.AggCountStar, Type: tI64}}}, nil},
	}
}
