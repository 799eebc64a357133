// join.cu: the join primitives (gpu/join.go): a hash join over any number
// of fixed-width key columns, gather by row index, unmatched rows, and the
// scans they share. Compiled once per device after prelude.cuh and
// join_find.cuh (the key hashing and the lookup).
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
#define JA_KEYS 16    // JK_WORDS words per key column (join_find.cuh)

// Status flag raised by gather and unmatched for an index outside its
// column (the host turns it into an error).
#define RG_BAD_INDEX 16u

// rg_jn_scan: exclusive prefix sum of n uint64 counts into n+1 uint64
// offsets (offsets[n] = total). One block of 1024 threads (rg_scan_counts;
// rg_scan of util.cu takes uint32 counts; a tile of a many-to-many join can
// produce more than 2^32 pairs).
// Args: n, counts, offsets; launched with two blocks, the second scans a
// second array of n counts (words 3 and 4) at the same time.
extern "C" __global__ void __launch_bounds__(1024) rg_jn_scan(const Args A) {
    const int w = blockIdx.x == 0 ? 1 : 3;
    rg_scan_counts(A.a[0], (const uint64_t *)A.a[w], (uint64_t *)A.a[w + 1]);
}

// rg_join_build inserts every build row whose key can match. Slots start
// as JN_EMPTY, next[] as -1 and clen[] as 0.
extern "C" __global__ void __launch_bounds__(JN_THREADS) rg_join_build(const Args A) {
    __shared__ uint64_t kd[JK_MAX * JK_WORDS];
    const int nk = (int)A.a[JA_NKEYS];
    rg_jn_load_keys(A, JA_KEYS, nk, kd);
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

// rg_join_count looks every probe row up once, keeps its representative in
// rep[] and writes the number of pairs of each tile of JN_TILE rows to
// counts[]. A block handles whole tiles (grid-stride over tiles).
extern "C" __global__ void __launch_bounds__(JN_THREADS) rg_join_count(const Args A) {
    __shared__ uint64_t kd[JK_MAX * JK_WORDS];
    __shared__ uint64_t sh[JN_THREADS / 32];
    const int nk = (int)A.a[JA_NKEYS];
    rg_jn_load_keys(A, JA_KEYS, nk, kd);
    const uint64_t np = A.a[JA_N], ntiles = A.a[JA_NTILES];
    const uint32_t *clen = (const uint32_t *)A.a[JA_CLEN];
    int32_t *rep = (int32_t *)A.a[JA_REP];
    uint64_t *counts = (uint64_t *)A.a[JA_COUNTS];
    const bool unique = *(const uint32_t *)A.a[JA_MULTI] == 0, fast = A.a[JA_FAST] != 0;
    const unsigned long long *slots = (const unsigned long long *)A.a[JA_SLOTS];
    const uint64_t mask = A.a[JA_MASK];
    for (uint64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        uint64_t sum = 0;
        for (int j = 0; j < JN_ITEMS; j++) {
            const uint64_t p = tile * JN_TILE + (uint64_t)j * JN_THREADS + threadIdx.x;
            if (p >= np) break;
            const int32_t r = fast ? rg_jn_find8(slots, mask, kd, p) : rg_jn_find(slots, mask, kd, nk, p);
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

// rg_jn_select joins the lists of matched probe rows that rg_probe_find
// (codegen_probe_find.go) leaves at the start of each tile of JN_TILE
// entries of tsel[] and trep[] (mcounts[tile] of them) into one list, sel[]
// and srep[], tile after tile from offsets[tile] (the scan of mcounts).
// Args: ntiles, -, tsel, trep, offsets, mcounts, sel, srep.
extern "C" __global__ void __launch_bounds__(JN_THREADS) rg_jn_select(const Args A) {
    const uint64_t ntiles = A.a[0];
    const int32_t *tsel = (const int32_t *)A.a[2], *trep = (const int32_t *)A.a[3];
    const uint64_t *offsets = (const uint64_t *)A.a[4], *mcounts = (const uint64_t *)A.a[5];
    int32_t *sel = (int32_t *)A.a[6], *srep = (int32_t *)A.a[7];
    for (uint64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const uint64_t m = mcounts[tile], base = offsets[tile], from = tile * JN_TILE;
        for (uint64_t k = threadIdx.x; k < m; k += JN_THREADS) {
            sel[base + k] = tsel[from + k];
            srep[base + k] = trep[from + k];
        }
    }
}

// rg_join_gather: for each output row i, the values at row idx[i] of every
// column (ncols per launch, at most JG_MAX). A negative index gives a null
// (zero value) when pad is set; any other index outside [0, n) raises
// RG_BAD_INDEX and writes a null or zero so that nothing reads out of bounds.
// Args: m, status, idx, ncols, pad, n, -, -, then per column src, src
// validity (0 when not nullable), dst, dst validity (0 when not nullable),
// width: the bytes of a value, or JG_STR_OFFSETS for a Str upload's offsets
// (strcol_strings.go), whose rows are written as views.
#define JG_STR_OFFSETS 3
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
                case 8: case JG_STR_OFFSETS: ((uint64_t *)dst)[i] = 0; break;
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
            case JG_STR_OFFSETS: ((uint64_t *)dst)[i] = rg_str_view((uint64_t)src, 0, r); break;
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
