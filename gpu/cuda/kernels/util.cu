// util.cu: hand-written kernels (scan of per-tile counts, sort by rank,
// gather). Compiled once per device after prelude.cuh.

// rg_scan: exclusive prefix sum of n uint32 counts into n+1 uint64 offsets
// (offsets[n] = total). One block of 1024 threads; each thread owns a
// contiguous run of counts. Args: n, counts, offsets.
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

struct SortKey {
    const void *data;
    const uint8_t *valid; // one byte per row, NULL when not nullable
    int kind;
    bool desc, nullsFirst;
};

__device__ __forceinline__ int rg_cmp_val(const SortKey &k, uint64_t a, uint64_t b) {
    switch (k.kind) {
    case SK_U8: { int x = ((const uint8_t *)k.data)[a], y = ((const uint8_t *)k.data)[b]; return (x > y) - (x < y); }
    case SK_I8: { int x = ((const int8_t *)k.data)[a], y = ((const int8_t *)k.data)[b]; return (x > y) - (x < y); }
    case SK_I16: { int x = ((const int16_t *)k.data)[a], y = ((const int16_t *)k.data)[b]; return (x > y) - (x < y); }
    case SK_I32: { int x = ((const int32_t *)k.data)[a], y = ((const int32_t *)k.data)[b]; return (x > y) - (x < y); }
    case SK_I64: { int64_t x = ((const int64_t *)k.data)[a], y = ((const int64_t *)k.data)[b]; return (x > y) - (x < y); }
    case SK_I128: { i128 x = ((const i128 *)k.data)[a], y = ((const i128 *)k.data)[b]; return (x > y) - (x < y); }
    case SK_F32: {
        uint64_t x = rg_f64_key((double)((const float *)k.data)[a]), y = rg_f64_key((double)((const float *)k.data)[b]);
        return (x > y) - (x < y);
    }
    case SK_F64: {
        uint64_t x = rg_f64_key(((const double *)k.data)[a]), y = rg_f64_key(((const double *)k.data)[b]);
        return (x > y) - (x < y);
    }
    }
    return 0;
}

