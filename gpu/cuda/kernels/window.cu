// window.cu: the window primitives (gpu/window.go) over rows sorted by
// their partition and order keys. rg_seg_starts marks where a key changes;
// the segmented scan runs in three steps: rg_segscan_tiles scans each tile
// of RG_SCAN_TILE rows and leaves the tile's total and whether a segment
// starts in it, the tiles' totals are scanned the same way (recursively,
// window.go), and rg_segscan_carry folds the total of the tiles before a
// tile into its rows up to its first segment start.

#define RG_SCAN_THREADS 256
#define RG_SCAN_ITEMS 4
#define RG_SCAN_TILE (RG_SCAN_THREADS * RG_SCAN_ITEMS)

// Scan operators (gpu.ScanOp).
#define RG_SCAN_SUM 1
#define RG_SCAN_MIN 2
#define RG_SCAN_MAX 3
#define RG_SCAN_FILL 4

// rg_seg_starts: flags[i] = 1 where row i of one key column differs from
// row i-1 (two nulls are equal; floats equal as values, NaN equal to NaN);
// row 0 is always a start. Launched once per key over flags that hold the
// previous starts (or zeros). Args: n, flags, values, valid (0: no
// nulls), width in bytes, 1 when the values are floats.
extern "C" __global__ void __launch_bounds__(256) rg_seg_starts(const Args A) {
    const uint64_t n = A.a[0];
    uint8_t *flags = (uint8_t *)A.a[1];
    const uint8_t *vals = (const uint8_t *)A.a[2];
    const uint8_t *valid = (const uint8_t *)A.a[3];
    const int width = (int)A.a[4];
    const bool isFloat = A.a[5] != 0;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        if (i == 0) {
            flags[0] = 1;
            continue;
        }
        const bool a = valid == 0 || valid[i - 1], b = valid == 0 || valid[i];
        bool differ;
        if (!a || !b) {
            differ = a != b;
        } else if (isFloat && width == 8) {
            const double x = ((const double *)vals)[i - 1], y = ((const double *)vals)[i];
            differ = x != y && !(x != x && y != y);
        } else if (isFloat) {
            const float x = ((const float *)vals)[i - 1], y = ((const float *)vals)[i];
            differ = x != y && !(x != x && y != y);
        } else {
            switch (width) {
            case 1: differ = vals[i] != vals[i - 1]; break;
            case 2: differ = ((const uint16_t *)vals)[i] != ((const uint16_t *)vals)[i - 1]; break;
            case 4: differ = ((const uint32_t *)vals)[i] != ((const uint32_t *)vals)[i - 1]; break;
            case 8: differ = ((const uint64_t *)vals)[i] != ((const uint64_t *)vals)[i - 1]; break;
            default: differ = ((const u128 *)vals)[i] != ((const u128 *)vals)[i - 1]; break;
            }
        }
        if (differ) flags[i] = 1;
    }
}

// rg_scan_fold folds b, the later value, into a, the earlier: a sum (an
// overflowing 128-bit one raises RG_OVERFLOW), the smaller or the larger
// (floats in SQL's order, NaN above every number), or a itself (fill).
__device__ __forceinline__ long long rg_scan_fold(int op, long long a, long long b, uint32_t *st) {
    switch (op) {
    case RG_SCAN_SUM: return (long long)((unsigned long long)a + (unsigned long long)b);
    case RG_SCAN_MIN: return b < a ? b : a;
    case RG_SCAN_MAX: return b > a ? b : a;
    }
    return a;
}

__device__ __forceinline__ double rg_scan_fold(int op, double a, double b, uint32_t *st) {
    switch (op) {
    case RG_SCAN_SUM: return a + b;
    case RG_SCAN_MIN: return (a != a) || (b == b && b < a) ? b : a;
    case RG_SCAN_MAX: return (b != b) || (a == a && b > a) ? b : a;
    }
    return a;
}

__device__ __forceinline__ i128 rg_scan_fold(int op, i128 a, i128 b, uint32_t *st) {
    switch (op) {
    case RG_SCAN_SUM: {
        i128 r;
        if (rg_add128(a, b, &r)) rg_raise(st, RG_OVERFLOW); // true on overflow
        return r;
    }
    case RG_SCAN_MIN: return b < a ? b : a;
    case RG_SCAN_MAX: return b > a ? b : a;
    }
    return a;
}

// rg_scan_row is the row the j-th scanned value sits at; rg_scan_first
// whether it begins a segment in scan order. A reverse scan reads the rows
// from the last: a segment then begins at a row followed by a start.
__device__ __forceinline__ uint64_t rg_scan_row(uint64_t j, uint64_t n, bool rev) { return rev ? n - 1 - j : j; }
__device__ __forceinline__ bool rg_scan_first(const uint8_t *starts, uint64_t j, uint64_t n, bool rev) {
    if (j == 0) return true;
    return rev ? starts[n - j] != 0 : starts[j] != 0;
}

