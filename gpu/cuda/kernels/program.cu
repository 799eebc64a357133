// program.cu: the precompiled path. A pipeline's filter, projections and
// aggregate are a program (gpu/cuda/program.go compiles it) that these
// fixed kernels interpret row by row, so a pipeline runs without a kernel
// of its own: nothing is compiled per query. Each instruction does what
// the generated code of the same expression node does (codegen_expr.go),
// with the same prelude helpers, so both paths give the same bits.
//
// The program block (uint64 words, in device memory, one per run):
//   header (PG_* indexes below), the inputs (4 words each: data, validity,
//   kind, and a Str column's characters word or a packed column's frame,
//   inputArgs), the string tables (1 word each), the projections (1 word each:
//   register | kind << 16 | nullable << 24), the instructions (2 words
//   each, read as an int4), the constants (2 words each, an i128: a
//   float's double bits in the low word), the aggregates (1 word each).
//
// Registers are a thread's local array: a value is an i128 (integers
// sign-extended, a float as its double's bits, a float32 exactly as a
// double) and a null flag. A null result's value is 0, as the generated
// code's is; a loaded null is the column's bytes, as there.

#define PG_N 0
#define PG_STATUS 1
#define PG_INPUTS 2   // word index of the inputs
#define PG_STRS 3     // word index of the string tables
#define PG_PROJ 4     // word index of the projections
#define PG_NPROJ 5
#define PG_CODE 6     // word index of the instructions
#define PG_CONST 7    // word index of the constants (even)
#define PG_FILTER_END 8 // the filter is instructions [0, end); 0: none
#define PG_FILTER_REG 9
#define PG_PROJ_END 10 // the projections are [filter end, proj end)
#define PG_AGGS 11     // word index of the aggregates
#define PG_NAGGS 12
#define PG_KEYS 13     // word index of the domain keys (1 word each)
#define PG_NKEYS 14
#define PG_SLOT_WORDS 15 // table words per group (aggPlan.slotWords)
#define PG_PSLOTS 16     // per-thread partial words per group
#define PG_GROUPS 17
#define PG_KEY_WORDS 18 // hash keys: words a key takes (aggPlan.keyWords)
#define PG_NULL_WORD 19 // hash keys: the null flags' word, or ~0
#define PG_OUTS 20      // word index of the output descriptions (kind | nullable << 8)

#define PG_MAXREG 48

enum {
    PI_LOAD = 1, PI_CONST, PI_MOV, PI_ARITH_I, PI_ARITH_F, PI_NEG_I, PI_NEG_F,
    PI_CMP, PI_AND, PI_OR, PI_NOT, PI_ISNULL, PI_ISNOTNULL,
    PI_CAST_II, PI_CAST_IF, PI_CAST_FF, PI_JMP, PI_JMPF,
    PI_STRPRED, PI_STRMAP, PI_DATEPART, PI_STRMATCH, PI_ABS_I, PI_ABS_F, PI_ROUND_I, PI_ROUND_F
};

__device__ __forceinline__ double pg_f(i128 v) { return __longlong_as_double((long long)(uint64_t)v); }
__device__ __forceinline__ i128 pg_fbits(double d) { return (i128)(uint64_t)__double_as_longlong(d); }

// pg_load reads row i of a column of kind k as a register value.
__device__ __forceinline__ i128 pg_load(uint64_t data, int k, long long i) {
    switch (k) {
    case PK_BOOL: return (i128)((const uint8_t *)data)[i];
    case PK_INT8: return (i128)((const int8_t *)data)[i];
    case PK_INT16: return (i128)((const int16_t *)data)[i];
    case PK_INT32: case PK_DATE32: case PK_DICT: return (i128)((const int32_t *)data)[i];
    case PK_FLOAT32: return pg_fbits((double)((const float *)data)[i]);
    case PK_FLOAT64: return (i128)((const uint64_t *)data)[i];
    case PK_DECIMAL128: return ((const i128 *)data)[i];
    default: return (i128)((const long long *)data)[i]; // int64, decimal64
    }
}

// pg_store writes a register value as row i of an output of kind k.
__device__ __forceinline__ void pg_store(uint64_t data, int k, long long i, i128 v) {
    switch (k) {
    case PK_BOOL: ((uint8_t *)data)[i] = (uint8_t)(int)v; break;
    case PK_INT8: ((int8_t *)data)[i] = (int8_t)(long long)v; break;
    case PK_INT16: ((int16_t *)data)[i] = (int16_t)(long long)v; break;
    case PK_INT32: case PK_DATE32: case PK_DICT: ((int32_t *)data)[i] = (int32_t)(long long)v; break;
    case PK_FLOAT32: ((float *)data)[i] = (float)pg_f(v); break;
    case PK_FLOAT64: ((uint64_t *)data)[i] = (uint64_t)v; break;
    case PK_DECIMAL128: ((i128 *)data)[i] = v; break;
    default: ((long long *)data)[i] = (long long)v;
    }
}

// pg_narrow keeps what the generated code's register of kind k keeps: 64
// bits, sign-extended, for every kind but decimal128.
__device__ __forceinline__ i128 pg_narrow(i128 r, int k) { return k == PK_DECIMAL128 ? r : (i128)(long long)r; }

// pg_fits raises the overflow flag when r lies outside [K[c], K[c+1]]
// (c = 0xffff: the result's whole storage, nothing to test).
__device__ __forceinline__ void pg_fits(i128 r, int c, const i128 *K, uint32_t *st) {
    if (c != 0xffff && (r < K[c] || r > K[c + 1])) rg_raise(st, RG_OVERFLOW);
}

// String predicates over strings in Arrow layout: the matcher is 16-bit
// words in the constants (gpu/cuda/program_strmatch.go), walked with the
// steps the generated code specialises to the constant
// (codegen_strrow.go's likeMatch, compareConst, equalsConst).
#define PS_LIKE 0
#define PS_CMP 1
#define PS_IN 2
#define PS_ANY 0x100

// pg_seg matches the n tokens at t from byte *x of s, advancing *x
// (segForward): '_' steps over one code point, its lead byte giving its
// length.
__device__ __forceinline__ bool pg_seg(const uint16_t *t, int n, const uint8_t *s, int len, int *x) {
    int p = *x;
    for (int k = 0; k < n; k++) {
        if (p >= len) return false;
        if (t[k] == PS_ANY) {
            const uint8_t b = s[p];
            const int w = b < 0xC0 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
            p += min(w, len - p);
        } else {
            if (s[p] != t[k]) return false;
            p++;
        }
    }
    *x = p;
    return true;
}