// rg_load_sort_keys reads nk sort keys from the kernel arguments, 4 words
// each from A.a[first]: data, valid, kind, flags (bit 0 desc, bit 1 nulls
// first).
__device__ __forceinline__ void rg_load_sort_keys(const Args &A, int first, int nk, SortKey *keys) {
    for (int k = 0; k < nk && k < 8; k++) {
        keys[k].data = (const void *)A.a[first + 4 * k];
        keys[k].valid = (const uint8_t *)A.a[first + 1 + 4 * k];
        keys[k].kind = (int)A.a[first + 2 + 4 * k];
        keys[k].desc = (A.a[first + 3 + 4 * k] & 1) != 0;
        keys[k].nullsFirst = (A.a[first + 3 + 4 * k] & 2) != 0;
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

#define RG_TOPK_TILE 2048

// rg_topk_block: for each tile of RG_TOPK_TILE entries of a row list (rows
// 0..n-1 when in is null), the first k rows of the tile in sort order, by a
// bitonic sort in shared memory. Tile t writes out[t*k ...], min(k, rows in
// the tile) of them, so the output is contiguous. Equal rows keep their
// order (row index breaks ties), which keeps a sort of the survivors stable.
// Args: n, nkeys, k, in, out, then 4 words per key as rg_sort_rank.
extern "C" __global__ void __launch_bounds__(256) rg_topk_block(const Args A) {
    const uint64_t n = A.a[0];
    const int nk = (int)A.a[1];
    const uint64_t k = A.a[2];
    const uint32_t *in = (const uint32_t *)A.a[3];
    uint32_t *out = (uint32_t *)A.a[4];
    SortKey keys[8];
    rg_load_sort_keys(A, 5, nk, keys);
    __shared__ uint32_t s[RG_TOPK_TILE];
    for (uint64_t tile = blockIdx.x; tile * RG_TOPK_TILE < n; tile += gridDim.x) {
        const uint64_t base = tile * RG_TOPK_TILE;
        for (int t = threadIdx.x; t < RG_TOPK_TILE; t += blockDim.x) {
            const uint64_t i = base + t;
            s[t] = i < n ? (in ? in[i] : (uint32_t)i) : 0xffffffffu;
        }
        __syncthreads();
        for (int size = 2; size <= RG_TOPK_TILE; size <<= 1) {
            for (int stride = size >> 1; stride > 0; stride >>= 1) {
                for (int t = threadIdx.x; t < RG_TOPK_TILE / 2; t += blockDim.x) {
                    const int pos = 2 * t - (t & (stride - 1)), other = pos + stride;
                    const bool asc = (pos & size) == 0;
                    const uint32_t a = s[pos], b = s[other];
                    const int c = rg_row_cmp(keys, nk, a, b);
                    if (c != 0 && (c > 0) == asc) { s[pos] = b; s[other] = a; }
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
// stage up to the tile size); then for each larger size k, rg_bitonic_step
// runs the strides >= the tile in global memory and rg_bitonic_merge the
// smaller ones in shared memory. A slice at position pos sorts ascending
// when (pos & k) == 0, so the whole list ends ascending. Args of all three:
// n (rows), N (padded length), order, k, j, nkeys, then 4 words per key.
// rg_bitonic_cx: the compare-exchange of rows v[pos] and v[other]
// (other = pos + j); asc says which way this part of the list runs.
__device__ __forceinline__ void rg_bitonic_cx(uint32_t *v, uint64_t pos, uint64_t other, bool asc, const SortKey *keys, int nk) {
    const uint32_t a = v[pos], b = v[other];
    const int c = rg_row_cmp(keys, nk, a, b);
    if (c != 0 && (c > 0) == asc) { v[pos] = b; v[other] = a; }
}

__device__ __forceinline__ void rg_bitonic_shared(uint32_t *s, uint64_t base, uint64_t k, int j0, const SortKey *keys, int nk) {
    for (int j = j0; j > 0; j >>= 1) {
        for (int t = threadIdx.x; t < RG_TOPK_TILE / 2; t += blockDim.x) {
            const int pos = 2 * t - (t & (j - 1));
            rg_bitonic_cx(s, pos, pos + j, ((base + pos) & k) == 0, keys, nk);
        }
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(256) rg_bitonic_tiles(const Args A) {
    const uint64_t n = A.a[0], N = A.a[1];
    uint32_t *order = (uint32_t *)A.a[2];
    const int nk = (int)A.a[5];
    SortKey keys[8];
    rg_load_sort_keys(A, 6, nk, keys);
    __shared__ uint32_t s[RG_TOPK_TILE];
    for (uint64_t base = blockIdx.x * (uint64_t)RG_TOPK_TILE; base < N; base += (uint64_t)gridDim.x * RG_TOPK_TILE) {
        for (int t = threadIdx.x; t < RG_TOPK_TILE; t += blockDim.x) s[t] = base + t < n ? (uint32_t)(base + t) : 0xffffffffu;
        __syncthreads();
        for (uint64_t k = 2; k <= RG_TOPK_TILE && k <= N; k <<= 1) rg_bitonic_shared(s, base, k, (int)(k >> 1), keys, nk);
        for (int t = threadIdx.x; t < RG_TOPK_TILE; t += blockDim.x) order[base + t] = s[t];
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(256) rg_bitonic_step(const Args A) {
    const uint64_t N = A.a[1], k = A.a[3], j = A.a[4];
    uint32_t *order = (uint32_t *)A.a[2];
    const int nk = (int)A.a[5];
    SortKey keys[8];
    rg_load_sort_keys(A, 6, nk, keys);
    for (uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; t < N / 2; t += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t pos = 2 * t - (t & (j - 1));
        rg_bitonic_cx(order, pos, pos + j, (pos & k) == 0, keys, nk);
    }
}

extern "C" __global__ void __launch_bounds__(256) rg_bitonic_merge(const Args A) {
    const uint64_t N = A.a[1], k = A.a[3];
    uint32_t *order = (uint32_t *)A.a[2];
    const int nk = (int)A.a[5];
    SortKey keys[8];
    rg_load_sort_keys(A, 6, nk, keys);
    __shared__ uint32_t s[RG_TOPK_TILE];
    for (uint64_t base = blockIdx.x * (uint64_t)RG_TOPK_TILE; base < N; base += (uint64_t)gridDim.x * RG_TOPK_TILE) {
        for (int t = threadIdx.x; t < RG_TOPK_TILE; t += blockDim.x) s[t] = order[base + t];
        __syncthreads();
        rg_bitonic_shared(s, base, k, RG_TOPK_TILE / 2, keys, nk);
        for (int t = threadIdx.x; t < RG_TOPK_TILE; t += blockDim.x) order[base + t] = s[t];
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
