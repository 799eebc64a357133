// join_find.cuh: the hash table's lookup, shared by join.cu and the
// generated probe kernels (codegen_probe.go), which look probe rows up
// themselves when their filter can be tested before the lookup. Included
// after prelude.cuh.
//
// Table (join.cu): open addressing with linear probing over a power-of-two
// number of 64-bit slots; a slot holds (hash tag << 32) | representative
// build row, or JN_EMPTY.
//
// A key descriptor is JK_WORDS words per key column:
#define JK_WORDS 5    //   build data, build validity, probe data, probe validity, code
#define JK_MAX 32     // key columns a join takes (the host side checks)

// code: value width in bytes (1, 2, 4, 8, 16) in bits 0-7, then flags.
#define JK_FLOAT 0x100u   // IEEE float of that width: NaN = NaN, -0 = 0
#define JK_NULLEQ 0x200u  // null equals null (IS NOT DISTINCT FROM)

#define JN_THREADS 256
#define JN_ITEMS 8
#define JN_TILE (JN_THREADS * JN_ITEMS)
#define JN_EMPTY 0xffffffffffffffffull

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

// rg_jn_load_keys copies nk key descriptors from the Args words at first
// on to shared memory, once per block: every thread reads the same words (a
// broadcast), and shared memory indexes cheaply by a loop variable where
// the kernel parameter block might not.
__device__ __forceinline__ void rg_jn_load_keys(const Args &A, int first, int nk, uint64_t *kd) {
    for (int i = threadIdx.x; i < nk * JK_WORDS; i += blockDim.x) kd[i] = A.a[first + i];
    __syncthreads();
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

// rg_jn_find returns the representative build row matching probe row p in
// the table slots[mask + 1], or -1.
__device__ __forceinline__ int32_t rg_jn_find(const unsigned long long *slots, uint64_t mask, const uint64_t *kd, int nk, uint64_t p) {
    uint64_t h;
    if (!rg_jn_hash(kd, nk, 1, p, h)) return -1;
    const uint64_t tag = h >> 32;
    for (uint64_t pos = h & mask;; pos = (pos + 1) & mask) {
        const unsigned long long s = slots[pos];
        if (s == JN_EMPTY) return -1;
        if ((s >> 32) == tag && rg_jn_equal(kd, nk, 0, (uint32_t)s, 1, p)) return (int32_t)(uint32_t)s;
    }
}

// rg_jn_find8 is rg_jn_find for a join on one 8-byte integer key with no
// validity on either side (JA_FAST), the usual TPC-H key: the key is read
// once and compared as a value, without the key descriptors, the width
// switch or the null checks. Where the table stays in cache (a small build
// side), the lookup is bound by instructions, not memory: ncu showed
// rg_join_count issuing 0.71 warp instructions per cycle per scheduler at
// 23% of DRAM bandwidth on TPC-H Q17 (6M probe rows, 2K build rows).
__device__ __forceinline__ int32_t rg_jn_find8(const unsigned long long *slots, uint64_t mask, const uint64_t *kd, uint64_t p) {
    const uint64_t key = ((const uint64_t *)kd[2])[p];
    const uint64_t *bk = (const uint64_t *)kd[0];
    const uint64_t h = rg_jn_fin(rg_jn_mix(JN_SEED, key)), tag = h >> 32;
    for (uint64_t pos = h & mask;; pos = (pos + 1) & mask) {
        const unsigned long long s = slots[pos];
        if (s == JN_EMPTY) return -1;
        if ((s >> 32) == tag && bk[(uint32_t)s] == key) return (int32_t)(uint32_t)s;
    }
}
