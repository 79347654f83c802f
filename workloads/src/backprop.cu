// backprop: one training step of a 3-layer perceptron (n inputs, 16 hidden units, 1 output)
// by error back-propagation, split between GPU and CPU as the Rodinia application does:
//  1. bpnn_layerforward_CUDA (GPU): each 16x16 block takes 16 input units and the 16x16
//     weights from them to the 16 hidden units, multiplies each weight by its input, and sums
//     the 16 products per hidden unit by a tree reduction in shared memory; it writes one
//     partial sum per (block, hidden unit).
//  2. CPU: adds the partial sums and the bias, squashes (sigmoid) the hidden layer, runs the
//     output layer, and computes the output and hidden error terms (deltas).
//  3. bpnn_adjust_weights_cuda (GPU): one thread per input->hidden weight applies the
//     momentum update  dw = ETA * delta[hidden] * input + MOMENTUM * old_dw;  w += dw,
//     block row 0 also updates the bias weights.
// Analog of: Rodinia backprop, kernels bpnn_layerforward_CUDA (thesis Table 2.4, Ch. 2 Set-3,
// "limited by threads"; Ch. 3 Set-1 and Table 3.7) and bpnn_adjust_weights_cuda (thesis
// Table 2.1, Ch. 2 Set-1; Table 4.3 #1, label BP).
// Profile: both kernels 16x16 = 256 threads (thesis Table 2.1 for adjust_weights; Rodinia's
// published block of HEIGHT x WIDTH = 16 x 16 for layerforward). layerforward shares
// input_node[16] + weight_matrix[16][16] floats = 1088 B as in Rodinia; adjust_weights uses no
// shared memory and 24 registers (thesis Table 2.1; 5 blocks/SM, Table 2.6, i.e. 21..24
// registers on fermi-c2050). As in the original, ETA and MOMENTUM are double constants (0.3),
// so the weight update is evaluated in double and rounded to float.
// Usage: backprop [n_in]   (input units, a multiple of 16; default 8192 -> 512 blocks per
//        kernel; scaled run 131072 -> 8192 blocks)
// Check: hidden partial sums exact (the CPU repeats the products and the same reduction tree
//        in float); weights and old deltas within 1e-6 relative + 1e-9 absolute (the device
//        may contract the double update into FMA).
#include <cmath>
#include <vector>

#include "wl.h"

#define WIDTH 16
#define HEIGHT 16
#define ETA 0.3
#define MOMENTUM 0.3

// input_cuda: n_in+1 input units (unit 0 is the bias). input_hidden_cuda: (n_in+1) x (hid+1)
// weights, row-major by input unit, column 0 unused (hidden unit j is column j).
__global__ void bpnn_layerforward_CUDA(const float* input_cuda, float* output_hidden_cuda,
                                       const float* input_hidden_cuda, float* hidden_partial_sum,
                                       int in, int hid) {
  const int by = blockIdx.y;
  const int tx = threadIdx.x, ty = threadIdx.y;
  // Weight from input unit HEIGHT*by+ty+1 to hidden unit tx+1.
  const int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  const int index_in = HEIGHT * by + ty + 1;

  __shared__ float input_node[HEIGHT];
  __shared__ float weight_matrix[HEIGHT][WIDTH];

  if (tx == 0) input_node[ty] = input_cuda[index_in];
  __syncthreads();
  weight_matrix[ty][tx] = input_hidden_cuda[index];
  __syncthreads();
  weight_matrix[ty][tx] = weight_matrix[ty][tx] * input_node[ty];
  __syncthreads();
  // Tree reduction down the column: after level k rows that are multiples of 2^k hold sums.
  for (int level = 1; level <= 4; ++level) {
    const int stride = 1 << level;
    if (ty % stride == 0) weight_matrix[ty][tx] += weight_matrix[ty + stride / 2][tx];
    __syncthreads();
  }
  if (tx == 0) hidden_partial_sum[by * hid + ty] = weight_matrix[tx][ty];
  (void)output_hidden_cuda;  // kept for the original's signature; the CPU squashes
}

// delta: hid+1 hidden deltas (index 0 unused). ly: n_in+1 input units. w, oldw: (n_in+1) x
// (hid+1) weights and their previous changes.
__global__ void bpnn_adjust_weights_cuda(const float* delta, int hid, const float* ly, int in,
                                         float* w, float* oldw) {
  const int by = blockIdx.y;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  const int index_y = HEIGHT * by + ty + 1;
  const int index_x = tx + 1;

  const float dw = ETA * delta[index_x] * ly[index_y] + MOMENTUM * oldw[index];
  w[index] += dw;
  oldw[index] = dw;
  __syncthreads();
  // Bias weights (input unit 0), once.
  if (ty == 0 && by == 0) {
    const float db = ETA * delta[index_x] + MOMENTUM * oldw[index_x];
    w[index_x] += db;
    oldw[index_x] = db;
  }
}

static float squash(float x) { return 1.0f / (1.0f + std::exp(-x)); }

