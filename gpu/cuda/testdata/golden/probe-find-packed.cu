__constant__ unsigned long long rg_k[1];

extern "C" __global__ void __launch_bounds__(JN_THREADS) rg_probe_find(const Args A) {
  __shared__ uint64_t kd[JK_MAX * JK_WORDS];
  __shared__ uint32_t wc[JN_ITEMS * (JN_THREADS / 32)];
  __shared__ unsigned long long tp;
  __shared__ int32_t rs[JN_TILE];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (threadIdx.x == 0) tp = 0;
  const int nk = (int)A.a[34];
  rg_jn_load_keys(A, 37, nk, kd);
  const long long n = (long long)A.a[0];
  int32_t *trep = (int32_t *)A.a[26], *tsel = (int32_t *)A.a[36];
  const uint32_t *clen = (const uint32_t *)A.a[27];
  uint64_t *counts = (uint64_t *)A.a[28], *mcounts = (uint64_t *)A.a[35];
  const long long ntiles = (long long)A.a[29];
  const bool unique = *(const uint32_t *)A.a[30] == 0, fast = A.a[33] != 0;
  const unsigned long long *slots = (const unsigned long long *)A.a[31];
  const uint64_t mask = A.a[32];
  for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
    uint64_t pairs = 0;
    for (int k = 0; k < JN_ITEMS; k++) {
      const long long i = t * JN_TILE + k * JN_THREADS + threadIdx.x;
      int32_t r = -1;
      if (i < n) {
        const double c3 = (double)((const double *)A.a[11])[i];
        const bool cn3 = A.a[12] != 0 && ((const uint8_t *)A.a[12])[i] == 0;
        (void)c3; (void)cn3;
        bool v1_d = false, v1_u = false;
        int v2 = 0; bool n2 = false || cn3 || false;
        if (!n2) v2 = rg_fcmp((double)c3, (double)__longlong_as_double((long long)rg_k[0])) < 0;
        if (!n2 && v2) v1_d = true;
        if (n2) v1_u = true;
        const int v3 = cn3; const bool n3 = false;
        if (!n3 && v3) v1_d = true;
        if (n3) v1_u = true;
        const int v1 = v1_d; const bool n1 = !v1_d && v1_u;
        const bool pass = !n1 && v1;
        if (pass) r = fast ? rg_jn_find8(slots, mask, kd, i) : rg_jn_find(slots, mask, kd, nk, i);
        if (r >= 0) pairs += unique ? 1 : clen[r];
      }
      const unsigned m = __ballot_sync(0xffffffffu, r >= 0);
      rs[k * JN_THREADS + threadIdx.x] = r;
      if (lane == 0) wc[k * (JN_THREADS / 32) + warp] = __popc(m);
    }
    for (int o = 16; o > 0; o >>= 1) pairs += __shfl_down_sync(0xffffffffu, (unsigned long long)pairs, o);
    if (lane == 0 && pairs) atomicAdd(&tp, (unsigned long long)pairs);
    __syncthreads();
    // (item, warp) in row order: rows k * JN_THREADS + warp * 32 + lane.
    if (warp == 0) {
      const uint32_t a = wc[2 * lane], c = wc[2 * lane + 1];
      uint32_t x = a + c;
      for (int o = 1; o < 32; o <<= 1) {
        const uint32_t y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
      }
      wc[2 * lane] = x - a - c;
      wc[2 * lane + 1] = x - c;
      if (lane == 31) {
        mcounts[t] = x;
        counts[t] = tp;
        tp = 0;
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < JN_ITEMS; k++) {
      const int32_t r = rs[k * JN_THREADS + threadIdx.x];
      const unsigned m = __ballot_sync(0xffffffffu, r >= 0);
      if (r >= 0) {
        const long long at = t * JN_TILE + wc[k * (JN_THREADS / 32) + warp] + __popc(m & ((1u << lane) - 1u));
        tsel[at] = (int32_t)(t * JN_TILE + k * JN_THREADS + threadIdx.x);
        trep[at] = r;
      }
    }
    __syncthreads();
  }
}
