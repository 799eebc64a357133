// join.cu: the join primitives (gpu/join.go): a hash join over any number
// of fixed-width key columns, gather by row index, unmatched rows, and the
// scans they share. Compiled once per device after prelude.cuh.
//
// Hash table: open addressing with linear probing over a power-of-two
// number of 64-bit slots (at least twice the build rows). A slot holds
// (hash tag << 32) | build row, or JN_EMPTY. Each DISTINCT key owns one slot
// (its first inserted row, the "representative"); further rows with that
// key are chained behind it through next[] and counted in clen[rep], so
// inserting many duplicates costs one atomic each instead of a walk along
// an ever longer run of equal slots. When no key has a second row (a
// primary key, TPC-H's usual build side) rg_join_build leaves the multi
// word 0, and the probes read neither clen[] nor next[]: every chain is
// its representative alone, and those are random reads saved per match.
//
// Every kernel takes one Args block; the join kernels share this layout:
#define JA_N 0        // rows of the side the kernel walks
#define JA_STATUS 1   // uint32 status word (error flags)
#define JA_NKEYS 2    // number of key columns
#define JA_SLOTS 3    // uint64 slots[mask + 1]
#define JA_MASK 4     // capacity - 1
#define JA_NEXT 5     // int32 next[build rows], -1 ends a chain
#define JA_CLEN 6     // uint32 chain length per representative build row
#define JA_REP 7      // int32 representative per probe row (-1: no match)
#define JA_COUNTS 8   // uint64 matches per tile
#define JA_NTILES 9
#define JA_OFFSETS 10 // uint64 offsets[ntiles + 1] (exclusive scan of counts)
#define JA_OUTP 11    // int32 probe row per output pair
#define JA_OUTB 12    // int32 build row per output pair
#define JA_MULTI 13   // uint32 set by rg_join_build when a key has several build rows
#define JA_FAST 14    // 1: one 8-byte integer key, no validity on either side (rg_jn_find8)
#define JA_KEYS 16    // JK_WORDS words per key column:
#define JK_WORDS 5    //   build data, build validity, probe data, probe validity, code
#define JK_MAX 32     // key columns a join takes (the host side checks)

// code: value width in bytes (1, 2, 4, 8, 16) in bits 0-7, then flags.
#define JK_FLOAT 0x100u   // IEEE float of that width: NaN = NaN, -0 = 0
#define JK_NULLEQ 0x200u  // null equals null (IS NOT DISTINCT FROM)

// Status flag raised by gather and unmatched for an index outside its
// column (the host turns it into an error).
#define RG_BAD_INDEX 16u

#define JN_THREADS 256
#define JN_ITEMS 8
#define JN_TILE (JN_THREADS * JN_ITEMS)
#define JN_EMPTY 0xffffffffffffffffull

// rg_jn_scan: exclusive prefix sum of n uint64 counts into n+1 uint64
// offsets (offsets[n] = total). One block of 1024 threads, each owning a
// contiguous run of counts (rg_scan of util.cu takes uint32 counts; a tile
// of a many-to-many join can produce more than 2^32 pairs).
// Args: n, counts, offsets.
extern "C" __global__ void __launch_bounds__(1024) rg_jn_scan(const Args A) {
    rg_scan_counts(A.a[0], (const uint64_t *)A.a[1], (uint64_t *)A.a[2]);
}