// pg_str_match: whether the len bytes at s satisfy the matcher m.
__device__ __noinline__ bool pg_str_match(const uint16_t *m, const uint8_t *s, int len) {
    if (m[0] == PS_LIKE) {
        const bool anchored = m[1] != 0;
        const uint16_t *t = m + 2;
        int pos = 0, n = *t++;
        if (!pg_seg(t, n, s, len, &pos)) return false;
        t += n;
        if (anchored) return pos == len;
        for (int j = 0, nm = *t++; j < nm; j++) {
            // The leftmost match starting at a code point boundary; a
            // segment that begins with a literal byte that is not a
            // continuation byte can only match at one.
            n = *t++;
            const bool boundary = t[0] == PS_ANY || (t[0] & 0xC0) == 0x80;
            int found = -1;
            for (int st = pos; st <= len - n && found < 0; st++) {
                if (boundary && (s[st] & 0xC0) == 0x80) continue;
                int q = st;
                if (pg_seg(t, n, s, len, &q)) found = q;
            }
            if (found < 0) return false;
            pos = found;
            t += n;
        }
        n = *t++; // the suffix, walked back from the end
        int q = len;
        for (int k = n - 1; k >= 0; k--) {
            if (q <= 0) return false;
            if (t[k] == PS_ANY) {
                q--;
                while (q > 0 && (s[q] & 0xC0) == 0x80) q--;
            } else {
                if (s[q - 1] != t[k]) return false;
                q--;
            }
        }
        return q >= pos;
    }
    if (m[0] == PS_CMP) {
        const int fl = m[1], n = m[2];
        const uint16_t *p = m + 3;
        int c = 0;
        for (int k = 0; k < n && c == 0; k++) c = k >= len ? -1 : s[k] != p[k] ? (s[k] < p[k] ? -1 : 1) : 0;
        if (c == 0 && len > n) c = 1;
        switch (fl) {
        case 0: return c == 0;
        case 1: return c != 0;
        case 2: return c < 0;
        case 3: return c <= 0;
        case 4: return c > 0;
        default: return c >= 0;
        }
    }
    const uint16_t *t = m + 2; // PS_IN
    for (int j = 0, cnt = m[1]; j < cnt; j++) {
        const int n = *t++;
        if (n == len) {
            bool eq = true;
            for (int k = 0; k < n && eq; k++) eq = s[k] == t[k];
            if (eq) return true;
        }
        t += n;
    }
    return false;
}

// The registers. A value lives in dynamic shared memory (pg_sp), register
// r of thread t at i128 index r * blockDim.x + t from the kernel's base
// (after pg_agg_domain's partials), so that writing one stays on the
// multiprocessor: as a thread's local array every write went through to
// L2 (ncu, TPC-H Q6 at SF1 on the interpreter: 33 L2 sectors written a
// row, L2 72% busy, 72% of stalls waiting on L1TEX; bench/results/
// 2026-11-28-h200-tpch-tpcds-first-run-v27-strmatch.md; in shared memory
// Q6 at SF10 ran in 21 ms, 2.2x DuckDB, against 48 ms, 0.7x, before:
// 2026-11-28-h100-tpch-sf10-first-run-v28-shared-registers.md, on an
// H100 where the first was an H200). The null flags are
// the bits of a 64-bit word (nm) the kernels keep in a register and
// pg_run takes and returns.
extern __shared__ __align__(16) uint64_t pg_sp[];

struct pg_regs {
    i128 *v;    // this thread's register 0
    unsigned s; // the stride between registers (blockDim.x)
};
__device__ __forceinline__ pg_regs pg_regs_at(unsigned word) {
    pg_regs r;
    r.v = (i128 *)(pg_sp + word) + threadIdx.x;
    r.s = blockDim.x;
    return r;
}
#define RV(x) RG.v[(unsigned)(x) * RG.s]
#define PN(x) ((nm >> (x)) & 1ull)
__device__ __forceinline__ uint64_t pg_setn(uint64_t nm, int r, bool n) { return (nm & ~(1ull << r)) | ((uint64_t)n << r); }

