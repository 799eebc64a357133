// prelude.cuh: definitions shared by every rigel kernel. NVRTC has no libc
// headers, so the few integer types and helpers are defined here.
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef __int128 i128;
typedef unsigned __int128 u128;

// Every kernel takes one parameter: a block of 64-bit words holding its
// pointers and sizes in an order the host side and the kernel agree on.
struct Args { uint64_t a[256]; };

#define I128(hi, lo) ((i128)(((u128)(uint64_t)(hi) << 64) | (u128)(uint64_t)(lo)))

// A query's constants (its literals: dates, thresholds, codes) are written
// as RG_K64/RG_KF64/RG_KF32/RG_K128 of their bits. Before a source is
// compiled, each is moved to a word of rg_k, the module's __constant__
// array that the host fills before a launch (constants.go), so that the
// same query with other constants is the same source and compiles once.
// Written as they are, they are the literals themselves.
#define RG_K64(bits) ((long long)(bits))
#define RG_KF64(bits) __longlong_as_double((long long)(bits))
#define RG_KF32(bits) __int_as_float((int)(bits))
#define RG_K128(hi, lo) I128(hi, lo)

// Flag bits a kernel raises in its status word (status[0]).
#define RG_OVERFLOW 1u
#define RG_INEXACT_FLOAT 2u
#define RG_TABLE_FULL 4u
#define RG_DOMAIN 8u // an argument outside its function's domain (gpu.ErrDomain)
// 16 is join.cu's RG_BAD_INDEX.
#define RG_NULL_NOT_NULLABLE 32u
#define RG_SUBQUERY_ROWS 64u // a single join's probe row matched twice (gpu.ErrSubqueryRows)

__device__ __forceinline__ void rg_raise(uint32_t *st, uint32_t bit) { atomicOr(st, bit); }

// Generated kernels find their status word in Args word 1.
#define status ((uint32_t *)A.a[1])

// rg_unpacked is row i of a packed integer column (gpu/forpack): its
// difference from the column's base in w bits at bit i*w of words. frame
// is the column's third Args word (inputArgs): base << 7 | 64 | w, set
// only for a packed column. A packed column has fewer than 2^32 rows
// (packing.packs), so the row's bit is a 32 by 32-bit product, and the
// funnel shift takes the bit within the word as it is (it shifts by its
// operand mod 32). The program interpreter and rg_unpack decode with it;
// generated kernels read the byte widths the device packs in with one
// load of that width (codegen_expr.go's columnValue).
__device__ __forceinline__ long long rg_unpacked(uint64_t words, uint64_t frame, long long i) {
    const uint32_t w = (uint32_t)frame & 63u;
    const unsigned long long bit = (unsigned long long)(uint32_t)i * w;
    const uint32_t *p = (const uint32_t *)words + (uint32_t)(bit >> 5);
    const uint32_t d = __funnelshift_r(p[0], p[1], (uint32_t)bit) & (uint32_t)((1ull << w) - 1ull);
    return ((long long)frame >> 7) + (long long)d;
}

// 128-bit arithmetic with signed overflow detection.
__device__ __forceinline__ bool rg_add128(i128 a, i128 b, i128 *r) {
    i128 s = (i128)((u128)a + (u128)b);
    *r = s;
    return ((a ^ s) & (b ^ s)) < 0;
}
__device__ __forceinline__ bool rg_sub128(i128 a, i128 b, i128 *r) {
    i128 s = (i128)((u128)a - (u128)b);
    *r = s;
    return ((a ^ b) & (a ^ s)) < 0;
}
__device__ __forceinline__ bool rg_mul128(i128 a, i128 b, i128 *r) {
    bool neg = (a < 0) != (b < 0);
    u128 ua = a < 0 ? (u128)0 - (u128)a : (u128)a;
    u128 ub = b < 0 ? (u128)0 - (u128)b : (u128)b;
    uint64_t a1 = (uint64_t)(ua >> 64), a0 = (uint64_t)ua;
    uint64_t b1 = (uint64_t)(ub >> 64), b0 = (uint64_t)ub;
    *r = 0;
    if (a1 != 0 && b1 != 0) return true;
    u128 lo = (u128)a0 * b0;
    u128 cross = (u128)a1 * b0 + (u128)a0 * b1; // one term is zero
    if ((cross >> 64) != 0) return true;
    u128 m = lo + (cross << 64);
    if (m < lo) return true;
    u128 lim = (u128)1 << 127;
    if (neg ? m > lim : m >= lim) return true;
    *r = neg ? (i128)((u128)0 - m) : (i128)m;
    return false;
}

