// Parameters of the uniform/affine/variant value classifier (classify.*): Collange, Defour,
// Zhang, "Dynamic detection of uniform and affine vectors in GPGPU computations", Euro-Par
// 2010; GPGPU architecture book 3.5 (Table 3.1).
#pragma once

#include "config/describer.h"

namespace simtlab::ext {

struct ClassifyParams {
  bool enable = false;

  void describe(config::Describer& d) {
    d.param("enable", enable, "",
            "Tag every register result uniform / affine / variant by tag propagation and count "
            "the warp instructions and register writes a scalar or affine unit could take "
            "(statistics only: timing and results are unchanged)",
            "Collange et al. Euro-Par 2010; GPGPU book Table 3.1 (off by default: a statistic, "
            "not part of the baseline)");
  }
};

}  // namespace simtlab::ext