// pg_run interprets instructions [pc, end) for row i: one function the
// kernels call (inlined into each, the module took 4.2 s to compile on the
// build machine; RIGEL_NVRTC=... go test ./gpu/cuda -run TestProgramCompiles -v).
__device__ __noinline__ uint64_t pg_run(const uint64_t *P, int pc, int end, long long i, const pg_regs RG, uint64_t nm) {
    uint32_t *st = (uint32_t *)P[PG_STATUS];
    const uint64_t *in = P + P[PG_INPUTS];
    const uint64_t *strs = P + P[PG_STRS];
    const int4 *code = (const int4 *)(P + P[PG_CODE]);
    const i128 *K = (const i128 *)(P + P[PG_CONST]);
    while (pc < end) {
        const int4 I = code[pc++];
        const int op = I.x & 0xff, kind = (I.x >> 8) & 0xff, ak = (I.x >> 16) & 0xff, fl = (I.x >> 24) & 0xff;
        const int d = I.y & 0xffff, a = (I.y >> 16) & 0xffff, b = I.z & 0xffff, c = (I.z >> 16) & 0xffff;
        const int imm = I.w;
        switch (op) {
        case PI_LOAD: {
            const uint64_t *col = in + 4 * imm;
            // A Str column passes through as its views (rg_str_view).
            RV(d) = kind == PK_STR ? (i128)rg_str_view(col[0], col[3], i) : col[3] ? (i128)rg_unpacked(col[0], col[3], i) : pg_load(col[0], kind, i);
            nm = pg_setn(nm, d, col[1] != 0 && ((const uint8_t *)col[1])[i] == 0);
            break;
        }
        case PI_CONST:
            RV(d) = (fl & 1) ? (i128)0 : K[imm];
            nm = pg_setn(nm, d, fl & 1);
            break;
        case PI_MOV:
            RV(d) = RV(a);
            nm = pg_setn(nm, d, PN(a));
            break;
        case PI_ARITH_I: {
            const bool n = PN(a) || PN(b);
            i128 v = 0;
            if (!n) {
                i128 r;
                const i128 x = RV(a), y = RV(b);
                if (x == (i128)(long long)x && y == (i128)(long long)y) {
                    // Both fit 64 bits: the exact result fits 128 (one
                    // 64x64->128 multiply), as the generated code's fits64.
                    r = fl == 0 ? x + y : fl == 1 ? x - y : (i128)(long long)x * (i128)(long long)y;
                } else {
                    const bool of = fl == 0 ? rg_add128(x, y, &r) : fl == 1 ? rg_sub128(x, y, &r) : rg_mul128(x, y, &r);
                    if (of) rg_raise(st, RG_OVERFLOW);
                }
                pg_fits(r, c, K, st);
                v = pg_narrow(r, kind);
            }
            RV(d) = v;
            nm = pg_setn(nm, d, n);
            break;
        }
        case PI_ARITH_F: {
            const bool n = PN(a) || PN(b);
            i128 v = 0;
            if (!n) {
                if (kind == PK_FLOAT32) {
                    const float x = (float)pg_f(RV(a)), y = (float)pg_f(RV(b));
                    const float r = fl == 0 ? x + y : fl == 1 ? x - y : fl == 2 ? x * y : x / y;
                    v = pg_fbits((double)r);
                } else {
                    const double x = pg_f(RV(a)), y = pg_f(RV(b));
                    v = pg_fbits(fl == 0 ? x + y : fl == 1 ? x - y : fl == 2 ? x * y : x / y);
                }
            }
            RV(d) = v;
            nm = pg_setn(nm, d, n);
            break;
        }
        case PI_NEG_I: {
            const bool n = PN(a);
            i128 v = 0;
            if (!n) {
                i128 r;
                if (rg_sub128(0, RV(a), &r)) rg_raise(st, RG_OVERFLOW);
                pg_fits(r, c, K, st);
                v = pg_narrow(r, kind);
            }
            RV(d) = v;
            nm = pg_setn(nm, d, n);
            break;
        }
        case PI_NEG_F:
            nm = pg_setn(nm, d, PN(a));
            RV(d) = PN(a) ? (i128)0 : pg_fbits(-pg_f(RV(a)));
            break;
        case PI_CMP: {
            const bool n = PN(a) || PN(b);
            int v = 0;
            if (!n) {
                int s;
                if (ak == PK_FLOAT32 || ak == PK_FLOAT64) {
                    s = rg_fcmp(pg_f(RV(a)), pg_f(RV(b)));
                } else {
                    s = RV(a) < RV(b) ? -1 : RV(a) > RV(b) ? 1 : 0;
                }
                switch (fl) {
                case 0: v = s == 0; break;
                case 1: v = s != 0; break;
                case 2: v = s < 0; break;
                case 3: v = s <= 0; break;
                case 4: v = s > 0; break;
                default: v = s >= 0;
                }
            }
            RV(d) = v;
            nm = pg_setn(nm, d, n);
            break;
        }
        case PI_AND: case PI_OR: {
            // Kleene logic, as the generated n-ary form: an argument that
            // is false (AND) or true (OR) decides; else a null makes null.
            const bool want = op == PI_OR;
            const bool dec = (!PN(a) && (RV(a) != 0) == want) || (!PN(b) && (RV(b) != 0) == want);
            const bool u = PN(a) || PN(b);
            RV(d) = want ? (int)dec : (int)!dec;
            nm = pg_setn(nm, d, !dec && u);
            break;
        }
        case PI_NOT:
            RV(d) = RV(a) == 0 ? 1 : 0;
            nm = pg_setn(nm, d, PN(a));
            break;
        case PI_ISNULL:
            RV(d) = PN(a) ? 1 : 0;
            nm = pg_setn(nm, d, false);
            break;
        case PI_ISNOTNULL:
            RV(d) = PN(a) ? 0 : 1;
            nm = pg_setn(nm, d, false);
            break;
        case PI_CAST_II: {
            // fl: 0 same scale, 1 multiply by K[imm], 2 divide by K[imm]
            // rounding half away from zero, 3 a scale step beyond 38
            // digits (rounds to zero).
            const bool n = PN(a);
            i128 v = 0;
            if (!n) {
                i128 r = RV(a);
                if (fl == 1) {
                    if (rg_mul128(r, K[imm], &r)) rg_raise(st, RG_OVERFLOW);
                } else if (fl == 2) {
                    r = rg_div_round(r, K[imm]);
                } else if (fl == 3) {
                    r = 0;
                }
                pg_fits(r, c, K, st);
                v = pg_narrow(r, kind);
            }
            RV(d) = v;
            nm = pg_setn(nm, d, n);
            break;
        }
        case PI_CAST_IF: {
            // imm: the decimal scale s; c: K index of 10^s; b: K index of
            // 10^s as a double (the fast path's divisor, s <= 22).
            const bool n = PN(a);
            i128 v = 0;
            if (!n) {
                const i128 x = RV(a);
                const int s = imm;
                if (kind == PK_FLOAT32) {
                    float r;
                    if (s == 0 && x >= (i128)(-9223372036854775807LL - 1) && x <= (i128)9223372036854775807LL) r = (float)(long long)x;
                    else if (s > 0 && s <= 10 && x >= -(i128)16777216LL && x <= (i128)16777216LL) r = (float)(long long)x / (float)pg_f(K[b]);
                    else r = (float)rg_dec_to_f64(x, (u128)K[c], true);
                    v = pg_fbits((double)r);
                } else {
                    double r;
                    if (s == 0 && x >= (i128)(-9223372036854775807LL - 1) && x <= (i128)9223372036854775807LL) r = (double)(long long)x;
                    else if (s > 0 && s <= 22 && x >= -(i128)9007199254740992LL && x <= (i128)9007199254740992LL) r = (double)(long long)x / pg_f(K[b]);
                    else r = rg_dec_to_f64(x, (u128)K[c], false);
                    v = pg_fbits(r);
                }
            }
            RV(d) = v;
            nm = pg_setn(nm, d, n);
            break;
        }
        case PI_CAST_FF:
            nm = pg_setn(nm, d, PN(a));
            RV(d) = PN(a) ? (i128)0 : (kind == PK_FLOAT32 ? pg_fbits((double)(float)pg_f(RV(a))) : RV(a));
            break;
        case PI_JMP:
            pc = imm;
            break;
        case PI_JMPF: // to imm unless register a is true
            if (PN(a) || RV(a) == 0) pc = imm;
            break;
        case PI_STRPRED:
            nm = pg_setn(nm, d, PN(a));
            RV(d) = PN(a) ? (i128)0 : (i128)((const uint8_t *)strs[imm])[(long long)RV(a)];
            break;
        case PI_STRMAP:
            nm = pg_setn(nm, d, PN(a));
            RV(d) = PN(a) ? (i128)0 : (i128)((const int32_t *)strs[imm])[(long long)RV(a)];
            break;
        case PI_STRMATCH: {
            // a: the view of input column imm (PI_LOAD); c: K index of the
            // matcher.
            nm = pg_setn(nm, d, PN(a));
            int v = 0;
            if (!PN(a)) {
                const uint64_t view = (uint64_t)RV(a);
                const uint8_t *chars = (const uint8_t *)(in[4 * imm + 3] & ~1ull);
                v = pg_str_match((const uint16_t *)(K + c), chars + (uint32_t)view, (int)(view >> 32));
            }
            RV(d) = v;
            break;
        }
        case PI_ABS_I: {
            const bool n = PN(a);
            i128 v = 0;
            if (!n) {
                i128 r = RV(a);
                if (r < 0 && rg_sub128(0, r, &r)) rg_raise(st, RG_OVERFLOW);
                pg_fits(r, c, K, st);
                v = pg_narrow(r, kind);
            }
            RV(d) = v;
            nm = pg_setn(nm, d, n);
            break;
        }
        case PI_ABS_F:
            nm = pg_setn(nm, d, PN(a));
            RV(d) = PN(a) ? (i128)0 : (kind == PK_FLOAT32 ? pg_fbits((double)(float)fabs(pg_f(RV(a)))) : pg_fbits(fabs(pg_f(RV(a)))));
            break;
        case PI_ROUND_I: {
            // fl: 0 the value itself, 1 zero (|x| < 10^38 rounds to it), 2
            // rounded half away from zero to a multiple of K[imm].
            const bool n = PN(a);
            i128 v = 0;
            if (!n) {
                i128 r = RV(a);
                if (fl == 1) {
                    r = 0;
                } else if (fl == 2) {
                    if (rg_mul128(rg_div_round(r, K[imm]), K[imm], &r)) rg_raise(st, RG_OVERFLOW);
                    pg_fits(r, c, K, st);
                }
                v = pg_narrow(r, kind);
            }
            RV(d) = v;
            nm = pg_setn(nm, d, n);
            break;
        }
        case PI_ROUND_F: {
            // Ties away from zero (CUDA's round), as codegen_num.go.
            const bool n = PN(a) || PN(b);
            i128 v = 0;
            if (!n) {
                const double x = pg_f(RV(a));
                const long long dg = (long long)RV(b);
                double y;
                if (isnan(x) || isinf(x) || dg > 308) y = x;
                else if (dg < -308) y = copysign(0.0, x);
                else { const double p = pow(10.0, (double)dg); y = isinf(x * p) ? x : round(x * p) / p; }
                v = kind == PK_FLOAT32 ? pg_fbits((double)(float)y) : pg_fbits(y);
            }
            RV(d) = v;
            nm = pg_setn(nm, d, n);
            break;
        }
        case PI_DATEPART: {
            // H. Hinnant's civil_from_days, as codegen_str.go's datePart.
            nm = pg_setn(nm, d, PN(a));
            long long v = 0;
            if (!PN(a)) {
                const long long z = (long long)RV(a) + 719468;
                const long long era = (z >= 0 ? z : z - 146096) / 146097;
                const long long doe = z - era * 146097;
                const long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
                const long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
                const long long mp = (5 * doy + 2) / 153;
                const long long dd = doy - (153 * mp + 2) / 5 + 1;
                const long long mm = mp < 10 ? mp + 3 : mp - 9;
                const long long yy = yoe + era * 400 + (mm <= 2 ? 1 : 0);
                v = fl == 0 ? yy : fl == 1 ? mm : dd;
            }
            RV(d) = v;
            break;
        }
        }
    }
    return nm;
}