// Division by a positive power of ten, rounding half away from zero.
__device__ __forceinline__ i128 rg_div_round(i128 v, i128 d) {
    i128 q = v / d, r = v % d;
    if (r < 0) r = -r;
    if (r * 2 >= d) q += (v < 0 ? -1 : 1);
    return q;
}

// Exact sums: a 192-bit two's complement accumulator in three words
// (lo, mid, hi) updated with one atomic per word and explicit carries, so
// that any order of concurrent adds gives the exact total. The host checks
// at the end that the total fits 128 bits.
__device__ __forceinline__ void rg_atomic_add192(uint64_t *w, i128 v) {
    uint64_t lo = (uint64_t)v, mid = (uint64_t)((u128)v >> 64), hi = v < 0 ? ~0ull : 0ull;
    if (lo != 0) {
        uint64_t old = atomicAdd((unsigned long long *)&w[0], (unsigned long long)lo);
        if (old + lo < old) {
            uint64_t m2 = mid + 1;
            if (m2 == 0) hi += 1; // mid was all ones: the carry passes through
            mid = m2;
        }
    }
    if (mid != 0) {
        uint64_t old = atomicAdd((unsigned long long *)&w[1], (unsigned long long)mid);
        if (old + mid < old) hi += 1;
    }
    if (hi != 0) atomicAdd((unsigned long long *)&w[2], (unsigned long long)hi);
}

// Acquire/release on a hash table's slot state: a reader that sees a slot
// published (state 2) also sees its key, and a writer publishes its key
// before the state. Cheaper than __threadfence, which would also wait for
// the thread's own earlier atomics (the table updates of its previous row).
__device__ __forceinline__ uint32_t rg_ld_acquire(const uint32_t *p) {
    uint32_t v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void rg_st_release(uint32_t *p, uint32_t v) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

// Floats are min/maxed through an order-preserving map to uint64: NaN
// (canonicalized) sorts above +Inf, as in SQL engines; -0 sorts below +0.
__device__ __forceinline__ uint64_t rg_f64_key(double d) {
    uint64_t b = (d != d) ? 0x7ff8000000000000ull : (uint64_t)__double_as_longlong(d);
    return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}

// 128-bit min/max of the accumulator at w (words lo, hi, lock; lo 16-byte
// aligned). On sm_90 and later one 128-bit compare-and-swap loop, without
// the lock: a lock per block serialized a DECIMAL max over 100,000 groups
// (TPC-H Q15). Older GPUs take a spin lock on the third word; independent
// thread scheduling (sm_70+) makes it safe within a warp.
__device__ __forceinline__ void rg_atomic_minmax128(uint64_t *w, i128 v, bool isMax) {
#if __CUDA_ARCH__ >= 900
    u128 *p = (u128 *)w;
    // A CAS that writes what it finds reads the accumulator atomically (a
    // plain 16-byte load could tear, and a torn value could wrongly stop
    // the loop).
    u128 cur = atomicCAS(p, (u128)0, (u128)0);
    while (isMax ? v > (i128)cur : v < (i128)cur) {
        const u128 prev = atomicCAS(p, cur, (u128)v);
        if (prev == cur) break;
        cur = prev;
    }
#else
    // Back off while another thread holds the lock: a storm of CAS on one
    // word slows the holder too.
    for (unsigned ns = 32; atomicCAS((unsigned long long *)&w[2], 0ull, 1ull) != 0ull; ns = ns < 1024 ? ns * 2 : ns) {
        __nanosleep(ns);
    }
    __threadfence();
    volatile uint64_t *vw = w;
    i128 cur = I128(vw[1], vw[0]);
    if (isMax ? v > cur : v < cur) {
        vw[0] = (uint64_t)v;
        vw[1] = (uint64_t)((u128)v >> 64);
    }
    __threadfence();
    atomicExch((unsigned long long *)&w[2], 0ull);
#endif
}

// Warp and block sums used by the per-block flush of register accumulators.
__device__ __forceinline__ i128 rg_warp_sum128(i128 v) {
    for (int o = 16; o > 0; o >>= 1) {
        uint64_t lo = __shfl_down_sync(0xffffffffu, (unsigned long long)(uint64_t)v, o);
        uint64_t hi = __shfl_down_sync(0xffffffffu, (unsigned long long)(uint64_t)((u128)v >> 64), o);
        v = (i128)((u128)v + (((u128)hi << 64) | lo));
    }
    return v;
}
__device__ __forceinline__ uint64_t rg_warp_sum64(uint64_t v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, (unsigned long long)v, o);
    return v;
}

