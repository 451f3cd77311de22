// One batch of a read, between fetch and decode: the encoded chunks the store had, with where
// each goes, and the chunks that read as the fill value.
#pragma once

#include <string>
#include <vector>

#include "cuzarr/codec/codec_chain.hpp"
#include "cuzarr/memory/buffer.hpp"
#include "cuzarr/pipeline/chunk_plan.hpp"

namespace cuzarr {

struct ChunkReadBatch {
  /// Per present chunk: its encoded bytes, its plan entry, the chain that decodes it, and a label
  /// for error messages ("chunk \"a/c/0/1\"").
  std::vector<Buffer> encoded;
  std::vector<const PlannedChunk*> planned;
  std::vector<const CodecChain*> chains;
  std::vector<std::string> labels;
  /// Chunks absent from the store (or empty in their shard): they read as the fill value.
  std::vector<const PlannedChunk*> missing;
};

}  // namespace cuzarr