// pg_pass evaluates the filter of row i (true without one).
__device__ __forceinline__ bool pg_pass(const uint64_t *P, long long i, const pg_regs &RG, uint64_t &nm) {
    const int end = (int)P[PG_FILTER_END];
    if (end == 0) return true;
    nm = pg_run(P, 0, end, i, RG, nm);
    const int r = (int)P[PG_FILTER_REG];
    return !PN(r) && RV(r) != 0;
}

// pg_count: rg_count's tiles over the program's filter. Args: program,
// tile counts, ntiles, pass mask (one bit a row).
extern "C" __global__ void __launch_bounds__(256) pg_count(const Args A) {
    const uint64_t *P = (const uint64_t *)A.a[0];
    const long long n = (long long)P[PG_N];
    const long long ntiles = (long long)A.a[2];
    uint32_t *mask = (uint32_t *)A.a[3];
    __shared__ uint32_t wcnt[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const pg_regs RG = pg_regs_at(0);
    uint64_t nm = 0;
    for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
        uint32_t c = 0;
        for (int k = 0; k < 4; k++) {
            const long long i = t * 1024 + k * 256 + threadIdx.x;
            bool ok = false;
            if (i < n) ok = pg_pass(P, i, RG, nm);
            c += ok;
            const unsigned m = __ballot_sync(0xffffffffu, ok);
            if (lane == 0 && i < n) mask[i >> 5] = m;
        }
        c = (uint32_t)rg_warp_sum64(c);
        if (lane == 0) wcnt[warp] = c;
        __syncthreads();
        if (threadIdx.x == 0) { uint32_t s = 0; for (int w = 0; w < 8; w++) s += wcnt[w]; ((uint32_t *)A.a[1])[t] = s; }
        __syncthreads();
    }
}

// pg_project stores the projections of row i at output row pos. outs:
// two words (data, validity) per projection.
__device__ __forceinline__ void pg_project(const uint64_t *P, const uint64_t *outs, long long i, long long pos, const pg_regs &RG, uint64_t &nm) {
    nm = pg_run(P, (int)P[PG_FILTER_END], (int)P[PG_PROJ_END], i, RG, nm);
    const uint64_t *proj = P + P[PG_PROJ];
    const int np = (int)P[PG_NPROJ];
    for (int j = 0; j < np; j++) {
        const uint64_t w = proj[j];
        const int r = (int)(w & 0xffff), k = (int)((w >> 16) & 0xff);
        pg_store(outs[2 * j], k, pos, RV(r));
        if ((w >> 24) & 1) ((uint8_t *)outs[2 * j + 1])[pos] = PN(r) ? 0 : 1;
    }
}

// pg_write: rg_write's tiles (the pass mask in place of the filter).
// Args: program, tile offsets, ntiles, pass mask, outputs.
extern "C" __global__ void __launch_bounds__(256) pg_write(const Args A) {
    const uint64_t *P = (const uint64_t *)A.a[0];
    const long long n = (long long)P[PG_N];
    const long long ntiles = (long long)A.a[2];
    const uint32_t *mask = (const uint32_t *)A.a[3];
    const uint64_t *outs = (const uint64_t *)A.a[4];
    __shared__ uint32_t wcnt[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const pg_regs RG = pg_regs_at(0);
    uint64_t nm = 0;
    for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
        unsigned long long base = ((const unsigned long long *)A.a[1])[t];
        for (int k = 0; k < 4; k++) {
            const long long i = t * 1024 + k * 256 + threadIdx.x;
            const long long w0 = i - lane;
            const unsigned m = w0 < n ? mask[w0 >> 5] : 0u;
            const bool ok = (m >> lane) & 1u;
            if (lane == 0) wcnt[warp] = __popc(m);
            __syncthreads();
            unsigned before = 0, total = 0;
            for (int w = 0; w < 8; w++) { if (w < warp) before += wcnt[w]; total += wcnt[w]; }
            if (ok) pg_project(P, outs, i, base + before + __popc(m & ((1u << lane) - 1u)), RG, nm);
            base += total;
            __syncthreads();
        }
    }
}