// The steps of a block's flush of its register accumulators (codegen_agg.go
// flushGroup), and the rare spill of a 64-bit partial that would overflow,
// as calls: they run once per block and group (or almost never), and
// inlining their shuffles and carries at each call site was most of an
// aggregate's compile time (30 sums: 2.0 s -> 0.3 s on the build machine).
__device__ __noinline__ uint64_t rg_warp_total64(uint64_t v) { return rg_warp_sum64(v); }
__device__ __noinline__ void rg_flush_sum128(uint64_t *w, i128 v) {
    const i128 s = rg_warp_sum128(v);
    if ((threadIdx.x & 31) == 0 && s != 0) rg_atomic_add192(w, s);
}
__device__ __noinline__ void rg_atomic_add192_rare(uint64_t *w, i128 v) { rg_atomic_add192(w, v); }

// Strings as views (strcol_strings.go): start in the characters in the
// low 32 bits, length in the high 32. rg_str_hash hashes the bytes (equal
// strings, equal hashes, whatever their views); rg_str_cmp orders two
// strings bytewise (unsigned bytes, a prefix first), as Go's bytes.Compare
// and a dictionary's codes do.
//
// The bytes are read a word at a time: 8-byte aligned loads, shifted into
// place (rg_strw). The loads stay inside the aligned words that hold a
// view's bytes, which its upload's allocation covers (UploadStr pads it to
// 8 bytes): one load for eight bytes. On TPC-H Q10, whose
// four string group keys come to ~130 bytes a row, the kernels' time did
// not move measurably (2.03 -> 2.02 ms, session 19 device runs 2 and 3;
// its aggregate ran at 24% occupancy with 87 registers a thread, ncu).
struct rg_strw {
    const uint64_t *w; // the aligned word holding the first byte
    uint32_t sh, len;  // the first byte's bit offset in it; the length
};
__device__ __forceinline__ rg_strw rg_strw_of(const uint8_t *chars, uint64_t v) {
    const uint32_t start = (uint32_t)v;
    rg_strw s;
    s.w = (const uint64_t *)(chars + (start & ~7u));
    s.sh = (start & 7u) * 8;
    s.len = (uint32_t)(v >> 32);
    return s;
}
// Bytes [8i, 8i+8) of the string as a little-endian word; where fewer than
// 8 remain (at least one must), those, the rest zero.
__device__ __forceinline__ uint64_t rg_strw_get(const rg_strw &s, uint32_t i) {
    const uint32_t rem = s.len - 8 * i, n = rem < 8 ? rem : 8;
    uint64_t x = s.w[i] >> s.sh;
    if (s.sh / 8 + n > 8) x |= s.w[i + 1] << (64 - s.sh);
    return n < 8 ? x & ((1ull << (8 * n)) - 1) : x;
}