// Block-wide exclusive scan of one uint64 per thread (JN_THREADS threads);
// *total receives the block's sum. Every thread of the block must call it.
// sh holds JN_THREADS / 32 words.
__device__ __forceinline__ uint64_t rg_jn_block_scan(uint64_t v, uint64_t *total, uint64_t *sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint64_t x = v;
    for (int o = 1; o < 32; o <<= 1) {
        uint64_t y = __shfl_up_sync(0xffffffffu, (unsigned long long)x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31) sh[warp] = x;
    __syncthreads();
    if (warp == 0) {
        uint64_t w = lane < JN_THREADS / 32 ? sh[lane] : 0;
        for (int o = 1; o < 32; o <<= 1) {
            uint64_t y = __shfl_up_sync(0xffffffffu, (unsigned long long)w, o);
            if (lane >= o) w += y;
        }
        if (lane < JN_THREADS / 32) sh[lane] = w;
    }
    __syncthreads();
    const uint64_t before = (warp > 0 ? sh[warp - 1] : 0) + x - v;
    *total = sh[JN_THREADS / 32 - 1];
    __syncthreads(); // sh is reused by the next call
    return before;
}

// Key descriptors are copied to shared memory once per block: every thread
// reads the same words (a broadcast), and shared memory indexes cheaply by
// a loop variable where the kernel parameter block might not.
__device__ __forceinline__ int rg_jn_load_keys(const Args &A, uint64_t *kd) {
    const int nk = (int)A.a[JA_NKEYS];
    for (int i = threadIdx.x; i < nk * JK_WORDS; i += blockDim.x) kd[i] = A.a[JA_KEYS + i];
    __syncthreads();
    return nk;
}

// The canonical bits of one key value: floats map NaN to one NaN and -0 to
// 0, so that equal values have equal bits. Both sides of a key have the
// same kind, so integers need no sign extension.
__device__ __forceinline__ void rg_jn_key(const uint8_t *data, uint32_t code, uint64_t row, uint64_t &lo, uint64_t &hi) {
    hi = 0;
    switch (code & 0xffu) {
    case 1: lo = data[row]; break;
    case 2: lo = ((const uint16_t *)data)[row]; break;
    case 4: {
        uint32_t v = ((const uint32_t *)data)[row];
        if (code & JK_FLOAT) {
            const float f = __uint_as_float(v);
            if (f != f) v = 0x7fc00000u;
            else if (f == 0.0f) v = 0;
        }
        lo = v;
        break;
    }
    case 8: {
        uint64_t v = ((const uint64_t *)data)[row];
        if (code & JK_FLOAT) {
            const double f = __longlong_as_double((long long)v);
            if (f != f) v = 0x7ff8000000000000ull;
            else if (f == 0.0) v = 0;
        }
        lo = v;
        break;
    }
    default: {
        const ulonglong2 v = ((const ulonglong2 *)data)[row];
        lo = v.x;
        hi = v.y;
    }
    }
}

__device__ __forceinline__ uint64_t rg_jn_mix(uint64_t h, uint64_t v) {
    h = ((h << 27) | (h >> 37)) ^ v;
    return h * 0x9e3779b97f4a7c15ull;
}

// murmur3's finalizer: the slot is taken from the low bits, and keys such
// as consecutive integers must spread over all of them.
__device__ __forceinline__ uint64_t rg_jn_fin(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

#define JN_SEED 0x243f6a8885a308d3ull

// rg_jn_hash hashes all key columns of one row of side (0 build, 1 probe)
// together. It returns false when a null key makes the row match nothing.
__device__ __forceinline__ bool rg_jn_hash(const uint64_t *kd, int nk, int side, uint64_t row, uint64_t &hash) {
    uint64_t h = JN_SEED;
    for (int k = 0; k < nk; k++) {
        const uint64_t *K = kd + k * JK_WORDS;
        const uint8_t *valid = (const uint8_t *)K[2 * side + 1];
        const uint32_t code = (uint32_t)K[4];
        if (valid && !valid[row]) {
            if (!(code & JK_NULLEQ)) return false;
            h = rg_jn_mix(h, 0x6e756c6c6e756c6cull);
            continue;
        }
        uint64_t lo, hi;
        rg_jn_key((const uint8_t *)K[2 * side], code, row, lo, hi);
        h = rg_jn_mix(h, lo);
        if ((code & 0xffu) == 16) h = rg_jn_mix(h, hi);
    }
    hash = rg_jn_fin(h);
    return true;
}

// rg_jn_equal compares row ra of side sa with row rb of side sb on every
// key. Two nulls are equal here: a row whose null key must match nothing
// never reaches the table (rg_jn_hash turned it away).
__device__ __forceinline__ bool rg_jn_equal(const uint64_t *kd, int nk, int sa, uint64_t ra, int sb, uint64_t rb) {
    for (int k = 0; k < nk; k++) {
        const uint64_t *K = kd + k * JK_WORDS;
        const uint32_t code = (uint32_t)K[4];
        const uint8_t *va = (const uint8_t *)K[2 * sa + 1], *vb = (const uint8_t *)K[2 * sb + 1];
        const bool na = va && !va[ra], nb = vb && !vb[rb];
        if (na || nb) {
            if (na && nb) continue;
            return false;
        }
        uint64_t alo, ahi, blo, bhi;
        rg_jn_key((const uint8_t *)K[2 * sa], code, ra, alo, ahi);
        rg_jn_key((const uint8_t *)K[2 * sb], code, rb, blo, bhi);
        if (alo != blo || ahi != bhi) return false;
    }
    return true;
}

// rg_join_build inserts every build row whose key can match. Slots start
// as JN_EMPTY, next[] as -1 and clen[] as 0.
extern "C" __global__ void __launch_bounds__(JN_THREADS) rg_join_build(const Args A) {
    __shared__ uint64_t kd[JK_MAX * JK_WORDS];
    const int nk = rg_jn_load_keys(A, kd);
    const uint64_t nb = A.a[JA_N], mask = A.a[JA_MASK];
    unsigned long long *slots = (unsigned long long *)A.a[JA_SLOTS];
    int32_t *next = (int32_t *)A.a[JA_NEXT];
    uint32_t *clen = (uint32_t *)A.a[JA_CLEN];
    for (uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; r < nb; r += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t h;
        if (!rg_jn_hash(kd, nk, 0, r, h)) continue;
        const uint64_t tag = h >> 32;
        const unsigned long long me = (tag << 32) | r;
        uint64_t pos = h & mask;
        for (;;) {
            // A slot changes once, from empty to its final value: a stale
            // empty read only sends us to the CAS, which returns the truth.
            unsigned long long s = ((volatile unsigned long long *)slots)[pos];
            if (s == JN_EMPTY) {
                s = atomicCAS(&slots[pos], JN_EMPTY, me);
                if (s == JN_EMPTY) {
                    atomicAdd(&clen[r], 1u);
                    break;
                }
            }
            const uint32_t rep = (uint32_t)s;
            if ((s >> 32) == tag && rg_jn_equal(kd, nk, 0, rep, 0, r)) {
                *(uint32_t *)A.a[JA_MULTI] = 1; // every writer writes 1
                next[r] = atomicExch(&next[rep], (int32_t)r);
                atomicAdd(&clen[rep], 1u);
                break;
            }
            pos = (pos + 1) & mask;
        }
    }
}

// rg_jn_resolve_at goes on with the lookup of probe row p, of hash h,
// from slot pos, which held s: the representative build row matching it,
// or -1.
__device__ __forceinline__ int32_t rg_jn_resolve_at(const Args &A, const uint64_t *kd, int nk, uint64_t p, uint64_t h, uint64_t pos, unsigned long long s) {
    const unsigned long long *slots = (const unsigned long long *)A.a[JA_SLOTS];
    const uint64_t mask = A.a[JA_MASK], tag = h >> 32;
    for (;;) {
        if (s == JN_EMPTY) return -1;
        if ((s >> 32) == tag && rg_jn_equal(kd, nk, 0, (uint32_t)s, 1, p)) return (int32_t)(uint32_t)s;
        pos = (pos + 1) & mask;
        s = slots[pos];
    }
}

// rg_jn_find returns the representative build row matching probe row p, or -1.
__device__ __forceinline__ int32_t rg_jn_find(const Args &A, const uint64_t *kd, int nk, uint64_t p) {
    uint64_t h;
    if (!rg_jn_hash(kd, nk, 1, p, h)) return -1;
    const uint64_t pos = h & A.a[JA_MASK];
    return rg_jn_resolve_at(A, kd, nk, p, h, pos, ((const unsigned long long *)A.a[JA_SLOTS])[pos]);
}

// rg_jn_find8 is rg_jn_find for a join on one 8-byte integer key with no
// validity on either side (JA_FAST), the usual TPC-H key: the key is read
// once and compared as a value, without the key descriptors, the width
// switch or the null checks. Where the table stays in cache (a small build
// side), the lookup is bound by instructions, not memory: ncu showed
// rg_join_count issuing 0.71 warp instructions per cycle per scheduler at
// 23% of DRAM bandwidth on TPC-H Q17 (6M probe rows, 2K build rows).
__device__ __forceinline__ int32_t rg_jn_find8(const Args &A, const uint64_t *kd, uint64_t p) {
    const uint64_t key = ((const uint64_t *)kd[2])[p];
    const uint64_t *bk = (const uint64_t *)kd[0];
    const unsigned long long *slots = (const unsigned long long *)A.a[JA_SLOTS];
    const uint64_t mask = A.a[JA_MASK], h = rg_jn_fin(rg_jn_mix(JN_SEED, key)), tag = h >> 32;
    for (uint64_t pos = h & mask;; pos = (pos + 1) & mask) {
        const unsigned long long s = slots[pos];
        if (s == JN_EMPTY) return -1;
        if ((s >> 32) == tag && bk[(uint32_t)s] == key) return (int32_t)(uint32_t)s;
    }
}

// rg_join_count looks every probe row up once, keeps its representative in
// rep[] and writes the number of pairs of each tile of JN_TILE rows to
// counts[]. A block handles whole tiles (grid-stride over tiles).
extern "C" __global__ void __launch_bounds__(JN_THREADS) rg_join_count(const Args A) {
    __shared__ uint64_t kd[JK_MAX * JK_WORDS];
    __shared__ uint64_t sh[JN_THREADS / 32];
    const int nk = rg_jn_load_keys(A, kd);
    const uint64_t np = A.a[JA_N], ntiles = A.a[JA_NTILES];
    const uint32_t *clen = (const uint32_t *)A.a[JA_CLEN];
    int32_t *rep = (int32_t *)A.a[JA_REP];
    uint64_t *counts = (uint64_t *)A.a[JA_COUNTS];
    const bool unique = *(const uint32_t *)A.a[JA_MULTI] == 0, fast = A.a[JA_FAST] != 0;
    for (uint64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        uint64_t sum = 0;
        for (int j = 0; j < JN_ITEMS; j++) {
            const uint64_t p = tile * JN_TILE + (uint64_t)j * JN_THREADS + threadIdx.x;
            if (p >= np) break;
            const int32_t r = fast ? rg_jn_find8(A, kd, p) : rg_jn_find(A, kd, nk, p);
            rep[p] = r;
            if (r >= 0) sum += unique ? 1 : clen[r];
        }
        uint64_t total;
        rg_jn_block_scan(sum, &total, sh);
        if (threadIdx.x == 0) counts[tile] = total;
    }
}

// rg_join_write writes each tile's pairs from offsets[tile] on, in probe
// row order; a probe row's build rows follow its chain.
extern "C" __global__ void __launch_bounds__(JN_THREADS) rg_join_write(const Args A) {
    __shared__ uint64_t sh[JN_THREADS / 32];
    const uint64_t np = A.a[JA_N], ntiles = A.a[JA_NTILES];
    const int32_t *next = (const int32_t *)A.a[JA_NEXT];
    const uint32_t *clen = (const uint32_t *)A.a[JA_CLEN];
    const int32_t *rep = (const int32_t *)A.a[JA_REP];
    const uint64_t *offsets = (const uint64_t *)A.a[JA_OFFSETS];
    int32_t *outP = (int32_t *)A.a[JA_OUTP];
    int32_t *outB = (int32_t *)A.a[JA_OUTB];
    const bool unique = *(const uint32_t *)A.a[JA_MULTI] == 0;
    for (uint64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        uint64_t base = offsets[tile];
        for (int j = 0; j < JN_ITEMS; j++) {
            const uint64_t p = tile * JN_TILE + (uint64_t)j * JN_THREADS + threadIdx.x;
            int32_t r = -1;
            uint64_t c = 0;
            if (p < np) {
                r = rep[p];
                if (r >= 0) c = unique ? 1 : clen[r];
            }
            uint64_t total;
            const uint64_t o = base + rg_jn_block_scan(c, &total, sh);
            for (uint64_t k = 0; k < c; k++) {
                outP[o + k] = (int32_t)p;
                outB[o + k] = r;
                if (k + 1 < c) r = next[r];
            }
            base += total;
        }
    }
}

// rg_join_gather: for each output row i, the values at row idx[i] of every
// column (ncols per launch, at most JG_MAX). A negative index gives a null
// (zero value) when pad is set; any other index outside [0, n) raises
// RG_BAD_INDEX and writes a null or zero so that nothing reads out of bounds.
// Args: m, status, idx, ncols, pad, n, -, -, then per column src, src
// validity (0 when not nullable), dst, dst validity (0 when not nullable),
// width.
#define JG_FIRST 8
#define JG_WORDS 5
#define JG_MAX 48
extern "C" __global__ void __launch_bounds__(JN_THREADS) rg_join_gather(const Args A) {
    __shared__ uint64_t cd[JG_MAX * JG_WORDS];
    const uint64_t m = A.a[0];
    uint32_t *st = (uint32_t *)A.a[1];
    const int32_t *idx = (const int32_t *)A.a[2];
    const int nc = (int)A.a[3];
    const bool padOK = A.a[4] != 0;
    const int64_t n = (int64_t)A.a[5];
    for (int i = threadIdx.x; i < nc * JG_WORDS; i += blockDim.x) cd[i] = A.a[JG_FIRST + i];
    __syncthreads();
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < m; i += (uint64_t)gridDim.x * blockDim.x) {
        const int64_t r = idx[i];
        const bool pad = r < 0 || r >= n;
        if (pad && (r >= n || !padOK)) rg_raise(st, RG_BAD_INDEX);
        for (int c = 0; c < nc; c++) {
            const uint64_t *C = cd + c * JG_WORDS;
            const uint8_t *src = (const uint8_t *)C[0], *sv = (const uint8_t *)C[1];
            uint8_t *dst = (uint8_t *)C[2], *dv = (uint8_t *)C[3];
            if (pad) {
                switch ((int)C[4]) {
                case 1: dst[i] = 0; break;
                case 2: ((uint16_t *)dst)[i] = 0; break;
                case 4: ((uint32_t *)dst)[i] = 0; break;
                case 8: ((uint64_t *)dst)[i] = 0; break;
                default: ((ulonglong2 *)dst)[i] = make_ulonglong2(0, 0);
                }
                if (dv) dv[i] = 0;
                continue;
            }
            switch ((int)C[4]) {
            case 1: dst[i] = src[r]; break;
            case 2: ((uint16_t *)dst)[i] = ((const uint16_t *)src)[r]; break;
            case 4: ((uint32_t *)dst)[i] = ((const uint32_t *)src)[r]; break;
            case 8: ((uint64_t *)dst)[i] = ((const uint64_t *)src)[r]; break;
            default: ((ulonglong2 *)dst)[i] = ((const ulonglong2 *)src)[r];
            }
            if (dv) dv[i] = sv ? sv[r] : 1;
        }
    }
}

// rg_join_mark sets seen[idx[i]] = 1 for every index in [0, n); negative
// indexes are skipped and indexes >= n raise RG_BAD_INDEX.
// Args: m, status, idx, seen, n.
extern "C" __global__ void __launch_bounds__(JN_THREADS) rg_join_mark(const Args A) {
    const uint64_t m = A.a[0];
    uint32_t *st = (uint32_t *)A.a[1];
    const int32_t *idx = (const int32_t *)A.a[2];
    uint8_t *seen = (uint8_t *)A.a[3];
    const int64_t n = (int64_t)A.a[4];
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < m; i += (uint64_t)gridDim.x * blockDim.x) {
        const int64_t r = idx[i];
        if (r >= n) rg_raise(st, RG_BAD_INDEX);
        else if (r >= 0) seen[r] = 1;
    }
}

