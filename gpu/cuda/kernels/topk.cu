// topk.cu: a top k by tiles (after prelude.cuh and sort_keys.cuh).

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