// pg_write_all: every row passes (no filter): row i is output row i.
// Args: program, -, -, -, outputs.
extern "C" __global__ void __launch_bounds__(256) pg_write_all(const Args A) {
    const uint64_t *P = (const uint64_t *)A.a[0];
    const long long n = (long long)P[PG_N];
    const uint64_t *outs = (const uint64_t *)A.a[4];
    const pg_regs RG = pg_regs_at(0);
    uint64_t nm = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        pg_project(P, outs, i, i, RG, nm);
    }
}

// Aggregates (aggPlan's table layout, codegen_agg.go). An aggregate's
// word: kind | arg kind << 8 | arg nullable << 16 | register << 24 |
// value word << 40 | non-null word << 48 (0xff: none) | first partial << 56.
#define PA_KIND(w) ((int)((w) & 0xff))
#define PA_ARGK(w) ((int)(((w) >> 8) & 0xff))
#define PA_NULLABLE(w) ((int)(((w) >> 16) & 1))
#define PA_REG(w) ((int)(((w) >> 24) & 0xffff))
#define PA_VAL(w) ((int)(((w) >> 40) & 0xff))
#define PA_NN(w) ((int)(((w) >> 48) & 0xff))
#define PA_PART(w) ((int)(((w) >> 56) & 0xff))

__device__ __forceinline__ bool pa_float(int k) { return k == PK_FLOAT32 || k == PK_FLOAT64; }

// pg_agg_init: rg_agg_init's zeros and min/max identities, and empty
// slot states for a hash table. Args: program, table, slots, states (0
// for the domain strategy).
extern "C" __global__ void __launch_bounds__(256) pg_agg_init(const Args A) {
    const uint64_t *P = (const uint64_t *)A.a[0];
    uint64_t *T = (uint64_t *)A.a[1];
    const uint64_t ns = A.a[2];
    const int W = (int)P[PG_SLOT_WORDS], na = (int)P[PG_NAGGS];
    const uint64_t *aggs = P + P[PG_AGGS];
    uint32_t *ST = (uint32_t *)A.a[3];
    for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < ns; s += (uint64_t)gridDim.x * blockDim.x) {
        for (int w = 0; w < W; w++) T[s * W + w] = 0;
        if (ST) ST[s] = 0;
        for (int j = 0; j < na; j++) {
            const uint64_t g = aggs[j];
            const int k = PA_KIND(g), ak = PA_ARGK(g), v = PA_VAL(g);
            if (k != PAGG_MIN && k != PAGG_MAX) continue;
            const bool isMax = k == PAGG_MAX;
            if (ak == PK_DECIMAL128) {
                T[s * W + v] = isMax ? 0 : ~0ull;
                T[s * W + v + 1] = isMax ? 0x8000000000000000ull : 0x7fffffffffffffffull;
            } else if (pa_float(ak)) {
                if (!isMax) T[s * W + v] = ~0ull;
            } else {
                T[s * W + v] = isMax ? 0x8000000000000000ull : 0x7fffffffffffffffull;
            }
        }
    }
}

// Per-thread partials of the domain aggregate live in dynamic shared
// memory, word (group * pslots + slot) * blockDim.x + thread, as the
// generated shared-partials kernels keep them (codegen_agg_shared.go):
// no atomics until the flush. Slot 0 counts the group's rows; each
// aggregate but count(*) has a non-null count when its argument is
// nullable (PA_PART), then its partial (two words for a decimal128
// min/max).

// PS: partial words per group (PG_PSLOTS).
#define pg_slot(g, s) pg_sp[((unsigned)(g) * (unsigned)PS + (unsigned)(s)) * blockDim.x + threadIdx.x]

__device__ __forceinline__ void pa_identity(int g, const uint64_t *aggs, int na, int PS) {
    pg_slot(g, 0) = 0;
    for (int j = 0; j < na; j++) {
        const uint64_t w = aggs[j];
        const int k = PA_KIND(w), ak = PA_ARGK(w);
        int s = PA_PART(w);
        if (k == PAGG_COUNT_STAR) continue;
        if (PA_NULLABLE(w)) pg_slot(g, s++) = 0;
        if (k == PAGG_COUNT) continue;
        const bool isMax = k == PAGG_MAX;
        if (k == PAGG_SUM) {
            pg_slot(g, s) = 0; // a double's 0.0 too
        } else if (ak == PK_DECIMAL128) {
            pg_slot(g, s) = isMax ? 0 : ~0ull;
            pg_slot(g, s + 1) = isMax ? 0x8000000000000000ull : 0x7fffffffffffffffull;
        } else if (pa_float(ak)) {
            pg_slot(g, s) = isMax ? 0 : ~0ull;
        } else {
            pg_slot(g, s) = isMax ? 0x8000000000000000ull : 0x7fffffffffffffffull;
        }
    }
}

// pa_update adds row values (registers) to group g's partials, as
// codegen_agg.go's updatePartial.
__device__ __forceinline__ void pa_update(int g, const uint64_t *aggs, int na, int PS, uint64_t *R, int W, const pg_regs &RG, uint64_t nm) {
    pg_slot(g, 0)++;
    for (int j = 0; j < na; j++) {
        const uint64_t w = aggs[j];
        const int k = PA_KIND(w), ak = PA_ARGK(w), r = PA_REG(w);
        int s = PA_PART(w);
        if (k == PAGG_COUNT_STAR || PN(r)) continue;
        if (PA_NULLABLE(w)) pg_slot(g, s++)++;
        if (k == PAGG_COUNT) continue;
        const bool isMax = k == PAGG_MAX;
        if (k == PAGG_SUM && pa_float(ak)) {
            pg_slot(g, s) = (uint64_t)__double_as_longlong(__longlong_as_double((long long)pg_slot(g, s)) + pg_f(RV(r)));
        } else if (k == PAGG_SUM) {
            // An int64 partial is exact until an add overflows; then it
            // goes to the table's 192-bit accumulator and restarts.
            uint64_t *acc = &R[(unsigned)g * (unsigned)W + PA_VAL(w)];
            const i128 x = RV(r);
            const long long xl = (long long)x;
            long long p = (long long)pg_slot(g, s);
            if ((i128)xl != x) {
                rg_atomic_add192_rare(acc, x);
            } else {
                const long long sum = (long long)((unsigned long long)p + (unsigned long long)xl);
                if (((p ^ sum) & (xl ^ sum)) < 0) { rg_atomic_add192_rare(acc, (i128)p); p = xl; } else p = sum;
                pg_slot(g, s) = (uint64_t)p;
            }
        } else if (ak == PK_DECIMAL128) {
            const i128 cur = I128(pg_slot(g, s + 1), pg_slot(g, s));
            if (isMax ? RV(r) > cur : RV(r) < cur) { pg_slot(g, s) = (uint64_t)RV(r); pg_slot(g, s + 1) = (uint64_t)((u128)RV(r) >> 64); }
        } else if (pa_float(ak)) {
            const uint64_t key = rg_f64_key(pg_f(RV(r)));
            if (isMax ? key > pg_slot(g, s) : key < pg_slot(g, s)) pg_slot(g, s) = key;
        } else {
            const long long x = (long long)RV(r);
            if (isMax ? x > (long long)pg_slot(g, s) : x < (long long)pg_slot(g, s)) pg_slot(g, s) = (uint64_t)x;
        }
    }
}

