// bitonic.cu: the full sort's bitonic network (after prelude.cuh and
// sort_keys.cuh).

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
