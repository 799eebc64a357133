// util.cu: hand-written kernels every query may need (scan of per-tile
// counts, gather, string views, dictionary maps). Compiled when the device
// opens, after prelude.cuh. The sort kernels are in sort_keys.cuh,
// sort_range.cu, topk.cu and bitonic.cu: modules of their own, compiled in
// the background from then on (device.go).

// rg_scan: exclusive prefix sum of n uint32 counts into n+1 uint64 offsets
// (offsets[n] = total). One block of 1024 threads (rg_scan_counts).
// Args: n, counts, offsets.
extern "C" __global__ void __launch_bounds__(1024) rg_scan(const Args A) {
    rg_scan_counts(A.a[0], (const uint32_t *)A.a[1], (uint64_t *)A.a[2]);
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

// rg_unpack: a packed column (rg_unpacked) written out plain, for the
// operations that read a column's values in place (sort, join keys,
// gather, download). Args: n, words, frame, out, out's value width (4 or 8).
extern "C" __global__ void __launch_bounds__(256) rg_unpack(const Args A) {
    const uint64_t n = A.a[0], words = A.a[1], frame = A.a[2];
    const bool wide = A.a[4] == 8;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        const long long v = rg_unpacked(words, frame, (long long)i);
        if (wide)
            ((long long *)A.a[3])[i] = v;
        else
            ((int32_t *)A.a[3])[i] = (int32_t)v;
    }
}

// rg_minmax: the smallest and largest of n integers of 4 or 8 bytes into
// out[0] and out[1], which hold the largest and the smallest long long
// before: a column's range, to choose the frame it packs in (packed.go).
// Args: n, values, their width, out.
extern "C" __global__ void __launch_bounds__(256) rg_minmax(const Args A) {
    const uint64_t n = A.a[0];
    const bool wide = A.a[2] == 8;
    long long lo = 0x7fffffffffffffffll, hi = -0x7fffffffffffffffll - 1;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        const long long v = wide ? ((const long long *)A.a[1])[i] : (long long)((const int32_t *)A.a[1])[i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    for (int o = 16; o > 0; o >>= 1) {
        const long long l = __shfl_down_sync(0xffffffffu, lo, o), h = __shfl_down_sync(0xffffffffu, hi, o);
        lo = l < lo ? l : lo;
        hi = h > hi ? h : hi;
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMin((long long *)A.a[3], lo);
        atomicMax((long long *)A.a[3] + 1, hi);
    }
}

// rg_pack: n integers of 4 or 8 bytes written as their differences from
// base in 8, 16 or 32 bits (a frame of byteWidth's), from row `at` of a
// packed column's words (gpu/forpack's layout: value i at bit i * bits).
// Every value lies in the frame. Args: n, values, their width, base, bits,
// words, at.
extern "C" __global__ void __launch_bounds__(256) rg_pack(const Args A) {
    const uint64_t n = A.a[0], at = A.a[6];
    const bool wide = A.a[2] == 8;
    const unsigned long long base = A.a[3];
    const int bits = (int)A.a[4];
    uint8_t *out = (uint8_t *)A.a[5];
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        const long long v = wide ? ((const long long *)A.a[1])[i] : (long long)((const int32_t *)A.a[1])[i];
        const unsigned long long d = (unsigned long long)v - base;
        switch (bits) {
        case 8: out[at + i] = (uint8_t)d; break;
        case 16: ((uint16_t *)out)[at + i] = (uint16_t)d; break;
        case 32: ((uint32_t *)out)[at + i] = (uint32_t)d; break;
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