// pa_flush adds group g's partials of every thread to the table, one
// atomic per warp and word, as codegen_agg.go's flushGroup.
__device__ __forceinline__ void pa_flush(int g, const uint64_t *aggs, int na, int PS, uint64_t *R) {
    const int lane = threadIdx.x & 31;
    const uint64_t cnt = pg_slot(g, 0);
    const uint64_t c = rg_warp_total64(cnt);
    if (lane == 0 && c) atomicAdd((unsigned long long *)&R[0], (unsigned long long)c);
    for (int j = 0; j < na; j++) {
        const uint64_t w = aggs[j];
        const int k = PA_KIND(w), ak = PA_ARGK(w), v = PA_VAL(w), nnw = PA_NN(w);
        int s = PA_PART(w);
        if (k == PAGG_COUNT_STAR) continue;
        uint64_t mine = cnt;
        if (PA_NULLABLE(w)) mine = pg_slot(g, s++);
        const uint64_t nn = rg_warp_total64(mine);
        if (k == PAGG_COUNT) {
            if (lane == 0 && nn) atomicAdd((unsigned long long *)&R[v], (unsigned long long)nn);
            continue;
        }
        if (nnw != 0xff && nnw > 0 && lane == 0 && nn) atomicAdd((unsigned long long *)&R[nnw], (unsigned long long)nn);
        const bool isMax = k == PAGG_MAX;
        if (k == PAGG_SUM && pa_float(ak)) {
            double x = __longlong_as_double((long long)pg_slot(g, s));
            for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o);
            if (lane == 0 && nn) atomicAdd((double *)&R[v], x);
        } else if (k == PAGG_SUM) {
            rg_flush_sum128(&R[v], (i128)(long long)pg_slot(g, s));
        } else if (ak == PK_DECIMAL128) {
            i128 x = I128(pg_slot(g, s + 1), pg_slot(g, s));
            for (int o = 16; o > 0; o >>= 1) {
                const uint64_t lo = __shfl_down_sync(0xffffffffu, (unsigned long long)(uint64_t)x, o);
                const uint64_t hi = __shfl_down_sync(0xffffffffu, (unsigned long long)(uint64_t)((u128)x >> 64), o);
                const i128 y = I128(hi, lo);
                if (isMax ? y > x : y < x) x = y;
            }
            if (lane == 0 && nn) rg_atomic_minmax128(&R[v], x, isMax);
        } else if (pa_float(ak)) {
            unsigned long long x = pg_slot(g, s);
            for (int o = 16; o > 0; o >>= 1) { const unsigned long long y = __shfl_down_sync(0xffffffffu, x, o); x = isMax ? max(x, y) : min(x, y); }
            if (lane == 0 && nn) { if (isMax) atomicMax((unsigned long long *)&R[v], x); else atomicMin((unsigned long long *)&R[v], x); }
        } else {
            long long x = (long long)pg_slot(g, s);
            for (int o = 16; o > 0; o >>= 1) { const long long y = __shfl_down_sync(0xffffffffu, x, o); x = isMax ? max(x, y) : min(x, y); }
            if (lane == 0 && nn) { if (isMax) atomicMax((long long *)&R[v], x); else atomicMin((long long *)&R[v], x); }
        }
    }
}

// pg_agg_domain: the domain strategy (every key a bool or a small
// dictionary; no key is one group). Args: program, table.
extern "C" __global__ void __launch_bounds__(256) pg_agg_domain(const Args A) {
    const uint64_t *P = (const uint64_t *)A.a[0];
    uint64_t *T = (uint64_t *)A.a[1];
    const long long n = (long long)P[PG_N];
    const int G = (int)P[PG_GROUPS], na = (int)P[PG_NAGGS], nk = (int)P[PG_NKEYS];
    const int PS = (int)P[PG_PSLOTS], W = (int)P[PG_SLOT_WORDS];
    const uint64_t *aggs = P + P[PG_AGGS];
    const uint64_t *keys = P + P[PG_KEYS];
    for (int g = 0; g < G; g++) pa_identity(g, aggs, na, PS);
    const pg_regs RG = pg_regs_at((unsigned)G * (unsigned)PS * blockDim.x);
    uint64_t nm = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        if (!pg_pass(P, i, RG, nm)) continue;
        nm = pg_run(P, (int)P[PG_FILTER_END], (int)P[PG_PROJ_END], i, RG, nm);
        // A key's word: register | domain << 16 | stride << 32 |
        // nullable << 63 (a null is the domain's last code).
        int gid = 0;
        for (int q = 0; q < nk; q++) {
            const uint64_t w = keys[q];
            const int r = (int)(w & 0xffff), dom = (int)((w >> 16) & 0xffff), stride = (int)((w >> 32) & 0x7fffffff);
            const int code = ((w >> 63) && PN(r)) ? dom - 1 : (int)RV(r);
            gid += code * stride;
        }
        pa_update(gid, aggs, na, PS, T, W, RG, nm);
    }
    for (int g = 0; g < G; g++) pa_flush(g, aggs, na, PS, T + (unsigned)g * (unsigned)W);
}

// The hash strategy: aggPlan's table (slots of W words, their keys in K,
// KW words a slot, their states in ST), filled as the generated kernel
// fills it (codegen_agg_hash.go: the same hash, probing, slot states and
// fill count), one row at a time rather than a warp's runs at a time; and
// emptied as its rg_agg_used and rg_agg_emit do (codegen_agg_emit.go).
// A hash key's word: register | kind << 16 | key word << 24 | null bit
// << 32 (0xff: not nullable) | input column << 40 (a Str key's, whose
// characters its view points into: hashed and compared by bytes).

// pa_row adds one row's values to the slot R with atomics, as
// codegen_agg_hash.go's runUpdate adds a run's.
__device__ __forceinline__ void pa_row(uint64_t *R, const uint64_t *aggs, int na, const pg_regs &RG, uint64_t nm) {
    atomicAdd((unsigned long long *)&R[0], 1ull);
    for (int j = 0; j < na; j++) {
        const uint64_t w = aggs[j];
        const int k = PA_KIND(w), ak = PA_ARGK(w), r = PA_REG(w), v = PA_VAL(w), nnw = PA_NN(w);
        if (k == PAGG_COUNT_STAR || PN(r)) continue;
        if (k == PAGG_COUNT) {
            atomicAdd((unsigned long long *)&R[v], 1ull);
            continue;
        }
        if (nnw != 0xff && nnw > 0) atomicAdd((unsigned long long *)&R[nnw], 1ull);
        const bool isMax = k == PAGG_MAX;
        if (k == PAGG_SUM && pa_float(ak)) {
            atomicAdd((double *)&R[v], pg_f(RV(r)));
        } else if (k == PAGG_SUM) {
            rg_atomic_add192(&R[v], RV(r));
        } else if (ak == PK_DECIMAL128) {
            rg_atomic_minmax128(&R[v], RV(r), isMax);
        } else if (pa_float(ak)) {
            const unsigned long long x = rg_f64_key(pg_f(RV(r)));
            if (isMax) atomicMax((unsigned long long *)&R[v], x); else atomicMin((unsigned long long *)&R[v], x);
        } else {
            const long long x = (long long)RV(r);
            if (isMax) atomicMax((long long *)&R[v], x); else atomicMin((long long *)&R[v], x);
        }
    }
}

