package cuda

import (
	"fmt"
	"math/big"

	"github.com/rigel-db/rigel/gpu"
)

// CUDA code for the numeric operators of gpu/ir_num.go. A domain error
// raises RG_DOMAIN in the status word (gpu.ErrDomain after the kernel);
// OpRound of an exact number by a digit count that is not a constant is
// refused with ErrUnsupported.

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
func (g *exprGen) numExpr(e *gpu.Expr, v, n string, args, nulls []string) (handled bool, err error) {
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
	if e.Op == gpu.OpCheck {
		if a.Kind != gpu.Bool || e.Args[1].Type.Kind != t.Kind {
			return true, fmt.Errorf("check of %s over %s giving %s", a, e.Args[1].Type, t)
		}
		// The result is the value's (its null alone, not the condition's).
		g.line("if (!%s && %s) rg_raise(status, RG_DOMAIN);", nulls[0], args[0])
		g.line("%s = %s; %s = %s ? (%s)0 : (%s)%s;", n, nulls[1], v, n, ct, ct, args[1])
		return true, nil
	}
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
		if !e.Args[1].Type.Kind.IsInteger() || isDecimal(e.Args[1].Type.Kind) {
			return true, fmt.Errorf("%s by %s: an integer count needed", e.Op, e.Args[1].Type)
		}
		ut := map[int64]string{8: "uint8_t", 16: "uint16_t", 32: "uint32_t", 64: "uint64_t"}[width]
		st := stype(a.Kind)
		g.line("if (!%s) { const long long k = (long long)%s;", n, args[1])
		g.line("  if (k < 0 || k >= %d) rg_raise(status, RG_DOMAIN);", width)
		switch e.Op {
		case gpu.OpShl: // bits beyond the width are dropped (wraparound)
			g.line("  else %s = (%s)(%s)(%s)((%s)%s << k); }", v, ct, st, ut, ut, args[0])
		case gpu.OpShr: // arithmetic: >> on a signed value sign-fills in CUDA
			g.line("  else %s = (%s)((%s)%s >> k); }", v, ct, st, args[0])
		default:
			g.line("  else %s = (%s)(%s)((%s)%s >> k); }", v, ct, st, ut, args[0])
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
	case gpu.OpMod, gpu.OpIntDiv:
		if isDecimal(a.Kind) || a.Kind != t.Kind || e.Args[1].Type.Kind != t.Kind {
			return true, fmt.Errorf("%s of %s and %s giving %s: one integer kind needed", e.Op, a, e.Args[1].Type, t)
		}
		// In 128 bits MIN / -1 is exact (then checked against the type) and
		// MIN %% -1 is 0, never the hardware's trap.
		op := map[gpu.Op]string{gpu.OpMod: "%", gpu.OpIntDiv: "/"}[e.Op]
		g.line("if (!%s) { if (%s == 0) rg_raise(status, RG_DOMAIN); else { const i128 r = (i128)%s %s (i128)%s;", n, args[1], args[0], op, args[1])
		g.checkFit("r", t)
		g.line("  %s = (%s)r; } }", v, ct)
	case gpu.OpIntPow:
		if isDecimal(a.Kind) || a.Kind != t.Kind || !e.Args[1].Type.Kind.IsInteger() || isDecimal(e.Args[1].Type.Kind) {
			return true, fmt.Errorf("int_pow of %s by %s giving %s", a, e.Args[1].Type, t)
		}
		// |x| >= 2 overflows 128 bits past 127 steps: the loop is bounded.
		g.line("if (!%s) { const i128 x = (i128)%s; const long long k = (long long)%s; i128 r = 1;", n, args[0], args[1])
		g.line("  if (k < 0) rg_raise(status, RG_DOMAIN);")
		g.line("  else if (x == 0) r = k == 0 ? 1 : 0;")
		g.line("  else if (x == 1) r = 1;")
		g.line("  else if (x == -1) r = (k & 1) ? -1 : 1;")
		g.line("  else if (k > 128) rg_raise(status, RG_OVERFLOW);")
		g.line("  else for (long long j = 0; j < k; j++) if (rg_mul128(r, x, &r)) { rg_raise(status, RG_OVERFLOW); break; }")
		g.checkFit("r", t)
		g.line("  %s = (%s)r; }", v, ct)
	case gpu.OpFactorial:
		if scaleOf(a) != 0 || scaleOf(t) != 0 {
			return true, fmt.Errorf("factorial of %s giving %s: scale 0 needed", a, t)
		}
		g.line("if (!%s) { const i128 x = (i128)%s; i128 r = 1;", n, args[0])
		g.line("  if (x < 0) rg_raise(status, RG_DOMAIN);")
		g.line("  else if (x > 34) rg_raise(status, RG_OVERFLOW);")
		g.line("  else for (int j = 2; j <= (int)x; j++) if (rg_mul128(r, (i128)j, &r)) { rg_raise(status, RG_OVERFLOW); break; }")
		g.checkFit("r", t)
		g.line("  %s = (%s)r; }", v, ct)
	default:
		return true, refuse("no CUDA code for it")
	}
	return true, nil
}

func isDecimal(k gpu.Kind) bool { return k == gpu.Decimal64 || k == gpu.Decimal128 }
