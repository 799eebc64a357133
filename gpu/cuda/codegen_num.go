package cuda

import (
	"fmt"
	"math/big"

	"github.com/rigel-db/rigel/gpu"
)

// CUDA code for the numeric operators of gpu/ir_num.go. The kernels have
// one error flag for arithmetic (RG_OVERFLOW) and none for a domain error,
// so the operators that can raise gpu.ErrDomain (OpCheck, OpMod, OpIntDiv,
// OpIntPow, OpFactorial, shifts by a count that is not a constant in
// range) are refused with ErrUnsupported: the engine then runs the query
// elsewhere rather than giving a wrong answer.

// cudaFloatFuncs maps the one-argument float operators to CUDA's double
// math functions; a Float32 result is the double result rounded once, as
// the host reference does.
var cudaFloatFuncs = map[gpu.Op]string{
	gpu.OpSqrt: "sqrt", gpu.OpExp: "exp", gpu.OpLn: "log", gpu.OpLog10: "log10", gpu.OpLog2: "log2",
	gpu.OpSin: "sin", gpu.OpCos: "cos", gpu.OpTan: "tan", gpu.OpAsin: "asin", gpu.OpAcos: "acos",
	gpu.OpAtan: "atan", gpu.OpSinh: "sinh", gpu.OpCosh: "cosh", gpu.OpTanh: "tanh", gpu.OpAsinh: "asinh",
	gpu.OpAcosh: "acosh", gpu.OpAtanh: "atanh", gpu.OpAbs: "fabs", gpu.OpCeil: "ceil", gpu.OpFloor: "floor",
}

func isNumOp(op gpu.Op) bool { return op >= gpu.OpSqrt && op <= gpu.OpRound }

