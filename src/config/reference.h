// Human-readable parameter references generated from a Schema: the Markdown page
// (docs/config-reference.md) and the plain-text listing of `simtlab info`.
#pragma once

#include "config/config.h"
#include "config/schema.h"

#include <string>

namespace simtlab::config {

/// One "## `group.path`" section per group in declaration order (top-level parameters first,
/// under "## Top level"), each with the group description and a table
/// | Key | Type | Default | Unit | Rules | Description | Source |
/// of the parameters directly in that group. No page title; the caller adds one.
std::string reference_markdown(const Schema& schema);

/// Plain text grouped the same way: "[sm.l1d] L1 data cache" then per parameter
///   sm.l1d.size = 16384 bytes  (uint32; >= 1, power of 2)
///       Capacity of the cache. Source: D2MA paper Table 1
/// With `values`, shows the resolved value, and for non-default values the default and origin;
/// a placeholder value (ParamDecl::effective) shows the value it stands for and where that
/// comes from: "mem.dram.tRCD = 12 cycles  (int32; ...; -1: the value of timing set
/// gddr5_h5gq1h24afr)".
std::string reference_text(const Schema& schema, const Config* values = nullptr);

}  // namespace simtlab::config
