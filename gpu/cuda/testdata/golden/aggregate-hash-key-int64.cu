
#define W 4
extern "C" __global__ void __launch_bounds__(256) rg_agg_init(const Args A) {
  uint64_t *T = (uint64_t *)A.a[8]; const uint64_t ns = A.a[9]; uint32_t *ST = (uint32_t *)A.a[14];
  for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < ns; s += (uint64_t)gridDim.x * blockDim.x) {
    for (int w = 0; w < W; w++) T[s * W + w] = 0;
    if (ST) ST[s] = 0;
  }
}

extern "C" __global__ void __launch_bounds__(256, 1) rg_agg(const Args A) {
  const long long n = (long long)A.a[0];
 
  uint64_t *T = (uint64_t *)A.a[8];
  uint64_t *K = (uint64_t *)A.a[10]; uint32_t *fill = (uint32_t *)A.a[11]; uint32_t *ST = (uint32_t *)A.a[14];
  unsigned long long *progress = (unsigned long long *)A.a[11] + 1;
  const uint64_t cap = A.a[12], maxFill = A.a[13];
  const int lane = threadIdx.x & 31;
  const unsigned FULL = 0xffffffffu;
  unsigned long long iters = 0, rowsIn = 0, runsIn = 0, innerRuns = 0, innerHits = 0;
  __shared__ unsigned blockFill;
  if (threadIdx.x == 0) blockFill = 0;
  __syncthreads();
  const unsigned fillStep = (unsigned)max(1ull, cap / 10 / gridDim.x);
  bool recheck = false;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i - lane < n; i += (long long)gridDim.x * blockDim.x) {
    if (recheck && __any_sync(FULL, ((volatile uint32_t *)fill)[0] >= maxFill)) break;
    recheck = false;
    iters++;
    bool row = false;
    uint64_t key[1] = {0};
    long long a0v = 0; bool a0n = true;
    if (i < n) {
      const bool pass = true;
      if (pass) {
        row = true;
        const long long c0 = (long long)((const int64_t *)A.a[2])[i];
        const bool cn0 = false;
        (void)c0; (void)cn0;
        const long long c1 = (long long)((const int64_t *)A.a[5])[i];
        const bool cn1 = false;
        (void)c1; (void)cn1;
        key[0] = (uint64_t)(long long)c0;
        a0n = cn1; if (!a0n) a0v = (long long)c1;
      }
    }
    bool head = !row || lane == 0;
    if (!__shfl_up_sync(FULL, (int)row, 1)) head = true;
    if (__shfl_up_sync(FULL, (unsigned long long)key[0], 1) != key[0]) head = true;
    const unsigned heads = __ballot_sync(FULL, head);
    const unsigned upto = lane == 31 ? FULL : ((2u << lane) - 1u);
    const int seg = 31 - __clz(heads & upto);
    const unsigned segMask = upto & ~((1u << seg) - 1u);
    const bool tail = row && (lane == 31 || ((heads >> (lane + 1)) & 1u));
    rowsIn += __popc(__ballot_sync(FULL, row)); runsIn += __popc(__ballot_sync(FULL, tail));
    const bool runs = heads != FULL;
    const unsigned a0c = __popc(__ballot_sync(FULL, row && !a0n) & segMask);
    i128 a0s = a0n ? (i128)0 : (i128)a0v;
    if (runs) for (int d = 1; d < 32; d <<= 1) {
      const uint64_t lo = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)a0s, d);
      const uint64_t hi = __shfl_up_sync(FULL, (unsigned long long)(uint64_t)((u128)a0s >> 64), d);
      if (lane - d >= seg) a0s = (i128)((u128)a0s + (((u128)hi << 64) | lo));
    }
    bool inserted = false;
    if (tail) {
      uint64_t h = 0x243F6A8885A308D3ull;
      h = (h ^ key[0]) * 0x9E3779B97F4A7C15ull; h ^= h >> 31;
      h ^= h >> 29; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 32; h &= cap - 1;
      uint64_t slot = ~0ull, probes = 0;
      for (;;) {
        uint32_t st = rg_ld_acquire(&ST[h]);
        if (st == 0) {
          if (atomicCAS(&ST[h], 0u, 1u) == 0u) {
            K[h * 1 + 0] = key[0];
            rg_st_release(&ST[h], 2u);
            if ((atomicAdd(&blockFill, 1u) + 1u) % fillStep == 0u && atomicAdd(fill, fillStep) + fillStep > maxFill) rg_raise(status, RG_TABLE_FULL);
            inserted = true; slot = h; break;
          }
          st = rg_ld_acquire(&ST[h]);
        }
        while (st == 1) st = rg_ld_acquire(&ST[h]);
        if (((volatile uint64_t *)K)[h * 1 + 0] == key[0]) { slot = h; break; }
        h = (h + 1) & (cap - 1);
        if ((++probes & 31) == 0 && ((volatile uint32_t *)fill)[0] >= maxFill) { rg_raise(status, RG_TABLE_FULL); break; }
        if (probes >= cap) { rg_raise(status, RG_TABLE_FULL); break; }
      }
      if (slot != ~0ull) {
        uint64_t *R = T + slot * W;
        atomicAdd((unsigned long long *)&R[0], (unsigned long long)(lane - seg + 1));
        if (a0c) {
          rg_atomic_add192(&R[1], a0s);
        }
      }
    }
    innerRuns += __popc(__ballot_sync(FULL, tail && seg > 0)); innerHits += __popc(__ballot_sync(FULL, tail && seg > 0 && !inserted));
    recheck = __any_sync(FULL, inserted);
  }
  if (lane == 0 && iters) { atomicAdd(&progress[0], iters * 32ull); atomicAdd(&progress[1], rowsIn); atomicAdd(&progress[2], runsIn); atomicAdd(&progress[3], innerRuns); atomicAdd(&progress[4], innerHits); }
}