int main(int argc, char** argv) {
  const int in = int(wl::arg_int(argc, argv, 1, 8192, 16, 1 << 24));
  if (in % HEIGHT) {
    std::printf("FAILED: n_in must be a multiple of %d\n", HEIGHT);
    return 1;
  }
  const int hid = 16, out = 1;
  const int num_blocks = in / HEIGHT;
  const size_t nw = size_t(in + 1) * (hid + 1);

  // Inputs in [0,1), weights in [-0.5,0.5), previous changes small; all 24-bit values.
  std::vector<float> input(in + 1), w_ih(nw), oldw_ih(nw), w_ho((hid + 1) * (out + 1));
  wl::Rng r1(21), r2(22), r3(23), r4(24);
  input[0] = 1.0f;  // bias unit
  for (int i = 1; i <= in; ++i) input[i] = r1.unit();
  for (size_t i = 0; i < nw; ++i) w_ih[i] = r2.unit() - 0.5f;
  for (size_t i = 0; i < nw; ++i) oldw_ih[i] = (r3.unit() - 0.5f) * 0.01f;
  for (auto& v : w_ho) v = r4.unit() - 0.5f;

  float *d_input, *d_w, *d_oldw, *d_partial, *d_delta, *d_hidden;
  WL_CK(cudaMalloc(&d_input, (in + 1) * sizeof(float)));
  WL_CK(cudaMalloc(&d_w, nw * sizeof(float)));
  WL_CK(cudaMalloc(&d_oldw, nw * sizeof(float)));
  WL_CK(cudaMalloc(&d_partial, size_t(num_blocks) * hid * sizeof(float)));
  WL_CK(cudaMalloc(&d_delta, (hid + 1) * sizeof(float)));
  WL_CK(cudaMalloc(&d_hidden, (hid + 1) * sizeof(float)));
  WL_CK(cudaMemcpy(d_input, input.data(), (in + 1) * sizeof(float), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(d_w, w_ih.data(), nw * sizeof(float), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(d_oldw, oldw_ih.data(), nw * sizeof(float), cudaMemcpyHostToDevice));

  const dim3 grid(1, num_blocks), threads(WIDTH, HEIGHT);
  bpnn_layerforward_CUDA<<<grid, threads>>>(d_input, d_hidden, d_w, d_partial, in, hid);
  WL_CK_LAUNCH();
  std::vector<float> partial(size_t(num_blocks) * hid);
  WL_CK(cudaMemcpy(partial.data(), d_partial, partial.size() * sizeof(float),
                   cudaMemcpyDeviceToHost));

  // Reference partial sums: same products, same pairwise tree over the 16 rows.
  std::vector<float> ref_partial(partial.size());
  for (int b = 0; b < num_blocks; ++b)
    for (int j = 0; j < hid; ++j) {
      float col[HEIGHT];
      for (int r = 0; r < HEIGHT; ++r) {
        const int unit = HEIGHT * b + r + 1;
        col[r] = w_ih[size_t(unit) * (hid + 1) + j + 1] * input[unit];
      }
      for (int stride = 2; stride <= HEIGHT; stride *= 2)
        for (int r = 0; r < HEIGHT; r += stride) col[r] += col[r + stride / 2];
      ref_partial[size_t(b) * hid + j] = col[0];
    }
  bool ok = wl::check_equal("hidden_partial_sum", partial.data(), ref_partial.data(),
                            partial.size());

  // CPU part of the step (from the reference partial sums): hidden and output layers, deltas.
  std::vector<float> hidden(hid + 1), delta_h(hid + 1, 0.0f);
  hidden[0] = 1.0f;
  for (int j = 1; j <= hid; ++j) {
    float sum = w_ih[j];  // bias weight (input unit 0)
    for (int b = 0; b < num_blocks; ++b) sum += ref_partial[size_t(b) * hid + j - 1];
    hidden[j] = squash(sum);
  }
  float o = w_ho[0 * (out + 1) + 1];
  for (int j = 1; j <= hid; ++j) o += w_ho[size_t(j) * (out + 1) + 1] * hidden[j];
  o = squash(o);
  const float target = 0.1f;
  const float delta_o = o * (1.0f - o) * (target - o);
  for (int j = 1; j <= hid; ++j)
    delta_h[j] = hidden[j] * (1.0f - hidden[j]) * delta_o * w_ho[size_t(j) * (out + 1) + 1];

  WL_CK(cudaMemcpy(d_delta, delta_h.data(), (hid + 1) * sizeof(float), cudaMemcpyHostToDevice));
  bpnn_adjust_weights_cuda<<<grid, threads>>>(d_delta, hid, d_input, in, d_w, d_oldw);
  WL_CK_LAUNCH();
  std::vector<float> w_got(nw), oldw_got(nw);
  WL_CK(cudaMemcpy(w_got.data(), d_w, nw * sizeof(float), cudaMemcpyDeviceToHost));
  WL_CK(cudaMemcpy(oldw_got.data(), d_oldw, nw * sizeof(float), cudaMemcpyDeviceToHost));

  // Reference weight update (double evaluation as on the device).
  std::vector<float> w_ref = w_ih, oldw_ref = oldw_ih;
  for (int unit = 1; unit <= in; ++unit)
    for (int j = 1; j <= hid; ++j) {
      const size_t k = size_t(unit) * (hid + 1) + j;
      const float dw = float(ETA * delta_h[j] * input[unit] + MOMENTUM * oldw_ih[k]);
      w_ref[k] += dw;
      oldw_ref[k] = dw;
    }
  for (int j = 1; j <= hid; ++j) {
    const float db = float(ETA * delta_h[j] + MOMENTUM * oldw_ih[j]);
    w_ref[j] += db;
    oldw_ref[j] = db;
  }
  std::printf("backprop n_in=%d hidden=%d blocks=%d threads=%dx%d\n", in, hid, num_blocks, WIDTH,
              HEIGHT);
  ok = ok && wl::check_close("w", w_got.data(), w_ref.data(), nw, 1e-6, 1e-9);
  ok = ok && wl::check_close("oldw", oldw_got.data(), oldw_ref.data(), nw, 1e-6, 1e-9);
  WL_CK(cudaFree(d_input));
  WL_CK(cudaFree(d_w));
  WL_CK(cudaFree(d_oldw));
  WL_CK(cudaFree(d_partial));
  WL_CK(cudaFree(d_delta));
  WL_CK(cudaFree(d_hidden));
  return wl::finish(ok);
}
