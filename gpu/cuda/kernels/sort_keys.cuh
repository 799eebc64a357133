// sort_keys.cuh: sort keys and the device functions every sort kernel
// shares (sort_range.cu, topk.cu, bitonic.cu include it after prelude.cuh).

// Sort key kinds (must match sortKind in sort.go).
#define SK_I8 1
#define SK_I16 2
#define SK_I32 3
#define SK_I64 4
#define SK_I128 5
#define SK_F32 6
#define SK_F64 7
#define SK_U8 8
#define SK_STR 9 // views (strcol_strings.go) into chars

struct SortKey {
    const void *data;
    const uint8_t *valid; // one byte per row, NULL when not nullable
    const uint8_t *chars; // SK_STR's characters
    uint64_t skip;        // SK_STR: the bytes every row's string begins with (rg_keys_skip)
    int kind;
    bool desc, nullsFirst;
};

// rg_sort_raw: key K's value at row r (not null) as an unsigned number in
// ascending order. Values beyond 64 bits clamp, and a string gives 8 bytes
// (big-endian, zero-padded) from K.skip on: equal numbers then need not be
// equal values (rg_cmp_val compares those exactly; rg_lossy_key).
__device__ __forceinline__ uint64_t rg_sort_raw(const SortKey &K, uint64_t r) {
    const uint64_t sign = 0x8000000000000000ull;
    switch (K.kind) {
    case SK_U8: return ((const uint8_t *)K.data)[r];
    case SK_I8: return (uint64_t)(int64_t)((const int8_t *)K.data)[r] ^ sign;
    case SK_I16: return (uint64_t)(int64_t)((const int16_t *)K.data)[r] ^ sign;
    case SK_I32: return (uint64_t)(int64_t)((const int32_t *)K.data)[r] ^ sign;
    case SK_I64: return (uint64_t)((const int64_t *)K.data)[r] ^ sign;
    case SK_I128: {
        const i128 v = ((const i128 *)K.data)[r];
        const i128 top = (i128)0x7fffffffffffffffll, bottom = -top - 1;
        return (uint64_t)(int64_t)(v > top ? top : v < bottom ? bottom : v) ^ sign;
    }
    case SK_F32: return rg_f64_key((double)((const float *)K.data)[r]);
    case SK_F64: return rg_f64_key(((const double *)K.data)[r]);
    case SK_STR: {
        const uint64_t v = ((const uint64_t *)K.data)[r];
        const uint64_t len = v >> 32, st = K.skip < len ? K.skip : len;
        const uint8_t *s = K.chars + (uint32_t)v + st;
        uint64_t e = 0;
        for (uint64_t k = 0; k < 8; k++) e = (e << 8) | (st + k < len ? s[k] : 0);
        return e;
    }
    }
    return 0;
}

// rg_lossy_key: rg_sort_raw may give two different values of key K the
// same number.
__device__ __forceinline__ bool rg_lossy_key(const SortKey &K) { return K.kind == SK_I128 || K.kind == SK_STR; }

// rg_cmp_val orders rows a and b (not null) by key k, ascending.
__device__ __forceinline__ int rg_cmp_val(const SortKey &k, uint64_t a, uint64_t b) {
    if (k.kind == SK_I128) {
        const i128 x = ((const i128 *)k.data)[a], y = ((const i128 *)k.data)[b];
        return (x > y) - (x < y);
    }
    if (k.kind == SK_STR)
        return rg_str_cmp(k.chars, ((const uint64_t *)k.data)[a], k.chars, ((const uint64_t *)k.data)[b]);
    const uint64_t x = rg_sort_raw(k, a), y = rg_sort_raw(k, b);
    return (x > y) - (x < y);
}

// rg_load_sort_keys reads nk sort keys from the kernel arguments, 5 words
// each from A.a[first]: data, valid, kind, flags (bit 0 desc, bit 1 nulls
// first), characters (SK_STR).
__device__ __forceinline__ void rg_load_sort_keys(const Args &A, int first, int nk, SortKey *keys) {
    for (int k = 0; k < nk && k < 8; k++) {
        const int w = first + 5 * k;
        keys[k].data = (const void *)A.a[w];
        keys[k].valid = (const uint8_t *)A.a[w + 1];
        keys[k].kind = (int)A.a[w + 2];
        keys[k].desc = (A.a[w + 3] & 1) != 0;
        keys[k].nullsFirst = (A.a[w + 3] & 2) != 0;
        keys[k].chars = (const uint8_t *)A.a[w + 4];
    }
}

