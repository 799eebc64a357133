
#define W 84
extern "C" __global__ void __launch_bounds__(256) rg_agg_init(const Args A) {
  uint64_t *T = (uint64_t *)A.a[35]; const uint64_t ns = A.a[36]; uint32_t *ST = (uint32_t *)A.a[41];
  for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < ns; s += (uint64_t)gridDim.x * blockDim.x) {
    for (int w = 0; w < W; w++) T[s * W + w] = 0;
    if (ST) ST[s] = 0;
    T[s * W + 1] = 0x7fffffffffffffffull;
    T[s * W + 3] = 0x8000000000000000ull;
    T[s * W + 10] = 0x7fffffffffffffffull;
    T[s * W + 12] = 0x8000000000000000ull;
    T[s * W + 19] = 0x7fffffffffffffffull;
    T[s * W + 21] = 0x8000000000000000ull;
    T[s * W + 28] = 0x7fffffffffffffffull;
    T[s * W + 30] = 0x8000000000000000ull;
    T[s * W + 37] = ~0ull;
    T[s * W + 44] = ~0ull;
    T[s * W + 51] = 0x7fffffffffffffffull;
    T[s * W + 53] = 0x8000000000000000ull;
    T[s * W + 60] = 0x7fffffffffffffffull;
    T[s * W + 62] = 0x8000000000000000ull;
    T[s * W + 70] = ~0ull; T[s * W + 71] = 0x7fffffffffffffffull;
    T[s * W + 74] = 0; T[s * W + 75] = 0x8000000000000000ull;
  }
}

