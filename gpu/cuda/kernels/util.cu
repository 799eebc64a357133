// util.cu: hand-written kernels (scan of per-tile counts, sort by rank,
// gather). Compiled once per device after prelude.cuh.

// rg_scan: exclusive prefix sum of n uint32 counts into n+1 uint64 offsets
// (offsets[n] = total). One block of 1024 threads (rg_scan_counts).
// Args: n, counts, offsets.
extern "C" __global__ void __launch_bounds__(1024) rg_scan(const Args A) {
    rg_scan_counts(A.a[0], (const uint32_t *)A.a[1], (uint64_t *)A.a[2]);
}

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
// every prefix tied and each compare read the strings, 1.9 ms to sort Q20's
// 1,804 rows, device run 4 of session 18).
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

// rg_sort_skip and rg_sort_range: the keys' skips, then their ranges over
// rows 0..n-1 (rg_sort_skip_add, rg_sort_range_add), for sorts of more
// than one tile, whose tiles must build their prefixes alike; rg_sort_skip
// runs only for string keys. Args: n, nkeys, R, then 5 words per key as
// rg_topk_block.
extern "C" __global__ void __launch_bounds__(256) rg_sort_skip(const Args A) {
    SortKey keys[8];
    const int nk = (int)A.a[1];
    rg_load_sort_keys(A, 3, nk, keys);
    rg_sort_skip_add(keys, nk, (unsigned long long *)A.a[2], blockIdx.x * (uint64_t)blockDim.x + threadIdx.x, A.a[0],
                     (uint64_t)gridDim.x * blockDim.x);
}