// rg_row_cmp orders rows a and b by the keys, then by row index (a stable
// order); 0xffffffff is padding, after every row.
__device__ __forceinline__ int rg_row_cmp(const SortKey *keys, int nk, uint32_t a, uint32_t b) {
    if (a == b) return 0;
    if (a == 0xffffffffu) return 1;
    if (b == 0xffffffffu) return -1;
    for (int k = 0; k < nk; k++) {
        const SortKey &K = keys[k];
        bool na = K.valid && !K.valid[a], nb = K.valid && !K.valid[b];
        if (na || nb) {
            if (na && nb) continue;
            // A null sorts first or last regardless of direction.
            return (na ? -1 : 1) * (K.nullsFirst ? 1 : -1);
        }
        int c = rg_cmp_val(K, a, b);
        if (c != 0) return K.desc ? -c : c;
    }
    return (a > b) - (a < b);
}

// rg_sort_enc: rg_sort_raw with the key's direction: its order is the
// sort order.
__device__ __forceinline__ uint64_t rg_sort_enc(const SortKey &K, uint32_t r) {
    const uint64_t e = rg_sort_raw(K, r);
    return K.desc ? ~e : e;
}

// Key ranges R (global or shared memory, zeroed before), 4 words per key:
// the largest ~value (so ~R[0] is the smallest value), the largest value, 1
// when a row of the key is null, and for a string key ~skip, skip being
// the length of the prefix every non-null row's string shares (TPC-H's
// s_name values all begin "Supplier#0000": with 8 bytes from the start
// every prefix tied and each compare read the strings: 1.9 ms to sort Q20's
// 1,804 rows at SF10 on an H100 before the skip; `RIGEL_TRACE=1 rigel bench
// tpch --queries 20` prints the sort's time).
//
// rg_sort_skip_add: the string keys' skips over rows from, from + step, ...
// below n: each row's common prefix with row 0 (whose string, null or
// not, is a valid view). Every lane of a warp calls it.
__device__ __forceinline__ void rg_sort_skip_add(const SortKey *keys, int nk, unsigned long long *R, uint64_t from, uint64_t n, uint64_t step) {
    for (int k = 0; k < nk; k++) {
        const SortKey &K = keys[k];
        if (K.kind != SK_STR || n == 0) continue;
        const uint64_t *v = (const uint64_t *)K.data;
        const uint64_t ref = v[0];
        const uint8_t *t = K.chars + (uint32_t)ref;
        uint64_t lcp = ref >> 32;
        for (uint64_t r = from; r < n; r += step) {
            if (K.valid && !K.valid[r]) continue;
            const uint64_t x = v[r];
            const uint8_t *s = K.chars + (uint32_t)x;
            const uint64_t m = (x >> 32) < lcp ? (x >> 32) : lcp;
            uint64_t c = 0;
            while (c < m && s[c] == t[c]) c++;
            lcp = c;
        }
        for (int d = 16; d > 0; d >>= 1) {
            const uint64_t o = __shfl_xor_sync(0xffffffffu, lcp, d);
            lcp = o < lcp ? o : lcp;
        }
        if ((threadIdx.x & 31) == 0) atomicMax(&R[4 * k + 3], (unsigned long long)~lcp);
    }
}

// rg_keys_skip sets the string keys' skips from R (rg_sort_skip_add).
__device__ __forceinline__ void rg_keys_skip(SortKey *keys, int nk, const uint64_t *R) {
    for (int k = 0; k < nk; k++) keys[k].skip = keys[k].kind == SK_STR ? ~R[4 * k + 3] : 0;
}

