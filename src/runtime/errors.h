// cudaGetErrorName / cudaGetErrorString tables.
#pragma once

#include <driver_types.h>

namespace simtlab::runtime {

const char* error_name(cudaError_t e);
const char* error_string(cudaError_t e);

}  // namespace simtlab::runtime