extern "C" __global__ void __launch_bounds__(256) rg_sort_range(const Args A) {
    SortKey keys[8];
    const int nk = (int)A.a[1];
    rg_load_sort_keys(A, 3, nk, keys);
    rg_keys_skip(keys, nk, (const uint64_t *)A.a[2]);
    rg_sort_range_add(keys, nk, (unsigned long long *)A.a[2], blockIdx.x * (uint64_t)blockDim.x + threadIdx.x, A.a[0],
                      (uint64_t)gridDim.x * blockDim.x);
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
// Q16's sort twice as slow (its first key, a count, ties everywhere;
// device runs 3 and 6 of session 17). Padding is above everything.
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

// rg_topk_block: for each tile of RG_TOPK_TILE entries of a row list (rows
// 0..n-1 when in is null), the first k rows of the tile in sort order, by a
// bitonic sort in shared memory. Tile t writes out[t*k ...], min(k, rows in
// the tile) of them, so the output is contiguous. Equal rows keep their
// order (row index breaks ties), which keeps a sort of the survivors stable.
// Args: n, nkeys, k, in, out, R (rg_sort_range of the rows the list
// indexes), then 5 words per key (rg_load_sort_keys).
extern "C" __global__ void __launch_bounds__(256) rg_topk_block(const Args A) {
    const uint64_t n = A.a[0];
    const int nk = (int)A.a[1];
    const uint64_t k = A.a[2];
    const uint32_t *in = (const uint32_t *)A.a[3];
    uint32_t *out = (uint32_t *)A.a[4];
    const uint64_t *R = (const uint64_t *)A.a[5];
    SortKey keys[8];
    rg_load_sort_keys(A, 6, nk, keys);
    rg_keys_skip(keys, nk, R);
    __shared__ uint32_t s[RG_TOPK_TILE];
    __shared__ uint64_t p[RG_TOPK_TILE];
    for (uint64_t tile = blockIdx.x; tile * RG_TOPK_TILE < n; tile += gridDim.x) {
        const uint64_t base = tile * RG_TOPK_TILE;
        for (int t = threadIdx.x; t < RG_TOPK_TILE; t += blockDim.x) {
            const uint64_t i = base + t;
            s[t] = i < n ? (in ? in[i] : (uint32_t)i) : 0xffffffffu;
            p[t] = rg_sort_prefix(keys, nk, R, s[t]);
        }
        __syncthreads();
        for (int size = 2; size <= RG_TOPK_TILE; size <<= 1) {
            for (int stride = size >> 1; stride > 0; stride >>= 1) {
                for (int t = threadIdx.x; t < RG_TOPK_TILE / 2; t += blockDim.x) {
                    const int pos = 2 * t - (t & (stride - 1));
                    rg_sort_cx(s, p, pos, pos + stride, (pos & size) == 0, keys, nk);
                }
                __syncthreads();
            }
        }
        const uint64_t rows = n - base < RG_TOPK_TILE ? n - base : RG_TOPK_TILE;
        const uint64_t keep = rows < k ? rows : k;
        for (uint64_t t = threadIdx.x; t < keep; t += blockDim.x) out[tile * k + t] = s[t];
        __syncthreads();
    }
}

// Full sort: a bitonic network over a row list padded to a power of two
// (0xffffffff pads sort after every row), O(n log^2 n) comparisons.
// rg_bitonic_tiles sorts each RG_TOPK_TILE slice in shared memory (every
// stage up to the tile size) and writes each entry's prefix
// (rg_sort_prefix) beside it; then for each larger size k, rg_bitonic_step
// runs the strides >= the tile in global memory and rg_bitonic_merge the
// smaller ones in shared memory, both moving the prefixes with the rows.
// A slice at position pos sorts ascending when (pos & k) == 0, so the
// whole list ends ascending. Args of all three: n (rows), N (padded
// length), order, k, j, nkeys, pref (N uint64), R (rg_sort_range; 0 when
// N is one tile), then 5 words per key.
__device__ __forceinline__ void rg_bitonic_shared(uint32_t *s, uint64_t *p, uint64_t base, uint64_t k, int j0, const SortKey *keys, int nk) {
    for (int j = j0; j > 0; j >>= 1) {
        for (int t = threadIdx.x; t < RG_TOPK_TILE / 2; t += blockDim.x) {
            const int pos = 2 * t - (t & (j - 1));
            rg_sort_cx(s, p, pos, pos + j, ((base + pos) & k) == 0, keys, nk);
        }
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(256) rg_bitonic_tiles(const Args A) {
    const uint64_t n = A.a[0], N = A.a[1];
    uint32_t *order = (uint32_t *)A.a[2];
    const int nk = (int)A.a[5];
    uint64_t *pref = (uint64_t *)A.a[6];
    const uint64_t *R = (const uint64_t *)A.a[7];
    SortKey keys[8];
    rg_load_sort_keys(A, 8, nk, keys);
    __shared__ uint32_t s[RG_TOPK_TILE];
    __shared__ uint64_t p[RG_TOPK_TILE];
    // A sort of one tile (R 0) takes its keys' ranges here: a launch and a
    // memset fewer for the small sorts most queries end with.
    __shared__ unsigned long long own[8 * 4];
    if (!R) {
        for (int w = threadIdx.x; w < 8 * 4; w += blockDim.x) own[w] = 0;
        __syncthreads();
        rg_sort_skip_add(keys, nk, own, threadIdx.x, n, blockDim.x);
        __syncthreads();
        rg_keys_skip(keys, nk, own);
        rg_sort_range_add(keys, nk, own, threadIdx.x, n, blockDim.x);
        __syncthreads();
        R = own;
    } else {
        rg_keys_skip(keys, nk, R);
    }
    for (uint64_t base = blockIdx.x * (uint64_t)RG_TOPK_TILE; base < N; base += (uint64_t)gridDim.x * RG_TOPK_TILE) {
        for (int t = threadIdx.x; t < RG_TOPK_TILE; t += blockDim.x) {
            s[t] = base + t < n ? (uint32_t)(base + t) : 0xffffffffu;
            p[t] = rg_sort_prefix(keys, nk, R, s[t]);
        }
        __syncthreads();
        for (uint64_t k = 2; k <= RG_TOPK_TILE && k <= N; k <<= 1) rg_bitonic_shared(s, p, base, k, (int)(k >> 1), keys, nk);
        for (int t = threadIdx.x; t < RG_TOPK_TILE; t += blockDim.x) {
            order[base + t] = s[t];
            pref[base + t] = p[t];
        }
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(256) rg_bitonic_step(const Args A) {
    const uint64_t N = A.a[1], k = A.a[3], j = A.a[4];
    uint32_t *order = (uint32_t *)A.a[2];
    const int nk = (int)A.a[5];
    uint64_t *pref = (uint64_t *)A.a[6];
    SortKey keys[8];
    rg_load_sort_keys(A, 8, nk, keys);
    for (uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; t < N / 2; t += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t pos = 2 * t - (t & (j - 1));
        rg_sort_cx(order, pref, pos, pos + j, (pos & k) == 0, keys, nk);
    }
}

extern "C" __global__ void __launch_bounds__(256) rg_bitonic_merge(const Args A) {
    const uint64_t N = A.a[1], k = A.a[3];
    uint32_t *order = (uint32_t *)A.a[2];
    const int nk = (int)A.a[5];
    uint64_t *pref = (uint64_t *)A.a[6];
    SortKey keys[8];
    rg_load_sort_keys(A, 8, nk, keys);
    __shared__ uint32_t s[RG_TOPK_TILE];
    __shared__ uint64_t p[RG_TOPK_TILE];
    for (uint64_t base = blockIdx.x * (uint64_t)RG_TOPK_TILE; base < N; base += (uint64_t)gridDim.x * RG_TOPK_TILE) {
        for (int t = threadIdx.x; t < RG_TOPK_TILE; t += blockDim.x) {
            s[t] = order[base + t];
            p[t] = pref[base + t];
        }
        __syncthreads();
        rg_bitonic_shared(s, p, base, k, RG_TOPK_TILE / 2, keys, nk);
        for (int t = threadIdx.x; t < RG_TOPK_TILE; t += blockDim.x) {
            order[base + t] = s[t];
            pref[base + t] = p[t];
        }
        __syncthreads();
    }
}

// rg_order_rank: rank[order[p]] = p for the n rows (the pads sort last).
// Args: n, order, rank.
extern "C" __global__ void __launch_bounds__(256) rg_order_rank(const Args A) {
    const uint64_t n = A.a[0];
    const uint32_t *order = (const uint32_t *)A.a[1];
    uint32_t *rank = (uint32_t *)A.a[2];
    for (uint64_t p = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; p < n; p += (uint64_t)gridDim.x * blockDim.x)
        rank[order[p]] = (uint32_t)p;
}

// rg_gather_multi: dst_j[rank[i]] = src_j[i] for rank[i] < limit, over k
// buffers in one launch (a sort's output columns and their validity), width_j
// bytes a value. Args: n, limit, rank, k, then per buffer src, dst, width.
extern "C" __global__ void __launch_bounds__(256) rg_gather_multi(const Args A) {
    const uint64_t n = A.a[0], limit = A.a[1];
    const uint32_t *rank = (const uint32_t *)A.a[2];
    const int k = (int)A.a[3];
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t r = rank[i];
        if (r >= limit) continue;
        for (int j = 0; j < k; j++) {
            const uint8_t *src = (const uint8_t *)A.a[4 + 3 * j];
            uint8_t *dst = (uint8_t *)A.a[5 + 3 * j];
            switch ((int)A.a[6 + 3 * j]) {
            case 1: dst[r] = src[i]; break;
            case 2: ((uint16_t *)dst)[r] = ((const uint16_t *)src)[i]; break;
            case 4: ((uint32_t *)dst)[r] = ((const uint32_t *)src)[i]; break;
            case 8: ((uint64_t *)dst)[r] = ((const uint64_t *)src)[i]; break;
            case 16: ((u128 *)dst)[r] = ((const u128 *)src)[i]; break;
            }
        }
    }
}

// rg_copy_bw: out[i] = in[i] over n uint4 values, for bandwidth measurement.
extern "C" __global__ void __launch_bounds__(256) rg_copy_bw(const Args A) {
    const uint64_t n = A.a[0];
    const uint4 *in = (const uint4 *)A.a[1];
    uint4 *out = (uint4 *)A.a[2];
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

// Strings in Arrow layout (strcol_strings.go). rg_str_views: the views of
// an upload, view[i] = offs[i] | (offs[i+1] - offs[i]) << 32. Args: n,
// offsets, views.
extern "C" __global__ void __launch_bounds__(256) rg_str_views(const Args A) {
    const uint64_t n = A.a[0];
    const int32_t *offs = (const int32_t *)A.a[1];
    uint64_t *views = (uint64_t *)A.a[2];
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
        views[i] = (uint64_t)(uint32_t)offs[i] | ((uint64_t)(uint32_t)(offs[i + 1] - offs[i]) << 32);
}

// rg_str_lens: the length of each string of a column of views, 0 for a
// null row (whose view may be anything), for rg_scan to turn into offsets.
// Args: n, views, valid (0 when not nullable), lengths (uint32).
extern "C" __global__ void __launch_bounds__(256) rg_str_lens(const Args A) {
    const uint64_t n = A.a[0];
    const uint64_t *views = (const uint64_t *)A.a[1];
    const uint8_t *valid = (const uint8_t *)A.a[2];
    uint32_t *lens = (uint32_t *)A.a[3];
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
        lens[i] = valid && !valid[i] ? 0u : (uint32_t)(views[i] >> 32);
}

// rg_str_compact copies string i of a column of views to out + offs[i]
// (rg_scan of rg_str_lens), offs[i+1] - offs[i] bytes. Args: n, views,
// offsets (uint64), characters, out.
extern "C" __global__ void __launch_bounds__(256) rg_str_compact(const Args A) {
    const uint64_t n = A.a[0];
    const uint64_t *views = (const uint64_t *)A.a[1];
    const uint64_t *offs = (const uint64_t *)A.a[2];
    const uint8_t *chars = (const uint8_t *)A.a[3];
    uint8_t *out = (uint8_t *)A.a[4];
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t at = offs[i], len = offs[i + 1] - at;
        const uint8_t *s = chars + (uint32_t)views[i];
        for (uint64_t k = 0; k < len; k++) out[at + k] = s[k];
    }
}

// rg_dict_map: a Dict column's codes mapped into another dictionary
// (gpu.DictCodeMap, a join's probe key against the build side's): out[i]
// = map[codes[i]], -1 for a code outside the map, 0 for a null row (whose
// code may be anything). Args: n, codes, valid (0 when not nullable), map,
// map entries, out.
extern "C" __global__ void __launch_bounds__(256) rg_dict_map(const Args A) {
    const uint64_t n = A.a[0];
    const int32_t *codes = (const int32_t *)A.a[1];
    const uint8_t *valid = (const uint8_t *)A.a[2];
    const int32_t *map = (const int32_t *)A.a[3];
    const long long nmap = (long long)A.a[4];
    int32_t *out = (int32_t *)A.a[5];
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        const int32_t c = codes[i];
        out[i] = valid && !valid[i] ? 0 : c >= 0 && c < nmap ? map[c] : -1;
    }
}