__device__ __forceinline__ uint64_t rg_str_hash(const uint8_t *chars, uint64_t v) {
    const rg_strw s = rg_strw_of(chars, v);
    uint64_t h = 0xcbf29ce484222325ull ^ s.len;
    uint32_t i = 0;
    for (; 8 * i + 8 <= s.len; i++) {
        h = (h ^ rg_strw_get(s, i)) * 0x100000001b3ull; h ^= h >> 29;
    }
    const uint64_t w = 8 * i < s.len ? rg_strw_get(s, i) : 0;
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 32);
}

__device__ __forceinline__ int rg_str_cmp(const uint8_t *ca, uint64_t a, const uint8_t *cb, uint64_t b) {
    const rg_strw s = rg_strw_of(ca, a), t = rg_strw_of(cb, b);
    const uint32_t m = s.len < t.len ? s.len : t.len;
    for (uint32_t i = 0; 8 * i < m; i++) {
        uint64_t x = rg_strw_get(s, i), y = rg_strw_get(t, i);
        const uint32_t rem = m - 8 * i; // the longer string's word holds bytes past m
        if (rem < 8) {
            const uint64_t keep = (1ull << (8 * rem)) - 1;
            x &= keep; y &= keep;
        }
        if (x != y) { // the lowest differing byte is the first
            const int k = (__ffsll((long long)(x ^ y)) - 1) & ~7;
            return ((x >> k) & 0xffu) < ((y >> k) & 0xffu) ? -1 : 1;
        }
    }
    return s.len == t.len ? 0 : (s.len < t.len ? -1 : 1);
}

// rg_str_view: row r's view of a Str input column (strcol_strings.go):
// data holds views when bit 0 of its characters word aux is set, else the
// upload's offsets.
__device__ __forceinline__ uint64_t rg_str_view(uint64_t data, uint64_t aux, long long r) {
    if (aux & 1ull) return ((const uint64_t *)data)[r];
    const int32_t *o = (const int32_t *)data + r;
    return (uint64_t)(uint32_t)o[0] | ((uint64_t)(uint32_t)(o[1] - o[0]) << 32);
}

__device__ __forceinline__ bool rg_str_eq(const uint8_t *chars, uint64_t a, uint64_t b) {
    return a == b || ((a >> 32) == (b >> 32) && rg_str_cmp(chars, a, chars, b) == 0);
}

// SQL comparison of floats: NaN equals NaN and is above every number.
__device__ __forceinline__ int rg_fcmp(double a, double b) {
    bool an = a != a, bn = b != b;
    if (an || bn) return (int)an - (int)bn;
    return (a > b) - (a < b);
}

// Exact integer/decimal to float conversion, rounded once: the unscaled
// value v over 10^s is brought to a 64-bit quotient q (plus e fraction
// bits) by binary long division; the bits left over fold into q's lowest
// bit ("round to odd"), so converting q rounds exactly as the true value
// would, and scaling by 2^-e is exact.
__device__ __forceinline__ double rg_pow2(int e) { return __longlong_as_double((long long)(1023 + e) << 52); }