extern "C" __global__ void __launch_bounds__(256) rg_agg_used(const Args A) {
  const unsigned long long ns = A.a[0];
  const uint64_t *T = (const uint64_t *)A.a[2];
  const long long ntiles = (long long)A.a[5];
  __shared__ uint32_t wcnt[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
    uint32_t c = 0;
    for (int k = 0; k < 4; k++) {
      const unsigned long long s = t * 1024 + k * 256 + threadIdx.x;
      c += (s < ns && T[s * 4] > 0);
    }
    c = (uint32_t)rg_warp_sum64(c);
    if (lane == 0) wcnt[warp] = c;
    __syncthreads();
    if (threadIdx.x == 0) { uint32_t s = 0; for (int w = 0; w < 8; w++) s += wcnt[w]; ((uint32_t *)A.a[4])[t] = s; }
    __syncthreads();
  }
}

extern "C" __global__ void __launch_bounds__(256) rg_agg_emit(const Args A) {
  const unsigned long long ns = A.a[0];
  const uint64_t *T = (const uint64_t *)A.a[2];
  const long long ntiles = (long long)A.a[5];
  __shared__ uint32_t wcnt[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
  const uint64_t *K = (const uint64_t *)A.a[3];
    unsigned long long base = ((const unsigned long long *)A.a[4])[t];
    for (int k = 0; k < 4; k++) {
      const unsigned long long s = t * 1024 + k * 256 + threadIdx.x;
      const bool ok = (s < ns && T[s * 4] > 0);
      const unsigned m = __ballot_sync(0xffffffffu, ok);
      if (lane == 0) wcnt[warp] = __popc(m);
      __syncthreads();
      unsigned before = 0, total = 0;
      for (int w = 0; w < 8; w++) { if (w < warp) before += wcnt[w]; total += wcnt[w]; }
      if (ok) {
        const unsigned long long r = base + before + __popc(m & ((1u << lane) - 1u));
        const uint64_t *R = T + s * 4;
        const uint64_t *KS = K + s * 1;
        {
          const bool nl = false;
          if (nl) rg_raise(status, RG_NULL_NOT_NULLABLE);
          ((uint64_t *)A.a[6])[r] = nl ? (uint64_t)0 : (uint64_t)(KS[0]);
        }
        if (!(R[0] == 0) && R[3] != (uint64_t)((long long)R[2] >> 63)) rg_raise(status, RG_OVERFLOW);
        {
          const bool nl = (R[0] == 0);
          ((uint8_t *)A.a[9])[r] = nl ? 0 : 1;
          ((i128 *)A.a[8])[r] = nl ? (i128)0 : (i128)(I128(R[2], R[1]));
        }
        {
          const bool nl = false;
          if (nl) rg_raise(status, RG_NULL_NOT_NULLABLE);
          ((uint64_t *)A.a[10])[r] = nl ? (uint64_t)0 : (uint64_t)(R[0]);
        }
      }
      base += total;
      __syncthreads();
    }
  }
}