// rg_segscan_tiles: the scan within each tile of RG_SCAN_TILE values: each
// thread scans its RG_SCAN_ITEMS, the block scans the threads' totals, and
// each thread folds the total of the threads before it into its values up
// to its first start. tileVal/tileFlag get each tile's total and whether a
// segment starts in it. Args: n, status, vals, starts, reverse, out, op,
// tileVal, tileFlag.
template <typename T>
__device__ __forceinline__ void rg_segscan_tiles_t(const Args &A) {
    const uint64_t n = A.a[0];
    uint32_t *st = (uint32_t *)A.a[1];
    const T *vals = (const T *)A.a[2];
    const uint8_t *starts = (const uint8_t *)A.a[3];
    const bool rev = A.a[4] != 0;
    T *out = (T *)A.a[5];
    const int op = (int)A.a[6];
    T *tileVal = (T *)A.a[7];
    uint8_t *tileFlag = (uint8_t *)A.a[8];
    __shared__ T sv[RG_SCAN_THREADS];
    __shared__ uint8_t sf[RG_SCAN_THREADS];
    const uint64_t tiles = (n + RG_SCAN_TILE - 1) / RG_SCAN_TILE;
    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const uint64_t base = tile * RG_SCAN_TILE + (uint64_t)threadIdx.x * RG_SCAN_ITEMS;
        T local[RG_SCAN_ITEMS];
        bool first[RG_SCAN_ITEMS];
        T acc = T();
        bool any = false;
        for (int k = 0; k < RG_SCAN_ITEMS; k++) {
            const uint64_t j = base + k;
            first[k] = false;
            if (j >= n) continue;
            const T v = vals[rg_scan_row(j, n, rev)];
            first[k] = rg_scan_first(starts, j, n, rev);
            acc = (k == 0 || first[k]) ? v : rg_scan_fold(op, acc, v, st);
            any = any || first[k];
            local[k] = acc;
        }
        sv[threadIdx.x] = acc;
        sf[threadIdx.x] = any;
        __syncthreads();
        // Hillis-Steele over the threads' totals: an entry covers the
        // threads up to it; one that holds a start ignores what came before.
        for (int d = 1; d < RG_SCAN_THREADS; d <<= 1) {
            T pv = T();
            uint8_t pf = 0;
            const bool take = threadIdx.x >= d;
            if (take) {
                pv = sv[threadIdx.x - d];
                pf = sf[threadIdx.x - d];
            }
            __syncthreads();
            if (take) {
                if (!sf[threadIdx.x]) sv[threadIdx.x] = rg_scan_fold(op, pv, sv[threadIdx.x], st);
                sf[threadIdx.x] |= pf;
            }
            __syncthreads();
        }
        const T before = threadIdx.x > 0 ? sv[threadIdx.x - 1] : T();
        bool seen = threadIdx.x == 0;
        for (int k = 0; k < RG_SCAN_ITEMS; k++) {
            const uint64_t j = base + k;
            if (j >= n) break;
            seen = seen || first[k];
            out[rg_scan_row(j, n, rev)] = seen ? local[k] : rg_scan_fold(op, before, local[k], st);
        }
        if (threadIdx.x == RG_SCAN_THREADS - 1) {
            tileVal[tile] = sv[threadIdx.x];
            tileFlag[tile] = sf[threadIdx.x];
        }
        __syncthreads();
    }
}

