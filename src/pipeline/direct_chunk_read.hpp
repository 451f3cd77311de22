// One chunk read from the store and decoded straight into its place in a host output that it
// fills whole, by the task that reads it, with no batch of fetched chunks and no chunk-sized
// decoded buffer: a raw chunk ([bytes], no byte swap) is read into the output's rows themselves;
// a chunk of [bytes (no byte swap), one compressor] is read into a reused scratch buffer and
// decoded piece by piece into its place (BytesToBytesCodec::decode_to_sink; decode_into when the
// place is contiguous). Before "bytes" the chain may have a numcodecs.delta of dtype == astype: its
// running sum is then taken in place (NumcodecsDeltaCodec::decode_in_place).
#pragma once

#include <string>

#include "cuzarr/codec/codec_chain.hpp"
#include "cuzarr/memory/buffer.hpp"
#include "cuzarr/memory/ndbuffer.hpp"
#include "cuzarr/store/store.hpp"
#include "pipeline/scratch_pool.hpp"

namespace cuzarr {

/// True when read_chunk_into_place() can read chunks of `chain`.
bool reads_chunks_into_place(const CodecChain& chain);

enum class DirectChunkRead {
  done,      ///< the chunk is in place
  absent,    ///< no such key: the chunk holds the fill value
  declined,  ///< nothing written: read it the usual way (fetch, decode, copy)
};

/// Reads the chunk at `key`, encoded by `chain` (reads_chunks_into_place), into `place`, a host
/// view of the chunk's shape and data type. Throws the decoder's error (CorruptDataError, ...)
/// prefixed with `chunk "<key>"`, having written only inside `place`; IoError from the store.
DirectChunkRead read_chunk_into_place(const Store& store, const std::string& key,
                                      const CodecChain& chain, const NDBuffer& place,
                                      ScratchPool<Buffer>& scratch);

}  // namespace cuzarr