// rg_join_unseen_count counts the rows with seen[row] == 0 per tile of
// JN_TILE rows. Args: n, -, seen, counts, ntiles.
extern "C" __global__ void __launch_bounds__(JN_THREADS) rg_join_unseen_count(const Args A) {
    __shared__ uint64_t sh[JN_THREADS / 32];
    const uint64_t n = A.a[0], ntiles = A.a[4];
    const uint8_t *seen = (const uint8_t *)A.a[2];
    uint64_t *counts = (uint64_t *)A.a[3];
    for (uint64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        uint64_t sum = 0;
        for (int j = 0; j < JN_ITEMS; j++) {
            const uint64_t r = tile * JN_TILE + (uint64_t)j * JN_THREADS + threadIdx.x;
            if (r < n && !seen[r]) sum++;
        }
        uint64_t total;
        rg_jn_block_scan(sum, &total, sh);
        if (threadIdx.x == 0) counts[tile] = total;
    }
}

// rg_join_unseen_write writes the unseen rows of each tile from
// offsets[tile] on, in ascending order. Args: n, -, seen, -, ntiles,
// offsets, out.
extern "C" __global__ void __launch_bounds__(JN_THREADS) rg_join_unseen_write(const Args A) {
    __shared__ uint64_t sh[JN_THREADS / 32];
    const uint64_t n = A.a[0], ntiles = A.a[4];
    const uint8_t *seen = (const uint8_t *)A.a[2];
    const uint64_t *offsets = (const uint64_t *)A.a[5];
    int32_t *out = (int32_t *)A.a[6];
    for (uint64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        uint64_t base = offsets[tile];
        for (int j = 0; j < JN_ITEMS; j++) {
            const uint64_t r = tile * JN_TILE + (uint64_t)j * JN_THREADS + threadIdx.x;
            const uint64_t keep = (r < n && !seen[r]) ? 1 : 0;
            uint64_t total;
            const uint64_t o = base + rg_jn_block_scan(keep, &total, sh);
            if (keep) out[o] = (int32_t)r;
            base += total;
        }
    }
}