__device__ double rg_dec_to_f64(i128 v, u128 d, bool toFloat) {
    if (v == 0) return 0.0;
    const bool neg = v < 0;
    u128 a = neg ? (u128)0 - (u128)v : (u128)v;
    u128 q = a / d, rem = a % d;
    int e = 0;
    if ((q >> 64) != 0) {
        // Keep the top 64 bits of the integer quotient; the rest is sticky.
        int sh = 0;
        while ((q >> (64 + sh)) != 0) sh++;
        const bool lost = (q & (((u128)1 << sh) - 1)) != 0 || rem != 0;
        q = (q >> sh) | (lost ? 1 : 0);
        e = -sh;
    } else {
        while (q < ((u128)1 << 63)) {
            rem <<= 1;
            q <<= 1;
            if (rem >= d) { rem -= d; q |= 1; }
            e++;
        }
        if (rem != 0) q |= 1;
    }
    const uint64_t q64 = (uint64_t)q;
    double r;
    if (toFloat) {
        r = (double)__ull2float_rn(q64); // one rounding to 24 bits
    } else {
        r = __ull2double_rn(q64);
    }
    // Apply 2^-e in two exact steps (e may exceed one power's range).
    if (e > 0) { const int h = e / 2; r = r * rg_pow2(-h) * rg_pow2(-(e - h)); }
    else if (e < 0) { const int h = -e / 2; r = r * rg_pow2(h) * rg_pow2(-e - h); }
    return neg ? -r : r;
}

// rg_round64: x (> 0) rounded to its 64 most significant bits, half to
// even (sticky: nonzero bits below x were dropped before); the bits dropped
// are added to *e.
__device__ __forceinline__ unsigned long long rg_round64(u128 x, bool sticky, int *e) {
    const unsigned long long hi = (unsigned long long)(x >> 64);
    if (hi == 0) return (unsigned long long)x;
    const int sh = 64 - __clzll(hi);
    const u128 dropped = x & (((u128)1 << sh) - 1), half = (u128)1 << (sh - 1);
    u128 m = x >> sh;
    *e += sh;
    if (dropped > half || (dropped == half && (sticky || (m & 1)))) m++;
    if ((m >> 64) != 0) { m >>= 1; *e += 1; }
    return (unsigned long long)m;
}

// rg_avg_divide: DuckDB's average from an exact sum and count
// (gpu/ir_avg.go, gpu.OpAvgDivide). mode 1: double(sum) / (double(count) *
// 10^s). mode 0: sum / (count * 10^s) as x87 long doubles, the sum and the
// divisor rounded to 64-bit significands, the quotient too (by long
// division, the remainder sticky), then that rounded to the double's 53
// bits, half to even.
__device__ double rg_avg_divide(i128 sum, long long count, unsigned long long pow, int mode) {
    if (mode == 1) {
        const double s = (sum >= -(i128)9223372036854775807LL && sum <= (i128)9223372036854775807LL) ? (double)(long long)sum : (double)sum;
        return s / ((double)count * (double)pow);
    }
    if (sum == 0) return 0.0;
    const bool neg = sum < 0;
    const u128 a = neg ? (u128)0 - (u128)sum : (u128)sum;
    int ea = 0, ed = 0;
    const unsigned long long ma = rg_round64(a, false, &ea);
    const unsigned long long md = rg_round64((u128)(unsigned long long)count * pow, false, &ed);
    u128 q = (u128)ma / md, r = (u128)ma % md;
    int e = ea - ed;
    while (q < ((u128)1 << 63)) { // 64 more bits of the quotient (r < md < 2^64)
        const u128 rr = r << 64;
        q = (q << 64) | (rr / md);
        r = rr % md;
        e -= 64;
    }
    unsigned long long m;
    if ((q >> 64) == 0) { // exactly 64 bits: the remainder decides
        m = (unsigned long long)q;
        const u128 twice = r << 1;
        if (twice > md || (twice == md && (m & 1))) {
            if (++m == 0) { m = 1ull << 63; e += 1; }
        }
    } else {
        m = rg_round64(q, r != 0, &e);
    }
    const unsigned long long low = m & 0x7ff;
    unsigned long long m53 = m >> 11;
    e += 11;
    if (low > 0x400 || (low == 0x400 && (m53 & 1))) m53++;
    const double v = ldexp((double)m53, e);
    return neg ? -v : v;
}

