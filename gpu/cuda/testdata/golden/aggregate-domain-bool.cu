
#define W 28
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
  }
}

extern "C" __global__ void __launch_bounds__(128, 4) rg_agg(const Args A) {
  const long long n = (long long)A.a[0];
 
  uint64_t *T = (uint64_t *)A.a[35];
  __shared__ uint32_t SC[4992];
  __shared__ unsigned long long SP[3456];
  for (int g = 0; g < 3; g++) {
    SC[((g) * 13 + 0) * 128 + threadIdx.x] = 0;
    SC[((g) * 13 + 1) * 128 + threadIdx.x] = 0;
    SC[((g) * 13 + 2) * 128 + threadIdx.x] = 0;
    SC[((g) * 13 + 3) * 128 + threadIdx.x] = 0;
    SC[((g) * 13 + 4) * 128 + threadIdx.x] = 0;
    SC[((g) * 13 + 5) * 128 + threadIdx.x] = 0;
    SC[((g) * 13 + 6) * 128 + threadIdx.x] = 0;
    SC[((g) * 13 + 7) * 128 + threadIdx.x] = 0;
    SC[((g) * 13 + 8) * 128 + threadIdx.x] = 0;
    SC[((g) * 13 + 9) * 128 + threadIdx.x] = 0;
    SC[((g) * 13 + 10) * 128 + threadIdx.x] = 0;
    SC[((g) * 13 + 11) * 128 + threadIdx.x] = 0;
    SC[((g) * 13 + 12) * 128 + threadIdx.x] = 0;
    reinterpret_cast<long long &>(SP[((g) * 9 + 0) * 128 + threadIdx.x]) = 9223372036854775807LL;
    reinterpret_cast<long long &>(SP[((g) * 9 + 1) * 128 + threadIdx.x]) = (-9223372036854775807LL - 1);
    reinterpret_cast<long long &>(SP[((g) * 9 + 2) * 128 + threadIdx.x]) = 0;
    reinterpret_cast<long long &>(SP[((g) * 9 + 3) * 128 + threadIdx.x]) = 9223372036854775807LL;
    reinterpret_cast<long long &>(SP[((g) * 9 + 4) * 128 + threadIdx.x]) = (-9223372036854775807LL - 1);
    reinterpret_cast<long long &>(SP[((g) * 9 + 5) * 128 + threadIdx.x]) = 0;
    reinterpret_cast<long long &>(SP[((g) * 9 + 6) * 128 + threadIdx.x]) = 9223372036854775807LL;
    reinterpret_cast<long long &>(SP[((g) * 9 + 7) * 128 + threadIdx.x]) = (-9223372036854775807LL - 1);
    reinterpret_cast<long long &>(SP[((g) * 9 + 8) * 128 + threadIdx.x]) = 0;
  }
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const bool pass = true;
    if (pass) {
      const int c0 = (int)((const uint8_t *)A.a[2])[i];
      const bool cn0 = A.a[3] != 0 && ((const uint8_t *)A.a[3])[i] == 0;
      (void)c0; (void)cn0;
      const long long c1 = (long long)((const int8_t *)A.a[5])[i];
      const bool cn1 = A.a[6] != 0 && ((const uint8_t *)A.a[6])[i] == 0;
      (void)c1; (void)cn1;
      const long long c2 = (long long)((const int16_t *)A.a[8])[i];
      const bool cn2 = A.a[9] != 0 && ((const uint8_t *)A.a[9])[i] == 0;
      (void)c2; (void)cn2;
      const long long c3 = (long long)((const int32_t *)A.a[11])[i];
      const bool cn3 = A.a[12] != 0 && ((const uint8_t *)A.a[12])[i] == 0;
      (void)c3; (void)cn3;
      const int gid = 0 + (cn0 ? 2 : (int)c0) * 1;
      {
        uint32_t &cnt = SC[((gid) * 13 + 0) * 128 + threadIdx.x];
        cnt++;
        uint32_t &Q0 = SC[((gid) * 13 + 1) * 128 + threadIdx.x];
        long long &P0 = reinterpret_cast<long long &>(SP[((gid) * 9 + 0) * 128 + threadIdx.x]);
        if (!cn1) {
          Q0++;
          if ((long long)c1 < P0) P0 = (long long)c1;
        }
        uint32_t &Q1 = SC[((gid) * 13 + 2) * 128 + threadIdx.x];
        long long &P1 = reinterpret_cast<long long &>(SP[((gid) * 9 + 1) * 128 + threadIdx.x]);
        if (!cn1) {
          Q1++;
          if ((long long)c1 > P1) P1 = (long long)c1;
        }
        uint32_t &Q2 = SC[((gid) * 13 + 3) * 128 + threadIdx.x];
        long long &P2 = reinterpret_cast<long long &>(SP[((gid) * 9 + 2) * 128 + threadIdx.x]);
        if (!cn1) {
          Q2++;
          const long long xl = (long long)c1; {
            const long long s = (long long)((unsigned long long)P2 + (unsigned long long)xl);
            if (((P2 ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(&T[(gid) * W + 5], (i128)P2); P2 = xl; } else P2 = s;
          }
        }
        uint32_t &Q3 = SC[((gid) * 13 + 4) * 128 + threadIdx.x];
        if (!cn1) {
          Q3++;
        }
        uint32_t &Q4 = SC[((gid) * 13 + 5) * 128 + threadIdx.x];
        long long &P4 = reinterpret_cast<long long &>(SP[((gid) * 9 + 3) * 128 + threadIdx.x]);
        if (!cn2) {
          Q4++;
          if ((long long)c2 < P4) P4 = (long long)c2;
        }
        uint32_t &Q5 = SC[((gid) * 13 + 6) * 128 + threadIdx.x];
        long long &P5 = reinterpret_cast<long long &>(SP[((gid) * 9 + 4) * 128 + threadIdx.x]);
        if (!cn2) {
          Q5++;
          if ((long long)c2 > P5) P5 = (long long)c2;
        }
        uint32_t &Q6 = SC[((gid) * 13 + 7) * 128 + threadIdx.x];
        long long &P6 = reinterpret_cast<long long &>(SP[((gid) * 9 + 5) * 128 + threadIdx.x]);
        if (!cn2) {
          Q6++;
          const long long xl = (long long)c2; {
            const long long s = (long long)((unsigned long long)P6 + (unsigned long long)xl);
            if (((P6 ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(&T[(gid) * W + 14], (i128)P6); P6 = xl; } else P6 = s;
          }
        }
        uint32_t &Q7 = SC[((gid) * 13 + 8) * 128 + threadIdx.x];
        if (!cn2) {
          Q7++;
        }
        uint32_t &Q8 = SC[((gid) * 13 + 9) * 128 + threadIdx.x];
        long long &P8 = reinterpret_cast<long long &>(SP[((gid) * 9 + 6) * 128 + threadIdx.x]);
        if (!cn3) {
          Q8++;
          if ((long long)c3 < P8) P8 = (long long)c3;
        }
        uint32_t &Q9 = SC[((gid) * 13 + 10) * 128 + threadIdx.x];
        long long &P9 = reinterpret_cast<long long &>(SP[((gid) * 9 + 7) * 128 + threadIdx.x]);
        if (!cn3) {
          Q9++;
          if ((long long)c3 > P9) P9 = (long long)c3;
        }
        uint32_t &Q10 = SC[((gid) * 13 + 11) * 128 + threadIdx.x];
        long long &P10 = reinterpret_cast<long long &>(SP[((gid) * 9 + 8) * 128 + threadIdx.x]);
        if (!cn3) {
          Q10++;
          const long long xl = (long long)c3; {
            const long long s = (long long)((unsigned long long)P10 + (unsigned long long)xl);
            if (((P10 ^ s) & (xl ^ s)) < 0) { rg_atomic_add192_rare(&T[(gid) * W + 23], (i128)P10); P10 = xl; } else P10 = s;
          }
        }
        uint32_t &Q11 = SC[((gid) * 13 + 12) * 128 + threadIdx.x];
        if (!cn3) {
          Q11++;
        }
      }
    }
  }
  const int lane = threadIdx.x & 31;
  {
  const uint32_t cnt0 = SC[((0) * 13 + 0) * 128 + threadIdx.x];
  const uint32_t q0_0 = SC[((0) * 13 + 1) * 128 + threadIdx.x];
  const long long p0_0 = reinterpret_cast<const long long &>(SP[((0) * 9 + 0) * 128 + threadIdx.x]);
  const uint32_t q0_1 = SC[((0) * 13 + 2) * 128 + threadIdx.x];
  const long long p0_1 = reinterpret_cast<const long long &>(SP[((0) * 9 + 1) * 128 + threadIdx.x]);
  const uint32_t q0_2 = SC[((0) * 13 + 3) * 128 + threadIdx.x];
  const long long p0_2 = reinterpret_cast<const long long &>(SP[((0) * 9 + 2) * 128 + threadIdx.x]);
  const uint32_t q0_3 = SC[((0) * 13 + 4) * 128 + threadIdx.x];
  const uint32_t q0_4 = SC[((0) * 13 + 5) * 128 + threadIdx.x];
  const long long p0_4 = reinterpret_cast<const long long &>(SP[((0) * 9 + 3) * 128 + threadIdx.x]);
  const uint32_t q0_5 = SC[((0) * 13 + 6) * 128 + threadIdx.x];
  const long long p0_5 = reinterpret_cast<const long long &>(SP[((0) * 9 + 4) * 128 + threadIdx.x]);
  const uint32_t q0_6 = SC[((0) * 13 + 7) * 128 + threadIdx.x];
  const long long p0_6 = reinterpret_cast<const long long &>(SP[((0) * 9 + 5) * 128 + threadIdx.x]);
  const uint32_t q0_7 = SC[((0) * 13 + 8) * 128 + threadIdx.x];
  const uint32_t q0_8 = SC[((0) * 13 + 9) * 128 + threadIdx.x];
  const long long p0_8 = reinterpret_cast<const long long &>(SP[((0) * 9 + 6) * 128 + threadIdx.x]);
  const uint32_t q0_9 = SC[((0) * 13 + 10) * 128 + threadIdx.x];
  const long long p0_9 = reinterpret_cast<const long long &>(SP[((0) * 9 + 7) * 128 + threadIdx.x]);
  const uint32_t q0_10 = SC[((0) * 13 + 11) * 128 + threadIdx.x];
  const long long p0_10 = reinterpret_cast<const long long &>(SP[((0) * 9 + 8) * 128 + threadIdx.x]);
  const uint32_t q0_11 = SC[((0) * 13 + 12) * 128 + threadIdx.x];
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
  }
  }
  {
  const uint32_t cnt1 = SC[((1) * 13 + 0) * 128 + threadIdx.x];
  const uint32_t q1_0 = SC[((1) * 13 + 1) * 128 + threadIdx.x];
  const long long p1_0 = reinterpret_cast<const long long &>(SP[((1) * 9 + 0) * 128 + threadIdx.x]);
  const uint32_t q1_1 = SC[((1) * 13 + 2) * 128 + threadIdx.x];
  const long long p1_1 = reinterpret_cast<const long long &>(SP[((1) * 9 + 1) * 128 + threadIdx.x]);
  const uint32_t q1_2 = SC[((1) * 13 + 3) * 128 + threadIdx.x];
  const long long p1_2 = reinterpret_cast<const long long &>(SP[((1) * 9 + 2) * 128 + threadIdx.x]);
  const uint32_t q1_3 = SC[((1) * 13 + 4) * 128 + threadIdx.x];
  const uint32_t q1_4 = SC[((1) * 13 + 5) * 128 + threadIdx.x];
  const long long p1_4 = reinterpret_cast<const long long &>(SP[((1) * 9 + 3) * 128 + threadIdx.x]);
  const uint32_t q1_5 = SC[((1) * 13 + 6) * 128 + threadIdx.x];
  const long long p1_5 = reinterpret_cast<const long long &>(SP[((1) * 9 + 4) * 128 + threadIdx.x]);
  const uint32_t q1_6 = SC[((1) * 13 + 7) * 128 + threadIdx.x];
  const long long p1_6 = reinterpret_cast<const long long &>(SP[((1) * 9 + 5) * 128 + threadIdx.x]);
  const uint32_t q1_7 = SC[((1) * 13 + 8) * 128 + threadIdx.x];
  const uint32_t q1_8 = SC[((1) * 13 + 9) * 128 + threadIdx.x];
  const long long p1_8 = reinterpret_cast<const long long &>(SP[((1) * 9 + 6) * 128 + threadIdx.x]);
  const uint32_t q1_9 = SC[((1) * 13 + 10) * 128 + threadIdx.x];
  const long long p1_9 = reinterpret_cast<const long long &>(SP[((1) * 9 + 7) * 128 + threadIdx.x]);
  const uint32_t q1_10 = SC[((1) * 13 + 11) * 128 + threadIdx.x];
  const long long p1_10 = reinterpret_cast<const long long &>(SP[((1) * 9 + 8) * 128 + threadIdx.x]);
  const uint32_t q1_11 = SC[((1) * 13 + 12) * 128 + threadIdx.x];
  {
    uint64_t *R = T + 1 * W;
    const uint64_t c = rg_warp_total64(cnt1);
    if (lane == 0 && c) atomicAdd((unsigned long long *)&R[0], (unsigned long long)c);
    const uint64_t nn1_0 = rg_warp_total64(q1_0);
    if (lane == 0 && nn1_0) atomicAdd((unsigned long long *)&R[2], (unsigned long long)nn1_0);
    { long long s = p1_0; for (int o = 16; o > 0; o >>= 1) s = min(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn1_0) atomicMin((long long *)&R[1], s); }
    const uint64_t nn1_1 = rg_warp_total64(q1_1);
    if (lane == 0 && nn1_1) atomicAdd((unsigned long long *)&R[4], (unsigned long long)nn1_1);
    { long long s = p1_1; for (int o = 16; o > 0; o >>= 1) s = max(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn1_1) atomicMax((long long *)&R[3], s); }
    const uint64_t nn1_2 = rg_warp_total64(q1_2);
    if (lane == 0 && nn1_2) atomicAdd((unsigned long long *)&R[8], (unsigned long long)nn1_2);
    rg_flush_sum128(&R[5], (i128)p1_2);
    const uint64_t nn1_3 = rg_warp_total64(q1_3);
    if (lane == 0 && nn1_3) atomicAdd((unsigned long long *)&R[9], (unsigned long long)nn1_3);
    const uint64_t nn1_4 = rg_warp_total64(q1_4);
    if (lane == 0 && nn1_4) atomicAdd((unsigned long long *)&R[11], (unsigned long long)nn1_4);
    { long long s = p1_4; for (int o = 16; o > 0; o >>= 1) s = min(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn1_4) atomicMin((long long *)&R[10], s); }
    const uint64_t nn1_5 = rg_warp_total64(q1_5);
    if (lane == 0 && nn1_5) atomicAdd((unsigned long long *)&R[13], (unsigned long long)nn1_5);
    { long long s = p1_5; for (int o = 16; o > 0; o >>= 1) s = max(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn1_5) atomicMax((long long *)&R[12], s); }
    const uint64_t nn1_6 = rg_warp_total64(q1_6);
    if (lane == 0 && nn1_6) atomicAdd((unsigned long long *)&R[17], (unsigned long long)nn1_6);
    rg_flush_sum128(&R[14], (i128)p1_6);
    const uint64_t nn1_7 = rg_warp_total64(q1_7);
    if (lane == 0 && nn1_7) atomicAdd((unsigned long long *)&R[18], (unsigned long long)nn1_7);
    const uint64_t nn1_8 = rg_warp_total64(q1_8);
    if (lane == 0 && nn1_8) atomicAdd((unsigned long long *)&R[20], (unsigned long long)nn1_8);
    { long long s = p1_8; for (int o = 16; o > 0; o >>= 1) s = min(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn1_8) atomicMin((long long *)&R[19], s); }
    const uint64_t nn1_9 = rg_warp_total64(q1_9);
    if (lane == 0 && nn1_9) atomicAdd((unsigned long long *)&R[22], (unsigned long long)nn1_9);
    { long long s = p1_9; for (int o = 16; o > 0; o >>= 1) s = max(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn1_9) atomicMax((long long *)&R[21], s); }
    const uint64_t nn1_10 = rg_warp_total64(q1_10);
    if (lane == 0 && nn1_10) atomicAdd((unsigned long long *)&R[26], (unsigned long long)nn1_10);
    rg_flush_sum128(&R[23], (i128)p1_10);
    const uint64_t nn1_11 = rg_warp_total64(q1_11);
    if (lane == 0 && nn1_11) atomicAdd((unsigned long long *)&R[27], (unsigned long long)nn1_11);
  }
  }
  {
  const uint32_t cnt2 = SC[((2) * 13 + 0) * 128 + threadIdx.x];
  const uint32_t q2_0 = SC[((2) * 13 + 1) * 128 + threadIdx.x];
  const long long p2_0 = reinterpret_cast<const long long &>(SP[((2) * 9 + 0) * 128 + threadIdx.x]);
  const uint32_t q2_1 = SC[((2) * 13 + 2) * 128 + threadIdx.x];
  const long long p2_1 = reinterpret_cast<const long long &>(SP[((2) * 9 + 1) * 128 + threadIdx.x]);
  const uint32_t q2_2 = SC[((2) * 13 + 3) * 128 + threadIdx.x];
  const long long p2_2 = reinterpret_cast<const long long &>(SP[((2) * 9 + 2) * 128 + threadIdx.x]);
  const uint32_t q2_3 = SC[((2) * 13 + 4) * 128 + threadIdx.x];
  const uint32_t q2_4 = SC[((2) * 13 + 5) * 128 + threadIdx.x];
  const long long p2_4 = reinterpret_cast<const long long &>(SP[((2) * 9 + 3) * 128 + threadIdx.x]);
  const uint32_t q2_5 = SC[((2) * 13 + 6) * 128 + threadIdx.x];
  const long long p2_5 = reinterpret_cast<const long long &>(SP[((2) * 9 + 4) * 128 + threadIdx.x]);
  const uint32_t q2_6 = SC[((2) * 13 + 7) * 128 + threadIdx.x];
  const long long p2_6 = reinterpret_cast<const long long &>(SP[((2) * 9 + 5) * 128 + threadIdx.x]);
  const uint32_t q2_7 = SC[((2) * 13 + 8) * 128 + threadIdx.x];
  const uint32_t q2_8 = SC[((2) * 13 + 9) * 128 + threadIdx.x];
  const long long p2_8 = reinterpret_cast<const long long &>(SP[((2) * 9 + 6) * 128 + threadIdx.x]);
  const uint32_t q2_9 = SC[((2) * 13 + 10) * 128 + threadIdx.x];
  const long long p2_9 = reinterpret_cast<const long long &>(SP[((2) * 9 + 7) * 128 + threadIdx.x]);
  const uint32_t q2_10 = SC[((2) * 13 + 11) * 128 + threadIdx.x];
  const long long p2_10 = reinterpret_cast<const long long &>(SP[((2) * 9 + 8) * 128 + threadIdx.x]);
  const uint32_t q2_11 = SC[((2) * 13 + 12) * 128 + threadIdx.x];
  {
    uint64_t *R = T + 2 * W;
    const uint64_t c = rg_warp_total64(cnt2);
    if (lane == 0 && c) atomicAdd((unsigned long long *)&R[0], (unsigned long long)c);
    const uint64_t nn2_0 = rg_warp_total64(q2_0);
    if (lane == 0 && nn2_0) atomicAdd((unsigned long long *)&R[2], (unsigned long long)nn2_0);
    { long long s = p2_0; for (int o = 16; o > 0; o >>= 1) s = min(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn2_0) atomicMin((long long *)&R[1], s); }
    const uint64_t nn2_1 = rg_warp_total64(q2_1);
    if (lane == 0 && nn2_1) atomicAdd((unsigned long long *)&R[4], (unsigned long long)nn2_1);
    { long long s = p2_1; for (int o = 16; o > 0; o >>= 1) s = max(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn2_1) atomicMax((long long *)&R[3], s); }
    const uint64_t nn2_2 = rg_warp_total64(q2_2);
    if (lane == 0 && nn2_2) atomicAdd((unsigned long long *)&R[8], (unsigned long long)nn2_2);
    rg_flush_sum128(&R[5], (i128)p2_2);
    const uint64_t nn2_3 = rg_warp_total64(q2_3);
    if (lane == 0 && nn2_3) atomicAdd((unsigned long long *)&R[9], (unsigned long long)nn2_3);
    const uint64_t nn2_4 = rg_warp_total64(q2_4);
    if (lane == 0 && nn2_4) atomicAdd((unsigned long long *)&R[11], (unsigned long long)nn2_4);
    { long long s = p2_4; for (int o = 16; o > 0; o >>= 1) s = min(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn2_4) atomicMin((long long *)&R[10], s); }
    const uint64_t nn2_5 = rg_warp_total64(q2_5);
    if (lane == 0 && nn2_5) atomicAdd((unsigned long long *)&R[13], (unsigned long long)nn2_5);
    { long long s = p2_5; for (int o = 16; o > 0; o >>= 1) s = max(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn2_5) atomicMax((long long *)&R[12], s); }
    const uint64_t nn2_6 = rg_warp_total64(q2_6);
    if (lane == 0 && nn2_6) atomicAdd((unsigned long long *)&R[17], (unsigned long long)nn2_6);
    rg_flush_sum128(&R[14], (i128)p2_6);
    const uint64_t nn2_7 = rg_warp_total64(q2_7);
    if (lane == 0 && nn2_7) atomicAdd((unsigned long long *)&R[18], (unsigned long long)nn2_7);
    const uint64_t nn2_8 = rg_warp_total64(q2_8);
    if (lane == 0 && nn2_8) atomicAdd((unsigned long long *)&R[20], (unsigned long long)nn2_8);
    { long long s = p2_8; for (int o = 16; o > 0; o >>= 1) s = min(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn2_8) atomicMin((long long *)&R[19], s); }
    const uint64_t nn2_9 = rg_warp_total64(q2_9);
    if (lane == 0 && nn2_9) atomicAdd((unsigned long long *)&R[22], (unsigned long long)nn2_9);
    { long long s = p2_9; for (int o = 16; o > 0; o >>= 1) s = max(s, __shfl_down_sync(0xffffffffu, s, o));
      if (lane == 0 && nn2_9) atomicMax((long long *)&R[21], s); }
    const uint64_t nn2_10 = rg_warp_total64(q2_10);
    if (lane == 0 && nn2_10) atomicAdd((unsigned long long *)&R[26], (unsigned long long)nn2_10);
    rg_flush_sum128(&R[23], (i128)p2_10);
    const uint64_t nn2_11 = rg_warp_total64(q2_11);
    if (lane == 0 && nn2_11) atomicAdd((unsigned long long *)&R[27], (unsigned long long)nn2_11);
  }
  }
}
