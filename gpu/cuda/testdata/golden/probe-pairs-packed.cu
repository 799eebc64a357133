
extern "C" __global__ void __launch_bounds__(256) rg_probe_count(const Args A) {
  const long long n = (long long)A.a[0];
  const int32_t *rep = (const int32_t *)A.a[26];
  const int32_t *next = (const int32_t *)A.a[27];
  const bool unique = *(const uint32_t *)A.a[32] == 0;
  uint32_t *pcnt = (uint32_t *)A.a[31];
  const int32_t *sel = (const int32_t *)A.a[33];
  const long long ntiles = (long long)A.a[30];
  __shared__ uint64_t sh[8];
  for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
    uint64_t sum = 0;
    for (int k = 0; k < 8; k++) {
      const long long ix = t * 2048 + k * 256 + threadIdx.x;
      if (ix < n) {
        uint32_t cnt = 0;
        const int32_t rr = rep[ix];
        if (rr >= 0) {
          const long long i = sel ? sel[ix] : ix;
          (void)i;
          for (int32_t bj = rr; bj >= 0; bj = unique ? -1 : next[bj]) {
            const bool pass = true;
            cnt += pass;
          }
        }
        pcnt[ix] = cnt;
        sum += cnt;
      }
    }
    uint64_t total;
    rg_jn_block_scan(sum, &total, sh);
    if (threadIdx.x == 0) ((uint64_t *)A.a[29])[t] = total;
  }
}

extern "C" __global__ void __launch_bounds__(256) rg_probe_write(const Args A) {
  const long long n = (long long)A.a[0];
  const int32_t *rep = (const int32_t *)A.a[26];
  const int32_t *next = (const int32_t *)A.a[27];
  const bool unique = *(const uint32_t *)A.a[32] == 0;
  uint32_t *pcnt = (uint32_t *)A.a[31];
  const int32_t *sel = (const int32_t *)A.a[33];
  const long long ntiles = (long long)A.a[30];
  __shared__ uint64_t sh[8];
  for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
    uint64_t base = ((const uint64_t *)A.a[29])[t];
    for (int k = 0; k < 8; k++) {
      const long long ix = t * 2048 + k * 256 + threadIdx.x;
      int32_t rr = -1;
      uint64_t cnt = 0;
      if (ix < n) {
        rr = rep[ix];
        if (rr >= 0) cnt = pcnt ? pcnt[ix] : unique ? 1 : ((const uint32_t *)A.a[28])[rr];
      }
      uint64_t total;
      unsigned long long pos = base + rg_jn_block_scan(cnt, &total, sh);
      if (cnt > 0) {
        const long long i = sel ? sel[ix] : ix;
        (void)i;
        const long long c0 = (long long)((long long)A.a[4] >> 7);
        const bool cn0 = A.a[3] != 0 && ((const uint8_t *)A.a[3])[i] == 0;
        (void)c0; (void)cn0;
        const long long c1 = (long long)(((long long)A.a[7] >> 7) + (long long)((const uint8_t *)A.a[5])[i]);
        const bool cn1 = A.a[6] != 0 && ((const uint8_t *)A.a[6])[i] == 0;
        (void)c1; (void)cn1;
        const long long c2 = (long long)(((long long)A.a[10] >> 7) + (long long)((const uint16_t *)A.a[8])[i]);
        const bool cn2 = false;
        (void)c2; (void)cn2;
        const double c3 = (double)((const double *)A.a[11])[i];
        const bool cn3 = A.a[12] != 0 && ((const uint8_t *)A.a[12])[i] == 0;
        (void)c3; (void)cn3;
        for (int32_t bj = rr; bj >= 0; bj = unique ? -1 : next[bj]) {
          const bool pass = true;
          if (pass) {
            const long long c4 = (long long)(((long long)A.a[16] >> 7) + (long long)((const uint32_t *)A.a[14])[bj]);
            const bool cn4 = A.a[15] != 0 && ((const uint8_t *)A.a[15])[bj] == 0;
            (void)c4; (void)cn4;
            const long long c5 = (long long)((long long)A.a[19] >> 7);
            const bool cn5 = A.a[18] != 0 && ((const uint8_t *)A.a[18])[bj] == 0;
            (void)c5; (void)cn5;
            const long long c6 = (long long)(((long long)A.a[22] >> 7) + (long long)((const uint8_t *)A.a[20])[bj]);
            const bool cn6 = A.a[21] != 0 && ((const uint8_t *)A.a[21])[bj] == 0;
            (void)c6; (void)cn6;
            const long long c7 = (long long)(((long long)A.a[25] >> 7) + (long long)((const uint16_t *)A.a[23])[bj]);
            const bool cn7 = false;
            (void)c7; (void)cn7;
            ((int64_t *)A.a[34])[pos] = (int64_t)c0;
            ((uint8_t *)A.a[35])[pos] = cn0 ? 0 : 1;
            ((int32_t *)A.a[36])[pos] = (int32_t)c1;
            ((uint8_t *)A.a[37])[pos] = cn1 ? 0 : 1;
            ((int64_t *)A.a[38])[pos] = (int64_t)c2;
            (void)cn2;
            ((double *)A.a[40])[pos] = (double)c3;
            ((uint8_t *)A.a[41])[pos] = cn3 ? 0 : 1;
            ((int64_t *)A.a[42])[pos] = (int64_t)c4;
            ((uint8_t *)A.a[43])[pos] = cn4 ? 0 : 1;
            ((int32_t *)A.a[44])[pos] = (int32_t)c5;
            ((uint8_t *)A.a[45])[pos] = cn5 ? 0 : 1;
            ((int32_t *)A.a[46])[pos] = (int32_t)c6;
            ((uint8_t *)A.a[47])[pos] = cn6 ? 0 : 1;
            ((int32_t *)A.a[48])[pos] = (int32_t)c7;
            (void)cn7;
            pos++;
          }
        }
      }
      base += total;
    }
  }
}
