// Interned byte strings: process-lifetime storage for the few variable-length values that
// metadata holds (the fill value of a string or variable_length_bytes array), so that a
// VariableLengthValue element pointing at them is valid everywhere without an owner.
#pragma once

#include <string_view>

#include "cuzarr/core/data_type.hpp"

namespace cuzarr {

/// A value whose bytes equal `bytes` and live until the process ends (equal contents share one
/// copy). The empty string gives {nullptr, 0}. Thread-safe.
VariableLengthValue intern_bytes(std::string_view bytes);

}  // namespace cuzarr