// pg_agg_hash. Args: program, table, keys, states, fill (the claimed
// slots, then five progress counters: agg_run.go's tableFill), capacity
// (a power of two), the fill limit.
extern "C" __global__ void __launch_bounds__(256) pg_agg_hash(const Args A) {
    const uint64_t *P = (const uint64_t *)A.a[0];
    uint64_t *T = (uint64_t *)A.a[1];
    uint64_t *K = (uint64_t *)A.a[2];
    uint32_t *ST = (uint32_t *)A.a[3];
    uint32_t *fill = (uint32_t *)A.a[4];
    unsigned long long *progress = (unsigned long long *)A.a[4] + 1;
    const uint64_t cap = A.a[5], maxFill = A.a[6];
    uint32_t *st = (uint32_t *)P[PG_STATUS];
    const long long n = (long long)P[PG_N];
    const int W = (int)P[PG_SLOT_WORDS], na = (int)P[PG_NAGGS], nk = (int)P[PG_NKEYS], KW = (int)P[PG_KEY_WORDS];
    const int nullWord = (int)(long long)P[PG_NULL_WORD];
    const uint64_t *aggs = P + P[PG_AGGS];
    const uint64_t *keys = P + P[PG_KEYS];
    const int lane = threadIdx.x & 31;
    const unsigned FULL = 0xffffffffu;
    unsigned long long iters = 0, rowsIn = 0, innerRuns = 0, innerHits = 0;
    __shared__ unsigned blockFill;
    if (threadIdx.x == 0) blockFill = 0;
    __syncthreads();
    const unsigned fillStep = (unsigned)max(1ull, cap / 10 / gridDim.x);
    bool recheck = false;
    // The characters of each key word that is a Str key's view.
    const uint8_t *kcs[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int q = 0; q < nk; q++) {
        const uint64_t w = keys[q];
        if (((w >> 16) & 0xff) == PK_STR) kcs[(w >> 24) & 0xff] = (const uint8_t *)(P[P[PG_INPUTS] + 4 * ((w >> 40) & 0xffff) + 3] & ~1ull);
    }
    const pg_regs RG = pg_regs_at(0);
    uint64_t nm = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i - lane < n; i += (long long)gridDim.x * blockDim.x) {
        if (recheck && __any_sync(FULL, ((volatile uint32_t *)fill)[0] >= maxFill)) break;
        recheck = false;
        iters++;
        bool row = false, inserted = false;
        if (i < n && pg_pass(P, i, RG, nm)) {
            row = true;
            nm = pg_run(P, (int)P[PG_FILTER_END], (int)P[PG_PROJ_END], i, RG, nm);
            uint64_t key[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            for (int q = 0; q < nk; q++) {
                const uint64_t w = keys[q];
                const int r = (int)(w & 0xffff), kk = (int)((w >> 16) & 0xff), kw = (int)((w >> 24) & 0xff), nb = (int)((w >> 32) & 0xff);
                if (nb != 0xff && PN(r)) {
                    key[nullWord] |= 1ull << nb;
                    continue;
                }
                const i128 v = RV(r);
                if (kk == PK_FLOAT64) {
                    const double x = pg_f(v);
                    key[kw] = x == 0.0 ? 0ull : (x != x ? 0x7ff8000000000000ull : (uint64_t)__double_as_longlong(x));
                } else if (kk == PK_FLOAT32) {
                    const float x = (float)pg_f(v);
                    key[kw] = x == 0.0f ? 0ull : (x != x ? 0x7fc00000ull : (uint64_t)(uint32_t)__float_as_int(x));
                } else if (kk == PK_DECIMAL128) {
                    key[kw] = (uint64_t)v;
                    key[kw + 1] = (uint64_t)((u128)v >> 64);
                } else {
                    key[kw] = (uint64_t)(long long)v;
                }
            }
            uint64_t h = 0x243F6A8885A308D3ull;
            for (int q = 0; q < KW; q++) { h = (h ^ (kcs[q] ? rg_str_hash(kcs[q], key[q]) : key[q])) * 0x9E3779B97F4A7C15ull; h ^= h >> 31; }
            h ^= h >> 29; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 32; h &= cap - 1;
            uint64_t slot = ~0ull, probes = 0;
            for (;;) {
                uint32_t s = rg_ld_acquire(&ST[h]);
                if (s == 0) {
                    if (atomicCAS(&ST[h], 0u, 1u) == 0u) {
                        for (int q = 0; q < KW; q++) K[h * KW + q] = key[q];
                        rg_st_release(&ST[h], 2u);
                        if ((atomicAdd(&blockFill, 1u) + 1u) % fillStep == 0u && atomicAdd(fill, fillStep) + fillStep > maxFill) rg_raise(st, RG_TABLE_FULL);
                        inserted = true;
                        slot = h;
                        break;
                    }
                    s = rg_ld_acquire(&ST[h]);
                }
                while (s == 1) s = rg_ld_acquire(&ST[h]);
                bool eq = true;
                for (int q = 0; q < KW; q++) {
                    const uint64_t kv = ((volatile uint64_t *)K)[h * KW + q];
                    eq = eq && (kcs[q] ? rg_str_eq(kcs[q], kv, key[q]) : kv == key[q]);
                }
                if (eq) { slot = h; break; }
                h = (h + 1) & (cap - 1);
                if ((++probes & 31) == 0 && ((volatile uint32_t *)fill)[0] >= maxFill) { rg_raise(st, RG_TABLE_FULL); break; }
                if (probes >= cap) { rg_raise(st, RG_TABLE_FULL); break; }
            }
            if (slot != ~0ull) pa_row(T + slot * W, aggs, na, RG, nm);
        }
        rowsIn += __popc(__ballot_sync(FULL, row));
        innerRuns += __popc(__ballot_sync(FULL, row && lane > 0));
        innerHits += __popc(__ballot_sync(FULL, row && lane > 0 && !inserted));
        recheck = __any_sync(FULL, inserted);
    }
    if (lane == 0 && iters) {
        atomicAdd(&progress[0], iters * 32ull);
        atomicAdd(&progress[1], rowsIn);
        atomicAdd(&progress[2], rowsIn);
        atomicAdd(&progress[3], innerRuns);
        atomicAdd(&progress[4], innerHits);
    }
}