// rg_segscan_carry: tile t > 0 folds carry[t-1], the scanned total of the
// tiles before it, into its values up to its first start. Args: n, status,
// starts, reverse, out, op, carry.
template <typename T>
__device__ __forceinline__ void rg_segscan_carry_t(const Args &A) {
    const uint64_t n = A.a[0];
    uint32_t *st = (uint32_t *)A.a[1];
    const uint8_t *starts = (const uint8_t *)A.a[2];
    const bool rev = A.a[3] != 0;
    T *out = (T *)A.a[4];
    const int op = (int)A.a[5];
    const T *carry = (const T *)A.a[6];
    __shared__ uint32_t firstStart;
    const uint64_t tiles = (n + RG_SCAN_TILE - 1) / RG_SCAN_TILE;
    for (uint64_t tile = 1 + blockIdx.x; tile < tiles; tile += gridDim.x) {
        if (threadIdx.x == 0) firstStart = RG_SCAN_TILE;
        __syncthreads();
        const uint64_t base = tile * RG_SCAN_TILE;
        for (uint32_t k = threadIdx.x; k < RG_SCAN_TILE; k += RG_SCAN_THREADS) {
            if (base + k < n && rg_scan_first(starts, base + k, n, rev)) atomicMin(&firstStart, k);
        }
        __syncthreads();
        const T c = carry[tile - 1];
        for (uint32_t k = threadIdx.x; k < firstStart; k += RG_SCAN_THREADS) {
            if (base + k >= n) break;
            const uint64_t i = rg_scan_row(base + k, n, rev);
            out[i] = rg_scan_fold(op, c, out[i], st);
        }
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(RG_SCAN_THREADS) rg_segscan_tiles_i64(const Args A) { rg_segscan_tiles_t<long long>(A); }
extern "C" __global__ void __launch_bounds__(RG_SCAN_THREADS) rg_segscan_tiles_f64(const Args A) { rg_segscan_tiles_t<double>(A); }
extern "C" __global__ void __launch_bounds__(RG_SCAN_THREADS) rg_segscan_tiles_i128(const Args A) { rg_segscan_tiles_t<i128>(A); }
extern "C" __global__ void __launch_bounds__(RG_SCAN_THREADS) rg_segscan_carry_i64(const Args A) { rg_segscan_carry_t<long long>(A); }
extern "C" __global__ void __launch_bounds__(RG_SCAN_THREADS) rg_segscan_carry_f64(const Args A) { rg_segscan_carry_t<double>(A); }
extern "C" __global__ void __launch_bounds__(RG_SCAN_THREADS) rg_segscan_carry_i128(const Args A) { rg_segscan_carry_t<i128>(A); }

// Sums of frames in DuckDB's order (gpu/segmenttree.go): a segment tree
// of fanout RG_TREE_FANOUT over the rows, then each row's frame summed
// onto 0.0 from left to right: the ragged rows at its start, the ragged
// entries of each level on the way up, the entries between both ends at
// the level where they meet, the ragged entries of each level on the way
// down, the ragged rows at its end. Floating-point adds only (no
// multiply, so nothing contracts into an FMA), in the order written: the
// bits are DuckDB's.
#define RG_TREE_FANOUT 16
// Levels above the rows: 16^8 entries pass 2^31 rows.
#define RG_TREE_MAX_LEVELS 9

// rg_tree_level_f64: entry j of the level above sums entries
// 16j..16j+15 of this one, one after the other onto 0.0. Args: n (this
// level's entries), this level, the level above.
extern "C" __global__ void __launch_bounds__(256) rg_tree_level_f64(const Args A) {
    const uint64_t n = A.a[0];
    const double *cur = (const double *)A.a[1];
    double *up = (double *)A.a[2];
    const uint64_t m = (n + RG_TREE_FANOUT - 1) / RG_TREE_FANOUT;
    for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < m; j += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t end = min(n, (j + 1) * RG_TREE_FANOUT);
        double acc = 0.0;
        for (uint64_t i = j * RG_TREE_FANOUT; i < end; i++) acc += cur[i];
        up[j] = acc;
    }
}

// rg_add_range adds level[from..to) onto acc, in order.
__device__ __forceinline__ double rg_add_range(const double *level, uint64_t from, uint64_t to, double acc) {
    for (uint64_t i = from; i < to; i++) acc += level[i];
    return acc;
}

// rg_frame_sums_f64: out[i] = the sum of rows from[i]..to[i] (int32,
// both included; -1: an empty frame, 0.0). Args: n, from, to, out, the
// number of levels L (level 0, the rows, included; at most
// RG_TREE_MAX_LEVELS + 1), then L level pointers.
extern "C" __global__ void __launch_bounds__(256) rg_frame_sums_f64(const Args A) {
    const uint64_t n = A.a[0];
    const int *from = (const int *)A.a[1];
    const int *to = (const int *)A.a[2];
    double *out = (double *)A.a[3];
    const uint64_t levels = A.a[4];
    const double *rows = (const double *)A.a[5];
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        if (from[i] < 0 || to[i] < from[i]) {
            out[i] = 0.0;
            continue;
        }
        const uint64_t begin = (uint64_t)from[i], end = (uint64_t)to[i] + 1;
        const uint64_t pb = begin / RG_TREE_FANOUT, pe = end / RG_TREE_FANOUT;
        if (pb == pe) {
            out[i] = rg_add_range(rows, begin, end, 0.0);
            continue;
        }
        double acc = 0.0;
        if (begin != pb * RG_TREE_FANOUT) acc = rg_add_range(rows, begin, (pb + 1) * RG_TREE_FANOUT, acc);
        // Up the levels with the left ends; rightEnd[l] is level l's end.
        uint64_t rightEnd[RG_TREE_MAX_LEVELS + 1];
        uint64_t top = 0, b = begin != pb * RG_TREE_FANOUT ? pb + 1 : pb, e = pe;
        for (uint64_t l = 1; l < levels; l++) {
            const double *level = (const double *)A.a[5 + l];
            top = l;
            uint64_t lpb = b / RG_TREE_FANOUT;
            const uint64_t lpe = e / RG_TREE_FANOUT;
            if (lpb == lpe) {
                acc = rg_add_range(level, b, e, acc);
                break;
            }
            if (b != lpb * RG_TREE_FANOUT) {
                acc = rg_add_range(level, b, (lpb + 1) * RG_TREE_FANOUT, acc);
                lpb++;
            }
            rightEnd[l] = e;
            b = lpb;
            e = lpe;
        }
        // Down the levels with the right ends, then the rows.
        for (uint64_t l = top - 1; l >= 1 && l < top; l--) {
            const uint64_t le = rightEnd[l], last = le / RG_TREE_FANOUT * RG_TREE_FANOUT;
            if (le != last) acc = rg_add_range((const double *)A.a[5 + l], last, le, acc);
        }
        if (end != pe * RG_TREE_FANOUT) acc = rg_add_range(rows, pe * RG_TREE_FANOUT, end, acc);
        out[i] = acc;
    }
}