// rg_stat_moments: a variance (sample: / (n - 1), else / n) or, with root,
// a standard deviation, from n values' exact sum s1 and sum of squares s2
// (gpu/agg_stats.go, gpu.OpStatMoments), p2 = 10^(2 * scale). The integer
// steps are exact (s2 - s1^2/n = j - b/n: q, r the quotient and remainder
// of s1 / n, a, b those of r^2 / n); the float steps are StatFromMoments's,
// in its order, so that every device gives the same bits.
__device__ double rg_stat_moments(long long n, i128 s1, i128 s2, bool sample, bool root, double p2) {
    const i128 q = s1 / (i128)n, r = s1 - q * (i128)n;
    const i128 r2 = r * r, a = r2 / (i128)n, b = r2 - a * (i128)n;
    const i128 j = s2 - q * q * (i128)n - 2 * q * r - a;
    double m2 = (double)j - (double)(long long)b / (double)n;
    if (m2 < 0) m2 = 0;
    const double v = m2 / (sample ? (double)(n - 1) : (double)n) / p2;
    return root ? sqrt(v) : v;
}

// rg_scan_counts: exclusive prefix sum of n counts into n+1 offsets
// (offsets[n] = total), by one block of 1024 threads. The scan kernels of
// util.cu (uint32 counts of rows per tile) and join.cu (uint64 counts of
// pairs) call it. It walks the counts in chunks of 4096, each loaded and
// stored coalesced through shared memory (thread t scans entries 4t..4t+3
// of the chunk), and loads the next chunk's counts before scanning this
// one. Threads that each owned a contiguous run read and wrote 1024
// places at once, and a scan of 60M rows' tile counts took 0.057 ms
// (TPC-H Q10 at SF10, device run 2 of session 17).
#define RG_SCAN_CHUNK 4096
template <typename T>
__device__ __forceinline__ void rg_scan_counts(uint64_t n, const T *counts, uint64_t *offsets) {
    __shared__ uint64_t buf[RG_SCAN_CHUNK];
    __shared__ uint64_t wsum[32];
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    uint64_t next[4];
    for (int j = 0; j < 4; j++) next[j] = j * 1024 + t < n ? (uint64_t)counts[j * 1024 + t] : 0;
    uint64_t carry = 0;
    for (uint64_t c = 0; c < n; c += RG_SCAN_CHUNK) {
        for (int j = 0; j < 4; j++) buf[j * 1024 + t] = next[j];
        __syncthreads();
        for (int j = 0; j < 4; j++) {
            const uint64_t i = c + RG_SCAN_CHUNK + j * 1024 + t;
            next[j] = i < n ? (uint64_t)counts[i] : 0;
        }
        const uint64_t v0 = buf[4 * t], v1 = buf[4 * t + 1], v2 = buf[4 * t + 2], v3 = buf[4 * t + 3];
        const uint64_t s = v0 + v1 + v2 + v3;
        uint64_t x = s; // inclusive scan of the threads' sums: warps, then the warp totals
        for (int d = 1; d < 32; d <<= 1) {
            const uint64_t y = __shfl_up_sync(0xffffffffu, x, d);
            if (lane >= d) x += y;
        }
        if (lane == 31) wsum[warp] = x;
        __syncthreads();
        if (warp == 0) {
            uint64_t w = wsum[lane];
            for (int d = 1; d < 32; d <<= 1) {
                const uint64_t y = __shfl_up_sync(0xffffffffu, w, d);
                if (lane >= d) w += y;
            }
            wsum[lane] = w;
        }
        __syncthreads();
        const uint64_t before = carry + (warp ? wsum[warp - 1] : 0) + x - s;
        buf[4 * t] = before;
        buf[4 * t + 1] = before + v0;
        buf[4 * t + 2] = before + v0 + v1;
        buf[4 * t + 3] = before + v0 + v1 + v2;
        carry += wsum[31];
        __syncthreads();
        for (int j = 0; j < 4; j++) {
            const uint64_t i = c + j * 1024 + t;
            if (i < n) offsets[i] = buf[j * 1024 + t];
        }
        __syncthreads();
    }
    if (t == 0) offsets[n] = carry;
}