// pg_agg_used: each tile's used slots. Args: program, table, slots,
// counts, ntiles.
extern "C" __global__ void __launch_bounds__(256) pg_agg_used(const Args A) {
    const uint64_t *P = (const uint64_t *)A.a[0];
    const uint64_t *T = (const uint64_t *)A.a[1];
    const unsigned long long ns = A.a[2];
    const long long ntiles = (long long)A.a[4];
    const int W = (int)P[PG_SLOT_WORDS];
    __shared__ uint32_t wcnt[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
        uint32_t c = 0;
        for (int k = 0; k < 4; k++) {
            const unsigned long long s = t * 1024 + k * 256 + threadIdx.x;
            c += s < ns && T[s * W] > 0;
        }
        c = (uint32_t)rg_warp_sum64(c);
        if (lane == 0) wcnt[warp] = c;
        __syncthreads();
        if (threadIdx.x == 0) { uint32_t s = 0; for (int w = 0; w < 8; w++) s += wcnt[w]; ((uint32_t *)A.a[3])[t] = s; }
        __syncthreads();
    }
}

__device__ __forceinline__ int pg_width(int k) {
    switch (k) {
    case PK_BOOL: case PK_INT8: return 1;
    case PK_INT16: return 2;
    case PK_INT32: case PK_DATE32: case PK_DICT: case PK_FLOAT32: return 4;
    case PK_DECIMAL128: return 16;
    default: return 8;
    }
}

// pg_emit_value writes output o's row r as emitValue does: the low bytes
// of v, its validity; a null where the output is not nullable raises.
__device__ __forceinline__ void pg_emit_value(const uint64_t *outs, uint64_t od, unsigned long long r, bool nl, i128 v, uint32_t *st) {
    const int k = (int)(od & 0xff);
    if ((od >> 8) & 1) ((uint8_t *)outs[1])[r] = nl ? 0 : 1;
    else if (nl) rg_raise(st, RG_NULL_NOT_NULLABLE);
    if (nl) v = 0;
    switch (pg_width(k)) {
    case 1: ((uint8_t *)outs[0])[r] = (uint8_t)(uint64_t)v; break;
    case 2: ((uint16_t *)outs[0])[r] = (uint16_t)(uint64_t)v; break;
    case 4: ((uint32_t *)outs[0])[r] = (uint32_t)(uint64_t)v; break;
    case 16: ((i128 *)outs[0])[r] = v; break;
    default: ((uint64_t *)outs[0])[r] = (uint64_t)v;
    }
}

// pg_agg_emit: each used slot's keys and aggregates at its output row,
// in slot order. Args: program, table, slots, offsets, ntiles, keys,
// outputs (two words each).
extern "C" __global__ void __launch_bounds__(256) pg_agg_emit(const Args A) {
    const uint64_t *P = (const uint64_t *)A.a[0];
    const uint64_t *T = (const uint64_t *)A.a[1];
    const unsigned long long ns = A.a[2];
    const long long ntiles = (long long)A.a[4];
    const uint64_t *K = (const uint64_t *)A.a[5];
    const uint64_t *outs = (const uint64_t *)A.a[6];
    uint32_t *st = (uint32_t *)P[PG_STATUS];
    const int W = (int)P[PG_SLOT_WORDS], na = (int)P[PG_NAGGS], nk = (int)P[PG_NKEYS], KW = (int)P[PG_KEY_WORDS];
    const int nullWord = (int)(long long)P[PG_NULL_WORD];
    const uint64_t *aggs = P + P[PG_AGGS];
    const uint64_t *keys = P + P[PG_KEYS];
    const uint64_t *od = P + P[PG_OUTS];
    __shared__ uint32_t wcnt[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
        unsigned long long base = ((const unsigned long long *)A.a[3])[t];
        for (int k = 0; k < 4; k++) {
            const unsigned long long s = t * 1024 + k * 256 + threadIdx.x;
            const bool ok = s < ns && T[s * W] > 0;
            const unsigned m = __ballot_sync(0xffffffffu, ok);
            if (lane == 0) wcnt[warp] = __popc(m);
            __syncthreads();
            unsigned before = 0, total = 0;
            for (int w = 0; w < 8; w++) { if (w < warp) before += wcnt[w]; total += wcnt[w]; }
            if (ok) {
                const unsigned long long r = base + before + __popc(m & ((1u << lane) - 1u));
                const uint64_t *R = T + s * W;
                const uint64_t *KS = K + s * KW;
                for (int q = 0; q < nk; q++) {
                    const uint64_t w = keys[q];
                    const int kk = (int)((w >> 16) & 0xff), kw = (int)((w >> 24) & 0xff), nb = (int)((w >> 32) & 0xff);
                    const bool nl = nb != 0xff && ((KS[nullWord] >> nb) & 1ull);
                    const i128 v = kk == PK_DECIMAL128 ? I128(KS[kw + 1], KS[kw]) : (i128)KS[kw];
                    pg_emit_value(outs + 2 * q, od[q], r, nl, v, st);
                }
                for (int j = 0; j < na; j++) {
                    const uint64_t w = aggs[j];
                    const int ag = PA_KIND(w), ak = PA_ARGK(w), v = PA_VAL(w), nnw = PA_NN(w);
                    const uint64_t o = od[nk + j];
                    bool nl = false;
                    i128 x;
                    if (ag == PAGG_COUNT_STAR) {
                        x = (i128)R[0];
                    } else if (ag == PAGG_COUNT) {
                        x = (i128)R[v];
                    } else {
                        nl = R[nnw] == 0;
                        if (ag == PAGG_SUM && pa_float(ak)) {
                            x = (i128)R[v];
                        } else if (ag == PAGG_SUM) {
                            if (!nl && R[v + 2] != (uint64_t)((long long)R[v + 1] >> 63)) rg_raise(st, RG_OVERFLOW);
                            x = I128(R[v + 1], R[v]);
                        } else if (ak == PK_DECIMAL128) {
                            x = I128(R[v + 1], R[v]);
                        } else if (pa_float(ak)) {
                            const uint64_t fk = R[v];
                            uint64_t b = (fk >> 63) ? (fk & ~(1ull << 63)) : ~fk;
                            if ((o & 0xff) == PK_FLOAT32) b = (uint64_t)(uint32_t)__float_as_int((float)__longlong_as_double((long long)b));
                            x = (i128)b;
                        } else {
                            x = (i128)R[v];
                        }
                    }
                    pg_emit_value(outs + 2 * (nk + j), o, r, nl, x, st);
                }
            }
            base += total;
            __syncthreads();
        }
    }
}
