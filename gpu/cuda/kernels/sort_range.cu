// sort_range.cu: the key ranges a sort of more than one tile needs first
// (after prelude.cuh and sort_keys.cuh).

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