extern "C" __global__ void __launch_bounds__(256, 1) rg_agg(const Args A) {
  const long long n = (long long)A.a[0];
 
  uint64_t *T = (uint64_t *)A.a[35];
  uint32_t cnt0 = 0;
  uint32_t q0_0 = 0;
  long long p0_0 = 9223372036854775807LL;
  uint32_t q0_1 = 0;
  long long p0_1 = (-9223372036854775807LL - 1);
  uint32_t q0_2 = 0;
  long long p0_2 = 0;
  uint32_t q0_3 = 0;
  uint32_t q0_4 = 0;
  long long p0_4 = 9223372036854775807LL;
  uint32_t q0_5 = 0;
  long long p0_5 = (-9223372036854775807LL - 1);
  uint32_t q0_6 = 0;
  long long p0_6 = 0;
  uint32_t q0_7 = 0;
  uint32_t q0_8 = 0;
  long long p0_8 = 9223372036854775807LL;
  uint32_t q0_9 = 0;
  long long p0_9 = (-9223372036854775807LL - 1);
  uint32_t q0_10 = 0;
  long long p0_10 = 0;
  uint32_t q0_11 = 0;
  uint32_t q0_12 = 0;
  long long p0_12 = 9223372036854775807LL;
  uint32_t q0_13 = 0;
  long long p0_13 = (-9223372036854775807LL - 1);
  uint32_t q0_14 = 0;
  long long p0_14 = 0;
  uint32_t q0_15 = 0;
  uint32_t q0_16 = 0;
  uint64_t p0_16 = ~0ull;
  uint32_t q0_17 = 0;
  uint64_t p0_17 = 0;
  uint32_t q0_18 = 0;
  double p0_18 = 0;
  uint32_t q0_19 = 0;
  uint32_t q0_20 = 0;
  uint64_t p0_20 = ~0ull;
  uint32_t q0_21 = 0;
  uint64_t p0_21 = 0;
  uint32_t q0_22 = 0;
  double p0_22 = 0;
  uint32_t q0_23 = 0;
  uint32_t q0_24 = 0;
  long long p0_24 = 9223372036854775807LL;
  uint32_t q0_25 = 0;
  long long p0_25 = (-9223372036854775807LL - 1);
  uint32_t q0_26 = 0;
  long long p0_26 = 0;
  uint32_t q0_27 = 0;
  uint32_t q0_28 = 0;
  long long p0_28 = 9223372036854775807LL;
  uint32_t q0_29 = 0;
  long long p0_29 = (-9223372036854775807LL - 1);
  uint32_t q0_30 = 0;
  long long p0_30 = 0;
  uint32_t q0_31 = 0;
  uint32_t q0_32 = 0;
  i128 p0_32 = I128(0x7fffffffffffffffull, ~0ull);
  uint32_t q0_33 = 0;
  i128 p0_33 = I128(0x8000000000000000ull, 0);
  uint32_t q0_34 = 0;
  long long p0_34 = 0;
  uint32_t q0_35 = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const bool pass = true;
    if (pass) {
      const long long c1 = (long long)((const int8_t *)A.a[5])[i];
      const bool cn1 = A.a[6] != 0 && ((const uint8_t *)A.a[6])[i] == 0;
      (void)c1; (void)cn1;
      const long long c2 = (long long)((const int16_t *)A.a[8])[i];
      const bool cn2 = A.a[9] != 0 && ((const uint8_t *)A.a[9])[i] == 0;
      (void)c2; (void)cn2;
      const long long c3 = (long long)((const int32_t *)A.a[11])[i];
      const bool cn3 = A.a[12] != 0 && ((const uint8_t *)A.a[12])[i] == 0;
      (void)c3; (void)cn3;
      const long long c4 = (long long)((const int64_t *)A.a[14])[i];
      const bool cn4 = A.a[15] != 0 && ((const uint8_t *)A.a[15])[i] == 0;
      (void)c4; (void)cn4;
      const float c5 = (float)((const float *)A.a[17])[i];
      const bool cn5 = A.a[18] != 0 && ((const uint8_t *)A.a[18])[i] == 0;
      (void)c5; (void)cn5;
      const double c6 = (double)((const double *)A.a[20])[i];
      const bool cn6 = A.a[21] != 0 && ((const uint8_t *)A.a[21])[i] == 0;
      (void)c6; (void)cn6;
      const long long c7 = (long long)((const int32_t *)A.a[23])[i];
      const bool cn7 = A.a[24] != 0 && ((const uint8_t *)A.a[24])[i] == 0;
      (void)c7; (void)cn7;
      const long long c8 = (long long)((const int64_t *)A.a[26])[i];
      const bool cn8 = A.a[27] != 0 && ((const uint8_t *)A.a[27])[i] == 0;
      (void)c8; (void)cn8;
      const i128 c9 = (i128)((const i128 *)A.a[29])[i];
      const bool cn9 = A.a[30] != 0 && ((const uint8_t *)A.a[30])[i] == 0;
      (void)c9; (void)cn9;
      const int gid = 0;
      if (gid == 0) {
        cnt0++;
        if (!cn1) {
          q0_0++;
          if ((long long)c1 < p0_0) p0_0 = (long long)c1;
        }
        if (!cn1) {
          q0_1++;
          if ((long long)c1 > p0_1) p0_1 = (long long)c1;
        }
        if (!cn1) {
          q0_2++;
          const long long xl = (long long)c1; {
            const long long s = (long long)((unsigned long long)p0_2 + (unsigned long long)xl);
            if (((p0_2 ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(&T[(0) * W + 5], (i128)p0_2); p0_2 = xl; } else p0_2 = s;
          }
        }
        if (!cn1) {
          q0_3++;
        }
        if (!cn2) {
          q0_4++;
          if ((long long)c2 < p0_4) p0_4 = (long long)c2;
        }
        if (!cn2) {
          q0_5++;
          if ((long long)c2 > p0_5) p0_5 = (long long)c2;
        }
        if (!cn2) {
          q0_6++;
          const long long xl = (long long)c2; {
            const long long s = (long long)((unsigned long long)p0_6 + (unsigned long long)xl);
            if (((p0_6 ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(&T[(0) * W + 14], (i128)p0_6); p0_6 = xl; } else p0_6 = s;
          }
        }
        if (!cn2) {
          q0_7++;
        }
        if (!cn3) {
          q0_8++;
          if ((long long)c3 < p0_8) p0_8 = (long long)c3;
        }
        if (!cn3) {
          q0_9++;
          if ((long long)c3 > p0_9) p0_9 = (long long)c3;
        }
        if (!cn3) {
          q0_10++;
          const long long xl = (long long)c3; {
            const long long s = (long long)((unsigned long long)p0_10 + (unsigned long long)xl);
            if (((p0_10 ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(&T[(0) * W + 23], (i128)p0_10); p0_10 = xl; } else p0_10 = s;
          }
        }
        if (!cn3) {
          q0_11++;
        }
        if (!cn4) {
          q0_12++;
          if ((long long)c4 < p0_12) p0_12 = (long long)c4;
        }
        if (!cn4) {
          q0_13++;
          if ((long long)c4 > p0_13) p0_13 = (long long)c4;
        }
        if (!cn4) {
          q0_14++;
          const long long xl = (long long)c4; {
            const long long s = (long long)((unsigned long long)p0_14 + (unsigned long long)xl);
            if (((p0_14 ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(&T[(0) * W + 32], (i128)p0_14); p0_14 = xl; } else p0_14 = s;
          }
        }
        if (!cn4) {
          q0_15++;
        }
        if (!cn5) {
          q0_16++;
          { const uint64_t k = rg_f64_key((double)c5); if (k < p0_16) p0_16 = k; }
        }
        if (!cn5) {
          q0_17++;
          { const uint64_t k = rg_f64_key((double)c5); if (k > p0_17) p0_17 = k; }
        }
        if (!cn5) {
          q0_18++;
          p0_18 += (double)c5;
        }
        if (!cn5) {
          q0_19++;
        }
        if (!cn6) {
          q0_20++;
          { const uint64_t k = rg_f64_key((double)c6); if (k < p0_20) p0_20 = k; }
        }
        if (!cn6) {
          q0_21++;
          { const uint64_t k = rg_f64_key((double)c6); if (k > p0_21) p0_21 = k; }
        }
        if (!cn6) {
          q0_22++;
          p0_22 += (double)c6;
        }
        if (!cn6) {
          q0_23++;
        }
        if (!cn7) {
          q0_24++;
          if ((long long)c7 < p0_24) p0_24 = (long long)c7;
        }
        if (!cn7) {
          q0_25++;
          if ((long long)c7 > p0_25) p0_25 = (long long)c7;
        }
        if (!cn7) {
          q0_26++;
          const long long xl = (long long)c7; {
            const long long s = (long long)((unsigned long long)p0_26 + (unsigned long long)xl);
            if (((p0_26 ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(&T[(0) * W + 55], (i128)p0_26); p0_26 = xl; } else p0_26 = s;
          }
        }
        if (!cn7) {
          q0_27++;
        }
        if (!cn8) {
          q0_28++;
          if ((long long)c8 < p0_28) p0_28 = (long long)c8;
        }
        if (!cn8) {
          q0_29++;
          if ((long long)c8 > p0_29) p0_29 = (long long)c8;
        }
        if (!cn8) {
          q0_30++;
          const long long xl = (long long)c8; {
            const long long s = (long long)((unsigned long long)p0_30 + (unsigned long long)xl);
            if (((p0_30 ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(&T[(0) * W + 64], (i128)p0_30); p0_30 = xl; } else p0_30 = s;
          }
        }
        if (!cn8) {
          q0_31++;
        }
        if (!cn9) {
          q0_32++;
          if ((i128)c9 < p0_32) p0_32 = (i128)c9;
        }
        if (!cn9) {
          q0_33++;
          if ((i128)c9 > p0_33) p0_33 = (i128)c9;
        }
        if (!cn9) {
          q0_34++;
          const i128 x = (i128)c9; const long long xl = (long long)x;
          if ((i128)xl != x) rg_atomic_add192_rare(&T[(0) * W + 78], x); else {
            const long long s = (long long)((unsigned long long)p0_34 + (unsigned long long)xl);
            if (((p0_34 ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(&T[(0) * W + 78], (i128)p0_34); p0_34 = xl; } else p0_34 = s;
          }
        }
        if (!cn9) {
          q0_35++;
        }
      }
    }
  }
  const int lane = threadIdx.x & 31;
  {
    uint64_t *R = T + 0 * W;
    const uint64_t c = rg_warp_total64(cnt0);
    if (lane == 0 && c) atomicAdd((unsigned long long *)&R[0], (unsigned long long)c);
    const uint64_t nn0_0 = rg_warp_total64(q0_0);
    if (lane == 0 && nn0_0) atomicAdd((unsigned long long *)&R[2], (unsigned long long)nn0_0);
    { long long s = p0_0; for (int o = 16; o > 0; o >>= 1) s = min(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn0_0) atomicMin((long long *)&R[1], s); }
    const uint64_t nn0_1 = rg_warp_total64(q0_1);
    if (lane == 0 && nn0_1) atomicAdd((unsigned long long *)&R[4], (unsigned long long)nn0_1);
    { long long s = p0_1; for (int o = 16; o > 0; o >>= 1) s = max(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn0_1) atomicMax((long long *)&R[3], s); }
    const uint64_t nn0_2 = rg_warp_total64(q0_2);
    if (lane == 0 && nn0_2) atomicAdd((unsigned long long *)&R[8], (unsigned long long)nn0_2);
    rg_flush_sum128(&R[5], (i128)p0_2);
    const uint64_t nn0_3 = rg_warp_total64(q0_3);
    if (lane == 0 && nn0_3) atomicAdd((unsigned long long *)&R[9], (unsigned long long)nn0_3);
    const uint64_t nn0_4 = rg_warp_total64(q0_4);
    if (lane == 0 && nn0_4) atomicAdd((unsigned long long *)&R[11], (unsigned long long)nn0_4);
    { long long s = p0_4; for (int o = 16; o > 0; o >>= 1) s = min(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn0_4) atomicMin((long long *)&R[10], s); }
    const uint64_t nn0_5 = rg_warp_total64(q0_5);
    if (lane == 0 && nn0_5) atomicAdd((unsigned long long *)&R[13], (unsigned long long)nn0_5);
    { long long s = p0_5; for (int o = 16; o > 0; o >>= 1) s = max(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn0_5) atomicMax((long long *)&R[12], s); }
    const uint64_t nn0_6 = rg_warp_total64(q0_6);
    if (lane == 0 && nn0_6) atomicAdd((unsigned long long *)&R[17], (unsigned long long)nn0_6);
    rg_flush_sum128(&R[14], (i128)p0_6);
    const uint64_t nn0_7 = rg_warp_total64(q0_7);
    if (lane == 0 && nn0_7) atomicAdd((unsigned long long *)&R[18], (unsigned long long)nn0_7);
    const uint64_t nn0_8 = rg_warp_total64(q0_8);
    if (lane == 0 && nn0_8) atomicAdd((unsigned long long *)&R[20], (unsigned long long)nn0_8);
    { long long s = p0_8; for (int o = 16; o > 0; o >>= 1) s = min(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn0_8) atomicMin((long long *)&R[19], s); }
    const uint64_t nn0_9 = rg_warp_total64(q0_9);
    if (lane == 0 && nn0_9) atomicAdd((unsigned long long *)&R[22], (unsigned long long)nn0_9);
    { long long s = p0_9; for (int o = 16; o > 0; o >>= 1) s = max(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn0_9) atomicMax((long long *)&R[21], s); }
    const uint64_t nn0_10 = rg_warp_total64(q0_10);
    if (lane == 0 && nn0_10) atomicAdd((unsigned long long *)&R[26], (unsigned long long)nn0_10);
    rg_flush_sum128(&R[23], (i128)p0_10);
    const uint64_t nn0_11 = rg_warp_total64(q0_11);
    if (lane == 0 && nn0_11) atomicAdd((unsigned long long *)&R[27], (unsigned long long)nn0_11);
    const uint64_t nn0_12 = rg_warp_total64(q0_12);
    if (lane == 0 && nn0_12) atomicAdd((unsigned long long *)&R[29], (unsigned long long)nn0_12);
    { long long s = p0_12; for (int o = 16; o > 0; o >>= 1) s = min(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn0_12) atomicMin((long long *)&R[28], s); }
    const uint64_t nn0_13 = rg_warp_total64(q0_13);
    if (lane == 0 && nn0_13) atomicAdd((unsigned long long *)&R[31], (unsigned long long)nn0_13);
    { long long s = p0_13; for (int o = 16; o > 0; o >>= 1) s = max(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn0_13) atomicMax((long long *)&R[30], s); }
    const uint64_t nn0_14 = rg_warp_total64(q0_14);
    if (lane == 0 && nn0_14) atomicAdd((unsigned long long *)&R[35], (unsigned long long)nn0_14);
    rg_flush_sum128(&R[32], (i128)p0_14);
    const uint64_t nn0_15 = rg_warp_total64(q0_15);
    if (lane == 0 && nn0_15) atomicAdd((unsigned long long *)&R[36], (unsigned long long)nn0_15);
    const uint64_t nn0_16 = rg_warp_total64(q0_16);
    if (lane == 0 && nn0_16) atomicAdd((unsigned long long *)&R[38], (unsigned long long)nn0_16);
    { unsigned long long s = p0_16; for (int o = 16; o > 0; o >>= 1) s = min(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn0_16) atomicMin((unsigned long long *)&R[37], s); }
    const uint64_t nn0_17 = rg_warp_total64(q0_17);
    if (lane == 0 && nn0_17) atomicAdd((unsigned long long *)&R[40], (unsigned long long)nn0_17);
    { unsigned long long s = p0_17; for (int o = 16; o > 0; o >>= 1) s = max(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn0_17) atomicMax((unsigned long long *)&R[39], s); }
    const uint64_t nn0_18 = rg_warp_total64(q0_18);
    if (lane == 0 && nn0_18) atomicAdd((unsigned long long *)&R[42], (unsigned long long)nn0_18);
    { double s = p0_18; for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
      if (lane == 0 && nn0_18) atomicAdd((double *)&R[41], s); }
    const uint64_t nn0_19 = rg_warp_total64(q0_19);
    if (lane == 0 && nn0_19) atomicAdd((unsigned long long *)&R[43], (unsigned long long)nn0_19);
    const uint64_t nn0_20 = rg_warp_total64(q0_20);
    if (lane == 0 && nn0_20) atomicAdd((unsigned long long *)&R[45], (unsigned long long)nn0_20);
    { unsigned long long s = p0_20; for (int o = 16; o > 0; o >>= 1) s = min(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn0_20) atomicMin((unsigned long long *)&R[44], s); }
    const uint64_t nn0_21 = rg_warp_total64(q0_21);
    if (lane == 0 && nn0_21) atomicAdd((unsigned long long *)&R[47], (unsigned long long)nn0_21);
    { unsigned long long s = p0_21; for (int o = 16; o > 0; o >>= 1) s = max(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn0_21) atomicMax((unsigned long long *)&R[46], s); }
    const uint64_t nn0_22 = rg_warp_total64(q0_22);
    if (lane == 0 && nn0_22) atomicAdd((unsigned long long *)&R[49], (unsigned long long)nn0_22);
    { double s = p0_22; for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
      if (lane == 0 && nn0_22) atomicAdd((double *)&R[48], s); }
    const uint64_t nn0_23 = rg_warp_total64(q0_23);
    if (lane == 0 && nn0_23) atomicAdd((unsigned long long *)&R[50], (unsigned long long)nn0_23);
    const uint64_t nn0_24 = rg_warp_total64(q0_24);
    if (lane == 0 && nn0_24) atomicAdd((unsigned long long *)&R[52], (unsigned long long)nn0_24);
    { long long s = p0_24; for (int o = 16; o > 0; o >>= 1) s = min(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn0_24) atomicMin((long long *)&R[51], s); }
    const uint64_t nn0_25 = rg_warp_total64(q0_25);
    if (lane == 0 && nn0_25) atomicAdd((unsigned long long *)&R[54], (unsigned long long)nn0_25);
    { long long s = p0_25; for (int o = 16; o > 0; o >>= 1) s = max(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn0_25) atomicMax((long long *)&R[53], s); }
    const uint64_t nn0_26 = rg_warp_total64(q0_26);
    if (lane == 0 && nn0_26) atomicAdd((unsigned long long *)&R[58], (unsigned long long)nn0_26);
    rg_flush_sum128(&R[55], (i128)p0_26);
    const uint64_t nn0_27 = rg_warp_total64(q0_27);
    if (lane == 0 && nn0_27) atomicAdd((unsigned long long *)&R[59], (unsigned long long)nn0_27);
    const uint64_t nn0_28 = rg_warp_total64(q0_28);
    if (lane == 0 && nn0_28) atomicAdd((unsigned long long *)&R[61], (unsigned long long)nn0_28);
    { long long s = p0_28; for (int o = 16; o > 0; o >>= 1) s = min(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn0_28) atomicMin((long long *)&R[60], s); }
    const uint64_t nn0_29 = rg_warp_total64(q0_29);
    if (lane == 0 && nn0_29) atomicAdd((unsigned long long *)&R[63], (unsigned long long)nn0_29);
    { long long s = p0_29; for (int o = 16; o > 0; o >>= 1) s = max(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn0_29) atomicMax((long long *)&R[62], s); }
    const uint64_t nn0_30 = rg_warp_total64(q0_30);
    if (lane == 0 && nn0_30) atomicAdd((unsigned long long *)&R[67], (unsigned long long)nn0_30);
    rg_flush_sum128(&R[64], (i128)p0_30);
    const uint64_t nn0_31 = rg_warp_total64(q0_31);
    if (lane == 0 && nn0_31) atomicAdd((unsigned long long *)&R[68], (unsigned long long)nn0_31);
    const uint64_t nn0_32 = rg_warp_total64(q0_32);
    if (lane == 0 && nn0_32) atomicAdd((unsigned long long *)&R[73], (unsigned long long)nn0_32);
    { i128 s = p0_32; for (int o = 16; o > 0; o >>= 1) {
        const uint64_t lo = __shfl_down_sync(0xffffffffu, (unsigned long long)(uint64_t)s, o);
        const uint64_t hi = __shfl_down_sync(0xffffffffu, (unsigned long long)(uint64_t)((u128)s >> 64), o);
        const i128 x = I128(hi, lo); if (x < s) s = x; }
      __shared__ i128 bs0_32[8]; __shared__ unsigned long long bn0_32[8];
      if (lane == 0) { bs0_32[threadIdx.x >> 5] = s; bn0_32[threadIdx.x >> 5] = nn0_32; }
      __syncthreads();
      if (threadIdx.x == 0) { unsigned long long any = 0;
        for (int w = 0; w < 8; w++) if (bn0_32[w]) { if (!any || bs0_32[w] < s) s = bs0_32[w]; any = 1; }
        if (any) rg_atomic_minmax128(&R[70], s, false); } }
    const uint64_t nn0_33 = rg_warp_total64(q0_33);
    if (lane == 0 && nn0_33) atomicAdd((unsigned long long *)&R[77], (unsigned long long)nn0_33);
    { i128 s = p0_33; for (int o = 16; o > 0; o >>= 1) {
        const uint64_t lo = __shfl_down_sync(0xffffffffu, (unsigned long long)(uint64_t)s, o);
        const uint64_t hi = __shfl_down_sync(0xffffffffu, (unsigned long long)(uint64_t)((u128)s >> 64), o);
        const i128 x = I128(hi, lo); if (x > s) s = x; }
      __shared__ i128 bs0_33[8]; __shared__ unsigned long long bn0_33[8];
      if (lane == 0) { bs0_33[threadIdx.x >> 5] = s; bn0_33[threadIdx.x >> 5] = nn0_33; }
      __syncthreads();
      if (threadIdx.x == 0) { unsigned long long any = 0;
        for (int w = 0; w < 8; w++) if (bn0_33[w]) { if (!any || bs0_33[w] > s) s = bs0_33[w]; any = 1; }
        if (any) rg_atomic_minmax128(&R[74], s, true); } }
    const uint64_t nn0_34 = rg_warp_total64(q0_34);
    if (lane == 0 && nn0_34) atomicAdd((unsigned long long *)&R[81], (unsigned long long)nn0_34);
    rg_flush_sum128(&R[78], (i128)p0_34);
    const uint64_t nn0_35 = rg_warp_total64(q0_35);
    if (lane == 0 && nn0_35) atomicAdd((unsigned long long *)&R[82], (unsigned long long)nn0_35);
  }
}
