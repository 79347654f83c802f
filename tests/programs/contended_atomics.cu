// contended_atomics: every thread of the grid atomically adds to ONE global counter (a value
// that differs per thread, so the updates cannot be merged into one per warp), to a counter of
// its block, and with atomicInc to a second global counter whose old values it records (each
// value 0..n-1 must come back exactly once). All lanes of a warp name the same address: the
// L2 atomic unit serialises them. Final values are independent of the order of the updates.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__device__ __host__ unsigned valueOf(unsigned i) { return (i * 2654435761u) >> 27; }  // 0..31

__global__ void contended(unsigned* total, unsigned* perBlock, unsigned* ticket,
                          unsigned* tickets, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(total, valueOf(i));
  atomicAdd(&perBlock[blockIdx.x], valueOf(i) + 1u);
  tickets[i] = atomicInc(ticket, 0xffffffffu);
}

int main() {
  const unsigned threads = 256, blocks = 30, n = threads * blocks - 17;  // a partial last block
  unsigned *total, *perBlock, *ticket, *tickets;
  CK(cudaMalloc(&total, sizeof(unsigned)));
  CK(cudaMalloc(&ticket, sizeof(unsigned)));
  CK(cudaMalloc(&perBlock, blocks * sizeof(unsigned)));
  CK(cudaMalloc(&tickets, n * sizeof(unsigned)));
  CK(cudaMemset(total, 0, sizeof(unsigned)));
  CK(cudaMemset(ticket, 0, sizeof(unsigned)));
  CK(cudaMemset(perBlock, 0, blocks * sizeof(unsigned)));
  contended<<<blocks, threads>>>(total, perBlock, ticket, tickets, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  unsigned gotTotal = 0, gotTicket = 0;
  std::vector<unsigned> gotBlock(blocks), gotTickets(n);
  CK(cudaMemcpy(&gotTotal, total, sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&gotTicket, ticket, sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(gotBlock.data(), perBlock, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(gotTickets.data(), tickets, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned wantTotal = 0;
  std::vector<unsigned> wantBlock(blocks, 0);
  for (unsigned i = 0; i < n; ++i) {
    wantTotal += valueOf(i);
    wantBlock[i / threads] += valueOf(i) + 1u;
  }
  int errors = 0;
  if (gotTotal != wantTotal) {
    printf("total: got %u, want %u\n", gotTotal, wantTotal);
    ++errors;
  }
  if (gotTicket != n) {
    printf("ticket: got %u, want %u\n", gotTicket, n);
    ++errors;
  }
  for (unsigned b = 0; b < blocks; ++b)
    if (gotBlock[b] != wantBlock[b] && errors++ < 10)
      printf("block %u: got %u, want %u\n", b, gotBlock[b], wantBlock[b]);
  std::vector<char> seen(n, 0);
  for (unsigned i = 0; i < n; ++i) {
    if (gotTickets[i] >= n || seen[gotTickets[i]]) {
      if (errors++ < 10) printf("thread %u: ticket %u repeated or out of range\n", i, gotTickets[i]);
      continue;
    }
    seen[gotTickets[i]] = 1;
  }
  if (errors) {
    printf("FAILED: %d errors\n", errors);
    return 1;
  }
  printf("contended_atomics: %u threads, total %u, %u blocks\n", n, gotTotal, blocks);
  printf("PASSED\n");
  return 0;
}
