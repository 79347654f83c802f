// Kernel launch latency: back-to-back launches of an empty kernel (<<<1, 32>>>) in one stream,
// timed with cudaEvents around kLaunches launches after one untimed launch; time per launch.
// In the simulator this is gpu.kernel_launch_latency plus the kernel's own few cycles.
//   ubench launch.per_kernel <microseconds> us
//   ubench launch.per_kernel_clk <SM clocks> cycles
#include "ub.h"

constexpr int kLaunches = 20;

__global__ void k_empty() {}

int main() {
  cudaEvent_t a, b;
  UB_CHECK(cudaEventCreate(&a));
  UB_CHECK(cudaEventCreate(&b));
  k_empty<<<1, 32>>>();
  UB_CHECK(cudaGetLastError());
  UB_CHECK(cudaEventRecord(a));
  for (int i = 0; i < kLaunches; ++i) k_empty<<<1, 32>>>();
  UB_CHECK(cudaEventRecord(b));
  UB_CHECK(cudaEventSynchronize(b));
  float ms = 0;
  UB_CHECK(cudaEventElapsedTime(&ms, a, b));
  std::printf("# ub_launch: %d empty launches back to back\n", kLaunches);
  ub_print("launch.per_kernel", double(ms) * 1000.0 / kLaunches, "us");
  ub_print("launch.per_kernel_clk", double(ms) * ub_sm_khz() / kLaunches, "cycles");
  return 0;
}
