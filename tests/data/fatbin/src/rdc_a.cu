extern __device__ float helper(float x);
__device__ int counter;
__global__ void kern_a(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { p[i] = helper(p[i]); atomicAdd(&counter, 1); }
}
void launch_b(float* p, int n);
int main() {
  float* p; cudaMalloc(&p, 4096);
  kern_a<<<4, 256>>>(p, 1024);
  launch_b(p, 1024);
  cudaDeviceSynchronize();
  return 0;
}