// rg_sort_range_add: each key's range of rg_sort_enc values over rows
// from, from + step, ... below n, added into R (the skips set). Every lane
// of a warp calls it.
__device__ __forceinline__ void rg_sort_range_add(const SortKey *keys, int nk, unsigned long long *R, uint64_t from, uint64_t n, uint64_t step) {
    for (int k = 0; k < nk; k++) {
        const SortKey &K = keys[k];
        uint64_t lo = ~0ull, hi = 0;
        bool nul = false;
        for (uint64_t r = from; r < n; r += step) {
            if (K.valid && !K.valid[r]) { nul = true; continue; }
            const uint64_t e = rg_sort_enc(K, (uint32_t)r);
            lo = e < lo ? e : lo;
            hi = e > hi ? e : hi;
        }
        for (int d = 16; d > 0; d >>= 1) {
            const uint64_t l = __shfl_xor_sync(0xffffffffu, lo, d), h = __shfl_xor_sync(0xffffffffu, hi, d);
            lo = l < lo ? l : lo;
            hi = h > hi ? h : hi;
        }
        nul = __any_sync(0xffffffffu, nul);
        if ((threadIdx.x & 31) == 0) {
            if (lo <= hi) {
                atomicMax(&R[4 * k], (unsigned long long)~lo);
                atomicMax(&R[4 * k + 1], (unsigned long long)hi);
            }
            if (nul) atomicMax(&R[4 * k + 2], 1ull);
        }
    }
}

// rg_sort_prefix: row r's normalized key, a 64-bit number with
// prefix(a) < prefix(b) only when row a sorts before row b. Each key in
// turn takes the bits its range needs (rg_sort_range: values less the
// smallest, nulls below or above them), as many keys as fit, the last one
// cut to its top bits. Sorts compare prefixes, kept beside each row
// index, and call rg_row_cmp only when two are equal. Comparing with
// rg_row_cmp alone loaded key values from global memory at every step of
// the network: a 2048-row tile took 0.12-0.17 ms for a top 20 of TPC-H
// Q10's 381K groups at SF10, and a prefix of the first key alone made
// Q16's sort twice as slow (its first key, a count, ties everywhere; H100,
// `RIGEL_TRACE=1 rigel bench tpch --queries 10,16` prints the sorts'
// times). Padding is above everything.
__device__ __forceinline__ uint64_t rg_sort_prefix(const SortKey *keys, int nk, const uint64_t *R, uint32_t r) {
    if (r == 0xffffffffu) return ~0ull;
    uint64_t pre = 0;
    int used = 0;
    for (int k = 0; k < nk && used < 64; k++) {
        const SortKey &K = keys[k];
        const uint64_t lo = ~R[4 * k], hi = R[4 * k + 1], extra = R[4 * k + 2] ? 1 : 0;
        const uint64_t range = lo <= hi ? hi - lo : 0;
        uint64_t top = range + extra;
        if (top < range) top = ~0ull;
        if (top == 0) { // one number for every row: it orders nothing
            if (rg_lossy_key(K)) break; // but the values may differ (below)
            continue;
        }
        const int bits = 64 - __clzll((long long)top);
        uint64_t v;
        if (K.valid && !K.valid[r]) {
            v = K.nullsFirst ? 0 : top;
        } else {
            v = rg_sort_enc(K, r) - lo;
            if (K.nullsFirst && extra) v = v + 1 == 0 ? v : v + 1;
            if (v > top) v = top;
        }
        const int room = 64 - used;
        if (bits <= room) {
            pre = room == 64 ? v : (pre << bits) | v;
            used += bits;
        } else {
            pre = (pre << room) | (v >> (bits - room));
            used = 64;
        }
        // Rows that tie on a lossy key's number may still differ in it:
        // a later key must not order them, so the packing stops here
        // (the free low bits stay 0; rg_row_cmp breaks the ties).
        if (rg_lossy_key(K) && used < 64) {
            pre <<= 64 - used;
            used = 64;
        }
    }
    return pre;
}

// rg_sort_cx: the compare-exchange of entries pos and other of a row list
// s with prefixes p (shared or global memory); asc says which way this
// part of the list runs.
__device__ __forceinline__ void rg_sort_cx(uint32_t *s, uint64_t *p, uint64_t pos, uint64_t other, bool asc, const SortKey *keys, int nk) {
    const uint64_t pa = p[pos], pb = p[other];
    const uint32_t a = s[pos], b = s[other];
    const int c = pa != pb ? (pa < pb ? -1 : 1) : rg_row_cmp(keys, nk, a, b);
    if (c != 0 && (c > 0) == asc) {
        s[pos] = b; s[other] = a;
        p[pos] = pb; p[other] = pa;
    }
}

#define RG_TOPK_TILE 2048
