
extern "C" __global__ void __launch_bounds__(256) rg_count(const Args A) {
  const long long n = (long long)A.a[0];
 
  const long long ntiles = (long long)A.a[12];
  uint32_t *mask = (uint32_t *)A.a[19];
  __shared__ uint32_t wcnt[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
    uint32_t c = 0;
    for (int k = 0; k < 4; k++) {
      const long long i = t * 1024 + k * 256 + threadIdx.x;
      bool ok = false;
      if (i < n) {
        const uint64_t ca1 = A.a[7];
        const uint8_t *const cs1 = (const uint8_t *)(ca1 & ~1ull);
        const uint64_t c1 = rg_str_view(A.a[5], ca1, i);
        const bool cn1 = A.a[6] != 0 && ((const uint8_t *)A.a[6])[i] == 0;
        (void)c1; (void)cs1; (void)cn1;
        int v1 = 0; bool n1 = false || cn1;
        if (!n1) {
          const uint8_t *s = cs1 + (uint32_t)c1;
          const int len = (int)(c1 >> 32);
          int r = 0;
          do {
            int pos = 0;
            {
              int found = -1;
              for (int st = pos; st <= len - 7 && found < 0; st++) {
                int q = st; bool m = true;
                do {
                  if (q >= len || s[q] != 115) { m = false; break; }
                  q++;
                  if (q >= len || s[q] != 112) { m = false; break; }
                  q++;
                  if (q >= len || s[q] != 101) { m = false; break; }
                  q++;
                  if (q >= len || s[q] != 99) { m = false; break; }
                  q++;
                  if (q >= len || s[q] != 105) { m = false; break; }
                  q++;
                  if (q >= len || s[q] != 97) { m = false; break; }
                  q++;
                  if (q >= len || s[q] != 108) { m = false; break; }
                  q++;
                } while (0);
                if (m) found = q;
              }
              if (found < 0) break;
              pos = found;
            }
            r = 1;
          } while (0);
          v1 = r;
        }
        const bool pass = !n1 && v1;
        ok = pass;
      }
      c += ok;
      const unsigned m = __ballot_sync(0xffffffffu, ok);
      if (lane == 0 && i < n) mask[i >> 5] = m;
    }
    c = (uint32_t)rg_warp_sum64(c);
    if (lane == 0) wcnt[warp] = c;
    __syncthreads();
    if (threadIdx.x == 0) { uint32_t s = 0; for (int w = 0; w < 8; w++) s += wcnt[w]; ((uint32_t *)A.a[11])[t] = s; }
    __syncthreads();
  }
}

extern "C" __global__ void __launch_bounds__(256) rg_write(const Args A) {
  const long long n = (long long)A.a[0];
 
  const long long ntiles = (long long)A.a[12];
  uint32_t *mask = (uint32_t *)A.a[19];
  __shared__ uint32_t wcnt[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
    unsigned long long base = ((const unsigned long long *)A.a[11])[t];
    for (int k = 0; k < 4; k++) {
      const long long i = t * 1024 + k * 256 + threadIdx.x;
      const long long w0 = i - lane;
      const unsigned m = w0 < n ? mask[w0 >> 5] : 0u;
      const bool ok = (m >> lane) & 1u;
      if (lane == 0) wcnt[warp] = __popc(m);
      __syncthreads();
      unsigned before = 0, total = 0;
      for (int w = 0; w < 8; w++) { if (w < warp) before += wcnt[w]; total += wcnt[w]; }
      if (ok) {
        const unsigned long long pos = base + before + __popc(m & ((1u << lane) - 1u));
        const long long c0 = (long long)((const int64_t *)A.a[2])[i];
        const bool cn0 = A.a[3] != 0 && ((const uint8_t *)A.a[3])[i] == 0;
        (void)c0; (void)cn0;
        const uint64_t ca1 = A.a[7];
        const uint8_t *const cs1 = (const uint8_t *)(ca1 & ~1ull);
        const uint64_t c1 = rg_str_view(A.a[5], ca1, i);
        const bool cn1 = A.a[6] != 0 && ((const uint8_t *)A.a[6])[i] == 0;
        (void)c1; (void)cs1; (void)cn1;
        const uint64_t ca2 = A.a[10];
        const uint8_t *const cs2 = (const uint8_t *)(ca2 & ~1ull);
        const uint64_t c2 = rg_str_view(A.a[8], ca2, i);
        const bool cn2 = false;
        (void)c2; (void)cs2; (void)cn2;
        ((uint64_t *)A.a[13])[pos] = (uint64_t)c2;
        (void)cn2;
        ((int64_t *)A.a[15])[pos] = (int64_t)c0;
        ((uint8_t *)A.a[16])[pos] = cn0 ? 0 : 1;
        ((uint64_t *)A.a[17])[pos] = (uint64_t)c1;
        ((uint8_t *)A.a[18])[pos] = cn1 ? 0 : 1;
      }
      base += total;
      __syncthreads();
    }
  }
}