// numExpr emits a numeric operator into the declared v/n (n already holds
// "any argument is null"); handled is false for other operators.
func (g *exprGen) numExpr(e *gpu.Expr, v, n string, args []string) (handled bool, err error) {
	if !isNumOp(e.Op) {
		return false, nil
	}
	refuse := func(why string) error {
		return fmt.Errorf("operator %s on %s (%s): %w", e.Op, e.Type, why, gpu.ErrUnsupported)
	}
	want := 1
	switch e.Op {
	case gpu.OpAtan2, gpu.OpPow, gpu.OpMod, gpu.OpIntDiv, gpu.OpBitAnd, gpu.OpBitOr, gpu.OpBitXor,
		gpu.OpShl, gpu.OpShr, gpu.OpShrU, gpu.OpIntPow, gpu.OpCheck, gpu.OpRound:
		want = 2
	}
	if len(e.Args) != want {
		return true, fmt.Errorf("%s takes %d arguments, got %d", e.Op, want, len(e.Args))
	}
	t := e.Type
	ct := ctype(t.Kind)
	a := e.Args[0].Type
	if t.Kind.IsFloat() {
		for _, x := range e.Args[:1] {
			if x.Type.Kind != t.Kind {
				return true, fmt.Errorf("%s of %s giving %s: one float kind needed", e.Op, x.Type, t)
			}
		}
		switch {
		case cudaFloatFuncs[e.Op] != "":
			g.line("if (!%s) %s = (%s)%s((double)%s);", n, v, ct, cudaFloatFuncs[e.Op], args[0])
		case e.Op == gpu.OpAtan2 || e.Op == gpu.OpPow:
			if e.Args[1].Type.Kind != t.Kind {
				return true, fmt.Errorf("%s of %s and %s: one float kind needed", e.Op, a, e.Args[1].Type)
			}
			fn := map[gpu.Op]string{gpu.OpAtan2: "atan2", gpu.OpPow: "pow"}[e.Op]
			g.line("if (!%s) %s = (%s)%s((double)%s, (double)%s);", n, v, ct, fn, args[0], args[1])
		case e.Op == gpu.OpRound:
			// Ties away from zero (CUDA's round), as the host's math.Round.
			g.line("if (!%s) { const double x = (double)%s; const long long d = (long long)%s; double y;", n, args[0], args[1])
			g.line("  if (isnan(x) || isinf(x) || d > 308) y = x;")
			g.line("  else if (d < -308) y = copysign(0.0, x);")
			g.line("  else { const double p = pow(10.0, (double)d); y = isinf(x * p) ? x : round(x * p) / p; }")
			g.line("  %s = (%s)y; }", v, ct)
		default:
			return true, refuse("not generated for floats")
		}
		return true, nil
	}
	if !t.Kind.IsInteger() || t.Kind == gpu.Date32 {
		return true, refuse("not a number")
	}
	switch e.Op {
	case gpu.OpAbs:
		if a.Kind != t.Kind || scaleOf(a) != scaleOf(t) {
			return true, fmt.Errorf("abs of %s cannot give %s", a, t)
		}
		g.line("if (!%s) { i128 r = (i128)%s; if (r < 0 && rg_sub128(0, r, &r)) rg_raise(status, RG_OVERFLOW);", n, args[0])
		g.checkFit("r", t)
		g.line("  %s = (%s)r; }", v, ct)
	case gpu.OpBitAnd, gpu.OpBitOr, gpu.OpBitXor, gpu.OpBitNot:
		for _, x := range e.Args {
			if !x.Type.Kind.IsInteger() || x.Type.Kind == gpu.Date32 || scaleOf(x.Type) != 0 {
				return true, fmt.Errorf("%s of %s: integers or scale-0 decimals needed", e.Op, x.Type)
			}
		}
		if scaleOf(t) != 0 {
			return true, fmt.Errorf("%s giving %s: scale 0 needed", e.Op, t)
		}
		// Sign-extended to 128 bits, two's complement bit operations give
		// the same bits as in the narrower kinds.
		expr := "~(i128)" + args[0]
		if e.Op != gpu.OpBitNot {
			sym := map[gpu.Op]string{gpu.OpBitAnd: "&", gpu.OpBitOr: "|", gpu.OpBitXor: "^"}[e.Op]
			expr = fmt.Sprintf("(i128)%s %s (i128)%s", args[0], sym, args[1])
		}
		g.line("if (!%s) { const i128 r = %s;", n, expr)
		g.checkFit("r", t)
		g.line("  %s = (%s)r; }", v, ct)
	case gpu.OpShl, gpu.OpShr, gpu.OpShrU:
		if isDecimal(a.Kind) || a.Kind != t.Kind {
			return true, fmt.Errorf("%s of %s giving %s", e.Op, a, t)
		}
		width := int64(a.Kind.Width() * 8)
		c := e.Args[1]
		if c.Op != gpu.OpConst || c.Const.Null || c.Const.I64 < 0 || c.Const.I64 >= width {
			return true, refuse("shift count not a constant within the width")
		}
		ut := map[int64]string{8: "uint8_t", 16: "uint16_t", 32: "uint32_t", 64: "uint64_t"}[width]
		st := stype(a.Kind)
		switch e.Op {
		case gpu.OpShl: // bits beyond the width are dropped (wraparound)
			g.line("if (!%s) %s = (%s)(%s)(%s)((%s)%s << %d);", n, v, ct, st, ut, ut, args[0], c.Const.I64)
		case gpu.OpShr: // arithmetic: >> on a signed value sign-fills in CUDA
			g.line("if (!%s) %s = (%s)((%s)%s >> %d);", n, v, ct, st, args[0], c.Const.I64)
		default:
			g.line("if (!%s) %s = (%s)(%s)((%s)%s >> %d);", n, v, ct, st, ut, args[0], c.Const.I64)
		}
	case gpu.OpSaturate, gpu.OpWrap:
		if scaleOf(a) != 0 || isDecimal(t.Kind) {
			return true, fmt.Errorf("%s of %s giving %s", e.Op, a, t)
		}
		if e.Op == gpu.OpWrap {
			g.line("if (!%s) %s = (%s)(%s)(uint64_t)(u128)(i128)%s;", n, v, ct, stype(t.Kind), args[0])
			return true, nil
		}
		lo, hi := rangeOf(t)
		g.line("if (!%s) { const i128 r = (i128)%s;", n, args[0])
		g.line("  %s = (%s)(r < %s ? %s : r > %s ? %s : r); }", v, ct, i128Lit(lo), i128Lit(lo), i128Lit(hi), i128Lit(hi))
	case gpu.OpCeil, gpu.OpFloor:
		if !a.Kind.IsInteger() || a.Kind == gpu.Date32 || scaleOf(t) > scaleOf(a) {
			return true, fmt.Errorf("%s of %s giving %s", e.Op, a, t)
		}
		step := scaleOf(a) - scaleOf(t)
		if step > 38 {
			return true, refuse("scale step above 38")
		}
		fix := "if (m > 0) q += 1;"
		if e.Op == gpu.OpFloor {
			fix = "if (m < 0) q -= 1;"
		}
		d := i128Lit(pow10(step))
		g.line("if (!%s) { const i128 x = (i128)%s; i128 q = x / %s; const i128 m = x %% %s; %s", n, args[0], d, d, fix)
		g.checkFit("q", t)
		g.line("  %s = (%s)q; }", v, ct)
	case gpu.OpRound:
		c := e.Args[1]
		if c.Op != gpu.OpConst || c.Const.Null {
			return true, refuse("digits not a constant")
		}
		if a.Kind != t.Kind || scaleOf(a) != scaleOf(t) {
			return true, fmt.Errorf("round of %s giving %s", a, t)
		}
		drop := int64(scaleOf(t)) - c.Const.I64
		switch {
		case drop <= 0:
			g.line("if (!%s) %s = %s;", n, v, args[0])
		case drop > 38: // |x| < 10^38: rounds to zero
			g.line("if (!%s) %s = 0;", n, v)
		default:
			d := i128Lit(new(big.Int).Exp(big.NewInt(10), big.NewInt(drop), nil))
			// rg_div_round rounds half away from zero; 10^drop * q may
			// leave the type: check.
			g.line("if (!%s) { i128 r; if (rg_mul128(rg_div_round((i128)%s, %s), %s, &r)) rg_raise(status, RG_OVERFLOW);", n, args[0], d, d)
			g.checkFit("r", t)
			g.line("  %s = (%s)r; }", v, ct)
		}
	default:
		return true, refuse("can raise a domain error, which kernels cannot report")
	}
	return true, nil
}

func isDecimal(k gpu.Kind) bool { return k == gpu.Decimal64 || k == gpu.Decimal128 }
