// Block-parallel Zstandard decoding (RFC 8878) of one chunk in passes, so that the blocks of a
// large frame are entropy-decoded at the same time:
//   1. plan: walks frames and block headers (serial per chunk), reads each compressed block's
//      literals and sequences section headers (independent per block), then links them in order
//      (serial per chunk, a few steps per block): the first failure in stream order, which input
//      bytes describe the Huffman tree and the three FSE tables each block uses (a "treeless" /
//      "repeat" block names an earlier block's description, which it reads again), and where
//      each block's literals and sequences go;
//   2. entropy (independent per block): decodes the literals into a literal area and the
//      sequences into a sequence array, with repeat offsets kept symbolic (a function of the
//      repeat offsets the block starts with);
//   3. scan (serial per chunk, one step per block): output offsets and starting repeat offsets
//      of every block, frame content sizes, capacity;
//   4. execute (literals per block; matches per stretch of blocks in order, a match that reaches
//      before its stretch chasing or waiting for the bytes, or per frame in order:
//      zstd_bp_in_order, zstd_bp_stretch_head): literal and match copies;
//   5. hash (four threads per frame with a checksum): XXH64 of the frame's content;
//   6. finish (serial per chunk): the first failure in stream order, content checksums.
// Everything is CUZARR_HOST_DEVICE, allocation-free and exception-free; state lives in a slot of
// caller memory (zstd_bp_slot_layout). Chunks that are small or exceed the slot's budgets
// (blocks, sequences, literals) are left to the serial decoder (plan.block_parallel = 0).
#pragma once

#include <cstdint>

#include "codec/cuda/match_chase.hpp"
#include "codec/cuda/zstd_frame_format.hpp"

namespace cuzarr::gpu {

/// By default, chunks whose output capacity is larger than one block decode block-parallel.
inline constexpr uint64_t kZstdBlockParallelMinCapacity = kZstdMaxBlockSize + 1;

/// Where a sequence code table comes from: mode 0 predefined, 1 RLE (symbol byte at `offset`),
/// 2 FSE description at `offset` (`available` bytes until the end of its block).
struct ZstdTableSource {
  uint64_t offset;
  uint32_t available;
  uint32_t mode;
};

/// A repeat offset as a function of the block's starting ones: `value` when source < 0, else
/// start[source] - value.
struct ZstdRepSlot {
  int64_t value;
  int32_t source;
};

/// One decoded sequence; match_length's top two bits say how to resolve `offset` (0: the
/// offset itself; k = 1..3: start[k - 1] - offset). match_at: where its match starts in the
/// block's output.
struct ZstdSeqRecord {
  uint32_t literal_length;
  uint32_t match_length;
  uint32_t offset;
  uint32_t match_at;
};

inline constexpr uint32_t kZstdSeqKindShift = 30;
inline constexpr uint32_t kZstdSeqLengthMask = (1u << kZstdSeqKindShift) - 1;

struct ZstdBlockRecord {
  // Plan.
  uint64_t in_offset;     ///< the block's content, after its 3-byte header
  uint32_t in_size;       ///< raw: its bytes; RLE: 1; compressed: Block_Size
  uint32_t block_max;     ///< Block_Maximum_Size of its frame
  uint32_t frame;         ///< index of its frame in the chunk
  uint32_t type;          ///< 0 raw, 1 RLE, 2 compressed
  uint32_t literal_type;  ///< 0 raw, 1 RLE, 2 Huffman, 3 treeless
  uint32_t literal_streams;
  uint32_t literal_size;     ///< regenerated literals
  uint64_t literal_offset;   ///< where they go in the literal area
  uint64_t literal_payload;  ///< input offset: raw literals, the RLE byte, the Huffman streams
  uint32_t literal_payload_size;
  uint32_t huffman_tree_available;
  uint64_t huffman_tree;     ///< input offset of the tree description in use
  uint64_t sequence_offset;  ///< where its sequences go in the sequence array
  uint32_t sequence_count;
  uint32_t sequence_tables;  ///< 0: the section is the single byte 0 (no tables, no bitstream)
  ZstdTableSource tables[3];
  uint64_t bitstream;
  uint32_t bitstream_size;
  uint32_t plan_step;             ///< the first step of its section headers that failed
  DeviceChunkStatus plan_status;  ///< and its status
  // Entropy.
  DeviceChunkStatus literal_status;  ///< of its literals
  DeviceChunkStatus status;          ///< of its sequences
  uint32_t decoded_size;             ///< raw / RLE: from the plan
  ZstdRepSlot reps[3];               ///< repeat offsets after the block
  // Scan.
  uint64_t output_offset;
  int64_t start_reps[3];
  // Execute.
  DeviceChunkStatus execute_status;
  uint32_t external_bytes;  ///< match bytes whose source lies before the block (set by 4a)
  uint32_t piece_first;     ///< its first piece in the chunk's list of pieces (set by the scan)
  uint32_t pieces_done;     ///< a bit for each of its pieces whose matches are final (4b)
  uint32_t done;            ///< every byte of it is final (4b)
};

struct ZstdFrameRecord {
  uint32_t first_block;
  uint32_t block_count;
  uint64_t content_size;
  uint64_t checksum_offset;  ///< input offset of Content_Checksum
  uint32_t has_content_size;
  uint32_t has_checksum;
  uint32_t complete;  ///< all blocks (and the checksum field) were read
  uint64_t output_offset;
  uint64_t output_size;  ///< set by the scan for the frames that pass it
  uint64_t hash;         ///< XXH64 of its content (the hash pass, frames with a checksum)
};

struct ZstdChunkPlan {
  DeviceChunkStatus header_status;  ///< what stopped the plan (ok: the input was read to its end)
  uint32_t block_parallel;          ///< 0: decode serially (small chunk, or past the budgets)
  uint32_t headers_past_budget;     ///< the header walk stopped at the block or frame budget
  uint32_t block_count;
  uint32_t frame_count;
  uint64_t literal_bytes;
  uint64_t sequence_count;
  // Scan.
  DeviceChunkStatus scan_status;
  uint32_t executed_blocks;  ///< blocks [0, executed_blocks) are executed
  uint32_t executed_pieces;  ///< their pieces (zstd_bp_pieces), in block order
  uint32_t piece_sequences;  ///< the pieces' length asked for (set before the scan; 0: default)
  uint32_t checked_frames;   ///< frames [0, checked_frames) passed their end checks
  uint64_t output_size;
};

/// Budgets of a chunk of `capacity` output bytes (past them: serial decoding).
CUZARR_HOST_DEVICE inline uint64_t zstd_bp_max_blocks(uint64_t capacity) {
  return capacity / 1024 + 64;
}
CUZARR_HOST_DEVICE inline uint64_t zstd_bp_max_sequences(uint64_t capacity) {
  return capacity / 4 + 64;
}

/// Output bytes per entry of a slot's position index.
inline constexpr uint64_t kZstdIndexBytes = 512;

/// Entry e of a slot's position index: where output position e * kZstdIndexBytes of the chunk
/// lies, its block and the last sequence of that block whose match starts at or before it (0 when
/// none does). The literals pass (4a) writes the entries of the blocks it executes; the matches
/// pass's chase starts its searches there. An entry is a hint: it is checked before use, so one
/// that no block wrote (leftover bytes) costs only the full searches.
struct ZstdIndexEntry {
  uint32_t block;
  uint32_t sequence;
};

/// Entries for output positions below `capacity`, and one past the last (zstd_bp_sequence_at).
CUZARR_HOST_DEVICE inline uint64_t zstd_bp_index_entries(uint64_t capacity) {
  return capacity / kZstdIndexBytes + 2;
}

/// Byte offsets of a slot's parts for chunks of at most `capacity` output bytes.
struct ZstdSlotLayout {
  uint64_t blocks_at, frames_at, sequences_at, literals_at, index_at, bytes;
};

CUZARR_HOST_DEVICE inline uint64_t zstd_bp_align(uint64_t n) { return (n + 255) / 256 * 256; }

CUZARR_HOST_DEVICE inline ZstdSlotLayout zstd_bp_slot_layout(uint64_t capacity) {
  ZstdSlotLayout l{};
  const uint64_t blocks = zstd_bp_max_blocks(capacity);
  l.blocks_at = zstd_bp_align(sizeof(ZstdChunkPlan));
  l.frames_at = l.blocks_at + zstd_bp_align(blocks * sizeof(ZstdBlockRecord));
  l.sequences_at = l.frames_at + zstd_bp_align(blocks * sizeof(ZstdFrameRecord));
  l.literals_at =
      l.sequences_at + zstd_bp_align(zstd_bp_max_sequences(capacity) * sizeof(ZstdSeqRecord));
  l.index_at = l.literals_at + zstd_bp_align(capacity + 16);
  l.bytes = l.index_at + zstd_bp_align(zstd_bp_index_entries(capacity) * sizeof(ZstdIndexEntry));
  return l;
}

struct ZstdSlot {
  ZstdChunkPlan* plan;
  ZstdBlockRecord* blocks;
  ZstdFrameRecord* frames;
  ZstdSeqRecord* sequences;
  unsigned char* literals;
  ZstdIndexEntry* index;
};

CUZARR_HOST_DEVICE inline ZstdSlot zstd_bp_slot(void* base, const ZstdSlotLayout& l) {
  auto* b = static_cast<unsigned char*>(base);
  return ZstdSlot{reinterpret_cast<ZstdChunkPlan*>(b),
                  reinterpret_cast<ZstdBlockRecord*>(b + l.blocks_at),
                  reinterpret_cast<ZstdFrameRecord*>(b + l.frames_at),
                  reinterpret_cast<ZstdSeqRecord*>(b + l.sequences_at),
                  b + l.literals_at,
                  reinterpret_cast<ZstdIndexEntry*>(b + l.index_at)};
}

// ---------------------------------------------------------------------------------------------
// 1. Plan.

/// Reads the literals section header of a compressed block (RFC 8878, 3.1.1.3.1.1) at
/// in[ip, block_end) into `rec`. A block with a tree description names it in huffman_tree /
/// huffman_tree_available; a treeless block is given its frame's latest tree by the link
/// (zstd_bp_plan_link). Advances ip past the section.
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_bp_plan_literals(const unsigned char* in,
                                                                  uint64_t& ip, uint64_t block_end,
                                                                  ZstdBlockRecord& rec) {
  const uint64_t size = block_end - ip;
  if (size < 1) return DeviceChunkStatus::corrupt_input;
  const unsigned b0 = in[ip];
  const unsigned type = b0 & 3u, size_format = (b0 >> 2) & 3u;
  rec.literal_type = type;
  if (type <= 1) {  // Size_Format 00/10 -> 1 byte, 01 -> 2 bytes, 11 -> 3 bytes
    uint64_t header = 1, regenerated = b0 >> 3;
    if (size_format == 1) {
      header = 2;
      if (size < 2) return DeviceChunkStatus::corrupt_input;
      regenerated = (b0 >> 4) + (uint64_t{in[ip + 1]} << 4);
    } else if (size_format == 3) {
      header = 3;
      if (size < 3) return DeviceChunkStatus::corrupt_input;
      regenerated = (b0 >> 4) + (uint64_t{in[ip + 1]} << 4) + (uint64_t{in[ip + 2]} << 12);
    }
    if (regenerated > rec.block_max) return DeviceChunkStatus::corrupt_input;
    rec.literal_size = static_cast<uint32_t>(regenerated);
    rec.literal_payload = ip + header;
    if (type == 0) {
      if (regenerated > size - header) return DeviceChunkStatus::corrupt_input;
      rec.literal_payload_size = static_cast<uint32_t>(regenerated);
      ip += header + regenerated;
    } else {
      if (size - header < 1) return DeviceChunkStatus::corrupt_input;
      rec.literal_payload_size = 1;
      ip += header + 1;
    }
    return DeviceChunkStatus::ok;
  }
  // Compressed / treeless: 00 -> 1 stream, 10-bit sizes, 3 bytes; 01 -> 4 streams, 10 bits;
  // 10 -> 4 streams, 14 bits, 4 bytes; 11 -> 4 streams, 18 bits, 5 bytes.
  const unsigned header = size_format <= 1 ? 3 : size_format == 2 ? 4 : 5;
  const unsigned field = size_format <= 1 ? 10 : size_format == 2 ? 14 : 18;
  if (size < header) return DeviceChunkStatus::corrupt_input;
  uint64_t h = 0;
  for (unsigned i = header; i-- > 0;) h = (h << 8) | in[ip + i];
  const uint64_t mask = (uint64_t{1} << field) - 1;
  const uint64_t regenerated = (h >> 4) & mask;
  const uint64_t compressed = (h >> (4 + field)) & mask;
  if (regenerated > rec.block_max) return DeviceChunkStatus::corrupt_input;
  if (compressed > size - header) return DeviceChunkStatus::corrupt_input;
  rec.literal_size = static_cast<uint32_t>(regenerated);
  rec.literal_streams = size_format == 0 ? 1 : 4;
  uint64_t payload = ip + header, payload_size = compressed;
  if (type == 2) {
    // The tree description's size follows from its first byte (RFC 8878, 4.2.1): < 128: that
    // many FSE-compressed bytes; else (byte - 127) 4-bit weights.
    if (compressed < 1) return DeviceChunkStatus::corrupt_input;
    const unsigned hb = in[payload];
    const uint64_t tree_size = hb < 128 ? 1 + uint64_t{hb} : 1 + (uint64_t{hb} - 127 + 1) / 2;
    if (tree_size > compressed) return DeviceChunkStatus::corrupt_input;
    rec.huffman_tree = payload;
    rec.huffman_tree_available = static_cast<uint32_t>(compressed);
    payload += tree_size;
    payload_size -= tree_size;
  }
  rec.literal_payload = payload;
  rec.literal_payload_size = static_cast<uint32_t>(payload_size);
  ip += header + compressed;
  return DeviceChunkStatus::ok;
}

/// Reads the sequences section header (RFC 8878, 3.1.1.3.2.1) at in[ip, block_end) into rec:
/// count, table sources, bitstream. A table in the repeat mode is left as {0, 0, 3} for the link
/// to name (it reads no bytes here). FSE descriptions are read here (for their size), built by
/// the entropy pass. On a failure `failed_table` is the table it stopped at (0..2; 3: the count).
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_bp_plan_sequences(const unsigned char* in,
                                                                   uint64_t ip, uint64_t block_end,
                                                                   ZstdBlockRecord& rec,
                                                                   uint32_t& failed_table) {
  const uint64_t size = block_end - ip;
  const unsigned char* p = in + ip;
  ZstdSequencesCount h;
  const DeviceChunkStatus counted = zstd_read_sequences_count(p, size, h);
  failed_table = 3;
  if (counted != DeviceChunkStatus::ok || h.count == 0) {
    rec.sequence_count = 0;
    rec.sequence_tables = 0;
    return counted;
  }
  const uint64_t count = h.count;
  const unsigned modes = h.modes;
  uint64_t pos = h.size;
  const unsigned shift[3] = {6, 4, 2};  // literal length, offset, match length
  for (int k = 0; k < 3; ++k) {
    const unsigned mode = (modes >> shift[k]) & 3u;
    const unsigned max_symbol = k == 0   ? kZstdMaxLiteralLengthCode
                                : k == 1 ? kZstdMaxOffsetCode
                                         : kZstdMaxMatchLengthCode;
    failed_table = static_cast<uint32_t>(k);
    if (mode == 3) {
      rec.tables[k] = ZstdTableSource{0, 0, 3};
      continue;
    }
    ZstdTableSource src{ip + pos, static_cast<uint32_t>(size - pos), mode};
    if (mode == 1) {
      if (size - pos < 1 || p[pos] > max_symbol) return DeviceChunkStatus::corrupt_input;
      pos += 1;
    } else if (mode == 2) {
      int16_t probs[kZstdMaxFseSymbols];
      unsigned symbols = 0, log = 0;
      uint64_t used = 0;
      const DeviceChunkStatus s = zstd_fse_read_description(p + pos, size - pos, k == 1 ? 8 : 9,
                                                            max_symbol, probs, symbols, log, used);
      if (s != DeviceChunkStatus::ok) return s;
      if (used > size - pos) return DeviceChunkStatus::corrupt_input;
      pos += used;
    }
    rec.tables[k] = src;
  }
  rec.sequence_count = static_cast<uint32_t>(count);
  rec.sequence_tables = 1;
  rec.bitstream = ip + pos;
  rec.bitstream_size = static_cast<uint32_t>(size - pos);
  return DeviceChunkStatus::ok;
}

/// The steps of a compressed block's section headers, in the order they are read: the first
/// that fails is its plan_step (kZstdPlanPassed when none did).
inline constexpr uint32_t kZstdPlanLiterals = 0;    ///< the literals section header
inline constexpr uint32_t kZstdPlanCount = 1;       ///< the number of sequences and the modes
inline constexpr uint32_t kZstdPlanFirstTable = 2;  ///< + k: code table k (its description)
inline constexpr uint32_t kZstdPlanPassed = 5;

/// Plan, part 1 (serial per chunk): walks the frames and block headers of a chunk (RFC 8878,
/// 3.1.1), filling the frame records and each block's header fields (offset, size, type, frame);
/// a compressed block's sections are read by part 2. Sets plan.block_count / frame_count to what
/// it walked, header_status to the status that stopped it, and headers_past_budget when it
/// stopped at the block or frame budget. Chunks of capacity below `min_capacity` are left to the
/// serial decoder (block_parallel = 0, nothing walked).
CUZARR_HOST_DEVICE inline void zstd_bp_plan_headers(
    const unsigned char* in, uint64_t in_size, uint64_t capacity, const ZstdSlot& slot,
    uint64_t min_capacity = kZstdBlockParallelMinCapacity) {
  ZstdChunkPlan& plan = *slot.plan;
  plan = ZstdChunkPlan{};
  plan.header_status = DeviceChunkStatus::ok;
  plan.scan_status = DeviceChunkStatus::ok;
  if (capacity < min_capacity) return;  // block_parallel = 0
  plan.block_parallel = 1;
  const uint64_t max_blocks = zstd_bp_max_blocks(capacity);
  ZstdFrameDecoder fd;
  fd.init(in, in_size, nullptr, capacity, nullptr, false);
  uint64_t ip = 0;
  bool any_frame = false;
  const auto stop = [&](DeviceChunkStatus status) { plan.header_status = status; };
  for (;;) {
    if (ip == in_size) {  // an input holds one or more frames
      return stop(any_frame ? DeviceChunkStatus::ok : DeviceChunkStatus::corrupt_input);
    }
    if (in_size - ip < 4) return stop(DeviceChunkStatus::corrupt_input);
    const uint32_t magic = load_le32(in + ip);
    if ((magic & kZstdSkippableMask) == kZstdSkippableMagic) {  // RFC 8878, 3.1.2
      if (in_size - ip < 8) return stop(DeviceChunkStatus::corrupt_input);
      const uint64_t skip = load_le32(in + ip + 4);
      if (skip > in_size - ip - 8) return stop(DeviceChunkStatus::corrupt_input);
      ip += 8 + skip;
      any_frame = true;
      continue;
    }
    if (magic != kZstdFrameMagic) return stop(DeviceChunkStatus::corrupt_input);
    ip += 4;
    fd.ip = ip;
    fd.op = 0;  // the scan checks the content size against the output left
    const DeviceChunkStatus hs = fd.read_frame_header();
    if (hs != DeviceChunkStatus::ok) return stop(hs);
    ip = fd.ip;
    if (plan.frame_count >= max_blocks) {
      plan.headers_past_budget = 1;
      return;
    }
    ZstdFrameRecord& frame = slot.frames[plan.frame_count++];
    frame = ZstdFrameRecord{};
    frame.first_block = plan.block_count;
    frame.content_size = fd.content_size;
    frame.has_content_size = fd.has_content_size;
    frame.has_checksum = fd.has_checksum;
    for (;;) {
      // Block header: Last_Block, Block_Type (2 bits), Block_Size (RFC 8878, 3.1.1.2.1).
      if (in_size - ip < 3) return stop(DeviceChunkStatus::corrupt_input);
      const uint32_t header =
          uint32_t{in[ip]} | uint32_t{in[ip + 1]} << 8 | uint32_t{in[ip + 2]} << 16;
      ip += 3;
      const bool last = header & 1u;
      const unsigned type = (header >> 1) & 3u;
      const uint64_t size = header >> 3;
      if (type == 3 || size > fd.block_max) return stop(DeviceChunkStatus::corrupt_input);
      if (plan.block_count >= max_blocks) {
        plan.headers_past_budget = 1;
        return;
      }
      ZstdBlockRecord& rec = slot.blocks[plan.block_count];
      rec = ZstdBlockRecord{};
      rec.in_offset = ip;
      rec.block_max = static_cast<uint32_t>(fd.block_max);
      rec.frame = plan.frame_count - 1;
      rec.type = type;
      rec.plan_step = kZstdPlanPassed;
      rec.literal_status = DeviceChunkStatus::ok;
      rec.status = DeviceChunkStatus::ok;
      rec.execute_status = DeviceChunkStatus::ok;
      if (type == 0) {
        if (size > in_size - ip) return stop(DeviceChunkStatus::corrupt_input);
        rec.in_size = static_cast<uint32_t>(size);
        rec.decoded_size = static_cast<uint32_t>(size);
        ip += size;
      } else if (type == 1) {
        if (in_size - ip < 1) return stop(DeviceChunkStatus::corrupt_input);
        rec.in_size = 1;
        rec.decoded_size = static_cast<uint32_t>(size);
        ip += 1;
      } else {
        if (size > in_size - ip || size == 0) return stop(DeviceChunkStatus::corrupt_input);
        rec.in_size = static_cast<uint32_t>(size);
        ip += size;
      }
      ++plan.block_count;
      ++frame.block_count;
      if (last) break;
    }
    if (frame.has_checksum) {  // Content_Checksum: 4 bytes (RFC 8878, 3.1.1)
      if (in_size - ip < 4) return stop(DeviceChunkStatus::corrupt_input);
      frame.checksum_offset = ip;
      ip += 4;
    }
    frame.complete = 1;
    any_frame = true;
  }
}

/// Plan, part 2 (independent per block): reads a compressed block's literals and sequences
/// section headers (FSE descriptions included) into `rec`, recording in plan_step / plan_status
/// the first step that fails. What depends on earlier blocks (a treeless block's tree, a repeat
/// table) is left to the link.
CUZARR_HOST_DEVICE inline void zstd_bp_plan_sections(const unsigned char* in,
                                                     ZstdBlockRecord& rec) {
  if (rec.type != 2) return;
  uint64_t ip = rec.in_offset;
  const uint64_t block_end = ip + rec.in_size;
  rec.plan_step = kZstdPlanLiterals;
  rec.plan_status = zstd_bp_plan_literals(in, ip, block_end, rec);
  if (rec.plan_status != DeviceChunkStatus::ok) return;
  uint32_t failed_table = 0;
  rec.plan_status = zstd_bp_plan_sequences(in, ip, block_end, rec, failed_table);
  rec.plan_step = rec.plan_status == DeviceChunkStatus::ok ? kZstdPlanPassed
                  : failed_table == 3                      ? kZstdPlanCount
                                                           : kZstdPlanFirstTable + failed_table;
}

/// Plan, part 3 (serial per chunk, a few steps per block): follows the walked blocks in stream
/// order, so that the chunk's outcome is the serial walk's: the first failing step of any block
/// stops the plan there (header_status; the blocks, frames and the frame's block count are cut
/// to what came before it); a treeless block takes its frame's latest tree and a repeat table
/// its frame's latest table of that kind (RFC 8878, 3.1.1.3.1.1 and 3.1.1.3.2.1.1; a frame with
/// none yet is corrupt); the literal area and sequence array are laid out block after block. Past
/// a budget (blocks, frames, literals, sequences) the chunk goes to the serial decoder.
CUZARR_HOST_DEVICE inline void zstd_bp_plan_link(uint64_t capacity, const ZstdSlot& slot) {
  ZstdChunkPlan& plan = *slot.plan;
  if (!plan.block_parallel) return;
  const uint64_t max_sequences = zstd_bp_max_sequences(capacity);
  uint64_t tree = 0;
  uint32_t tree_available = 0;
  ZstdTableSource sources[3] = {};
  bool valid[3] = {false, false, false};
  uint32_t frame = ~0u;
  for (uint32_t b = 0; b < plan.block_count; ++b) {
    ZstdBlockRecord& rec = slot.blocks[b];
    if (rec.frame != frame) {  // tables do not carry over from a previous frame
      frame = rec.frame;
      tree_available = 0;
      valid[0] = valid[1] = valid[2] = false;
    }
    if (rec.type != 2) continue;
    DeviceChunkStatus failure = DeviceChunkStatus::ok;
    if (rec.plan_step == kZstdPlanLiterals) {
      failure = rec.plan_status;
    } else if (rec.literal_type == 3 && tree_available == 0) {
      failure = DeviceChunkStatus::corrupt_input;  // treeless needs an earlier tree in the frame
    } else if (rec.plan_step == kZstdPlanCount) {
      failure = rec.plan_status;
    }
    if (failure == DeviceChunkStatus::ok && rec.literal_type == 2) {
      tree = rec.huffman_tree;
      tree_available = rec.huffman_tree_available;
    } else if (failure == DeviceChunkStatus::ok && rec.literal_type == 3) {
      rec.huffman_tree = tree;
      rec.huffman_tree_available = tree_available;
    }
    // The block has code tables when its count was read and is not 0: it passed (sequence_tables
    // set) or failed at one of its tables (sequence_tables is set only once all are read).
    const bool has_tables = rec.sequence_tables != 0 || (rec.plan_step >= kZstdPlanFirstTable &&
                                                         rec.plan_step < kZstdPlanPassed);
    for (uint32_t k = 0; failure == DeviceChunkStatus::ok && has_tables && k < 3; ++k) {
      if (rec.tables[k].mode == 3) {
        if (!valid[k]) failure = DeviceChunkStatus::corrupt_input;
        rec.tables[k] = sources[k];
      } else if (rec.plan_step == kZstdPlanFirstTable + k) {
        failure = rec.plan_status;
      } else {
        sources[k] = rec.tables[k];
        valid[k] = true;
      }
    }
    if (failure != DeviceChunkStatus::ok) {
      ZstdFrameRecord& f = slot.frames[rec.frame];
      plan.header_status = failure;
      plan.block_count = b;
      plan.frame_count = rec.frame + 1;
      plan.headers_past_budget = 0;
      f.block_count = b - f.first_block;
      f.complete = 0;
      f.checksum_offset = 0;
      return;
    }
    if (rec.literal_size > capacity - plan.literal_bytes ||
        rec.sequence_count > max_sequences - plan.sequence_count) {
      plan.block_parallel = 0;
      plan.header_status = DeviceChunkStatus::ok;
      return;
    }
    rec.literal_offset = plan.literal_bytes;
    plan.literal_bytes += rec.literal_size;
    rec.sequence_offset = plan.sequence_count;
    plan.sequence_count += rec.sequence_count;
  }
  if (plan.headers_past_budget) {
    plan.block_parallel = 0;
    plan.header_status = DeviceChunkStatus::ok;
  }
}

/// Pass 1 for one chunk, its three parts one after the other: fills slot.plan, its block and
/// frame records. The slot must hold the budgets of `capacity` (zstd_bp_slot_layout(c) with c >=
/// capacity). Chunks of capacity below `min_capacity` are left to the serial decoder.
CUZARR_HOST_DEVICE inline void zstd_bp_plan(const unsigned char* in, uint64_t in_size,
                                            uint64_t capacity, const ZstdSlot& slot,
                                            uint64_t min_capacity = kZstdBlockParallelMinCapacity) {
  zstd_bp_plan_headers(in, in_size, capacity, slot, min_capacity);
  for (uint32_t b = 0; b < slot.plan->block_count; ++b) zstd_bp_plan_sections(in, slot.blocks[b]);
  zstd_bp_plan_link(capacity, slot);
}

// ---------------------------------------------------------------------------------------------
// 2. Entropy.

/// Blocks of at least this many sequences decode them a warp each (lane 0 follows the FSE chain)
/// even in rounds whose other blocks take a thread each: their chains set the time of the pass
/// (`cuzarr_segment_dependence` on a chunk of the read benchmark's uint16 array at level 3: 194
/// sequences a 128 KiB segment at the median, 9050 at most, 36 of 256 at 2048 or more).
inline constexpr uint32_t kZstdWarpSequencesFrom = 2048;

/// The tables one block's literals need (its sequences need a ZstdSequenceTables).
struct ZstdLiteralTables {
  ZstdHuffmanTable huffman;
  ZstdHuffmanScratch scratch;
};

/// Raw and RLE literals: copies them into the literal area, bytes rank, rank + ranks, ...
CUZARR_HOST_DEVICE inline void zstd_bp_copy_literals(const unsigned char* in,
                                                     const ZstdBlockRecord& rec,
                                                     unsigned char* literal_area, uint32_t rank,
                                                     uint32_t ranks) {
  unsigned char* dst = literal_area + rec.literal_offset;
  const unsigned char* src = in + rec.literal_payload;
  if (rec.literal_type == 0) {
    for (uint32_t i = rank; i < rec.literal_size; i += ranks) dst[i] = src[i];
  } else if (rec.literal_type == 1) {
    for (uint32_t i = rank; i < rec.literal_size; i += ranks) dst[i] = src[0];
  }
}

/// Huffman literals: builds the table and locates the 1 or 4 streams (RFC 8878, 3.1.1.3.1.6:
/// a jump table of three 2-byte sizes, each of the first three streams decoding
/// (regenerated + 3) / 4 literals). streams.count = 0 for raw / RLE literals.
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_bp_prepare_literals(const unsigned char* in,
                                                                     const ZstdBlockRecord& rec,
                                                                     ZstdLiteralTables& t,
                                                                     unsigned char* literal_area,
                                                                     ZstdHuffmanStreams& p) {
  p.count = 0;
  if (rec.type != 2 || rec.literal_type <= 1) return DeviceChunkStatus::ok;
  uint64_t used = 0;
  DeviceChunkStatus s = zstd_huffman_read_table(in + rec.huffman_tree, rec.huffman_tree_available,
                                                t.huffman, t.scratch, used);
  if (s != DeviceChunkStatus::ok) return s;
  const unsigned char* payload = in + rec.literal_payload;
  const uint64_t compressed = rec.literal_payload_size;
  const uint64_t regenerated = rec.literal_size;
  unsigned char* dst = literal_area + rec.literal_offset;
  if (rec.literal_streams == 1) {
    p.data[0] = payload;
    p.size[0] = compressed;
    p.offset[0] = 0;
    p.literals[0] = regenerated;
    p.count = 1;
  } else {
    if (compressed < 6) return DeviceChunkStatus::corrupt_input;
    p.size[0] = uint64_t{payload[0]} | uint64_t{payload[1]} << 8;
    p.size[1] = uint64_t{payload[2]} | uint64_t{payload[3]} << 8;
    p.size[2] = uint64_t{payload[4]} | uint64_t{payload[5]} << 8;
    const uint64_t total = p.size[0] + p.size[1] + p.size[2];
    if (total > compressed - 6) return DeviceChunkStatus::corrupt_input;
    p.size[3] = compressed - 6 - total;
    const uint64_t segment = (regenerated + 3) / 4;
    if (3 * segment > regenerated) return DeviceChunkStatus::corrupt_input;
    const unsigned char* stream = payload + 6;
    for (unsigned k = 0; k < 4; ++k) {
      p.data[k] = stream;
      p.offset[k] = k * segment;
      p.literals[k] = k < 3 ? segment : regenerated - 3 * segment;
      stream += p.size[k];
    }
    p.count = 4;
  }
  for (unsigned k = 0; k < p.count; ++k) p.offset[k] += static_cast<uint64_t>(dst - literal_area);
  return DeviceChunkStatus::ok;
}

/// Decodes Huffman stream k of a block prepared by zstd_bp_prepare_literals.
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_bp_decode_literal_stream(
    const ZstdLiteralTables& t, const ZstdHuffmanStreams& p, unsigned k,
    unsigned char* literal_area) {
  return zstd_huffman_decode_stream(t.huffman, p.data[k], p.size[k], literal_area + p.offset[k],
                                    p.literals[k]);
}

/// The repeat offset history of a block relative to its starting one (RFC 8878, 3.1.2.5), in
/// three registers.
struct ZstdRepHistory {
  ZstdRepSlot r0{0, 0}, r1{0, 1}, r2{0, 2};

  /// The offset of a sequence from its Offset_Value and literal length, updating the history
  /// (zstd_repeat_offset_step). Repeat offset 1 minus one is known only when it is explicit
  /// (source < 0); otherwise `value` counts what is taken from the starting offset. false when
  /// that offset is known to be 0.
  CUZARR_HOST_DEVICE bool resolve(uint32_t offset_value, uint32_t literal_length,
                                  ZstdRepSlot& offset) {
    return zstd_repeat_offset_step(
        r0, r1, r2, offset_value, literal_length, offset,
        [](uint64_t v) {
          return ZstdRepSlot{static_cast<int64_t>(v), -1};
        },
        [](const ZstdRepSlot& first, ZstdRepSlot& o) {
          o = first;
          if (o.source >= 0) {
            o.value += 1;
            return true;
          }
          o.value -= 1;
          return o.value != 0;
        });
  }
};

/// The record of a decoded sequence (match_at: literals and matches of the block before its
/// match).
CUZARR_HOST_DEVICE inline ZstdSeqRecord zstd_bp_sequence_record(uint32_t literal_length,
                                                                uint32_t match_length,
                                                                const ZstdRepSlot& offset,
                                                                uint32_t match_at) {
  return ZstdSeqRecord{
      literal_length,
      match_length | (static_cast<uint32_t>(offset.source + 1) << kZstdSeqKindShift),
      static_cast<uint32_t>(offset.value), match_at};
}

/// The start of zstd_bp_decode_sequences: sets rec.decoded_size and rec.reps as for a block
/// without sequences; for a block with a sequences section, builds the code tables into t and
/// starts `dec` on the bitstream (dec.has_stream; count = its sequences). Checks that every
/// sequence can write its 3 bytes.
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_bp_start_sequences(const unsigned char* in,
                                                                    ZstdBlockRecord& rec,
                                                                    ZstdSequenceTables& t,
                                                                    ZstdSequenceDecoder& dec,
                                                                    uint32_t& count) {
  const ZstdRepHistory start;
  rec.reps[0] = start.r0;
  rec.reps[1] = start.r1;
  rec.reps[2] = start.r2;
  rec.decoded_size = rec.type == 2 ? rec.literal_size : rec.decoded_size;
  count = 0;
  if (rec.type != 2 || rec.sequence_tables == 0) return DeviceChunkStatus::ok;
  for (int k = 0; k < 3; ++k) {
    const ZstdTableSource& src = rec.tables[k];
    uint64_t used = 0;
    t.valid[k] = false;
    const DeviceChunkStatus s = zstd_read_code_table(static_cast<ZstdSequenceCode>(k), src.mode,
                                                     in + src.offset, src.available, t, used);
    if (s != DeviceChunkStatus::ok) return s;
  }
  // Every sequence writes at least 3 bytes.
  if (uint64_t{rec.sequence_count} * 3 > rec.block_max) return DeviceChunkStatus::corrupt_input;
  const DeviceChunkStatus s =
      dec.start(in + rec.bitstream, rec.bitstream_size, t, rec.sequence_count);
  if (s == DeviceChunkStatus::ok) count = rec.sequence_count;
  return s;
}

/// The end of zstd_bp_decode_sequences after all `matched` match bytes: the bitstream consumed
/// exactly, the block within Block_Maximum_Size; sets rec.decoded_size and rec.reps.
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_bp_finish_sequences(ZstdBlockRecord& rec,
                                                                     const ZstdSequenceDecoder& dec,
                                                                     uint32_t matched,
                                                                     const ZstdRepHistory& reps) {
  const uint32_t literal_size = rec.literal_size;
  if (!dec.finished_cleanly()) return DeviceChunkStatus::corrupt_input;
  if (matched > rec.block_max - literal_size) return DeviceChunkStatus::corrupt_input;
  rec.decoded_size = literal_size + matched;
  rec.reps[0] = reps.r0;
  rec.reps[1] = reps.r1;
  rec.reps[2] = reps.r2;
  return DeviceChunkStatus::ok;
}

/// Decodes a compressed block's sequences into sequences[rec.sequence_offset...], with repeat
/// offsets relative to the block's starting ones (RFC 8878, 3.1.2.5); sets rec.decoded_size and
/// rec.reps. Checks the literal lengths against the literals, the block against
/// Block_Maximum_Size, and that the bitstream is consumed exactly. (The GPU's sequences pass runs
/// it a thread per block; in small rounds warp_zstd_bp_decode_sequences, the same checks with a
/// warp.)
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_bp_decode_sequences(const unsigned char* in,
                                                                     ZstdBlockRecord& rec,
                                                                     ZstdSequenceTables& t,
                                                                     ZstdSeqRecord* sequences) {
  ZstdSequenceDecoder dec;
  uint32_t count = 0;
  DeviceChunkStatus s = zstd_bp_start_sequences(in, rec, t, dec, count);
  if (s != DeviceChunkStatus::ok || !dec.has_stream) return s;
  // The record's fields are read once: the loop's stores could alias them.
  const uint32_t literal_size = rec.literal_size, block_max = rec.block_max;
  uint32_t literals_used = 0, matched = 0, i = 0;
  ZstdRepHistory reps;
  ZstdSeqRecord* out = sequences + rec.sequence_offset;
  s = dec.decode(t, count, [&](uint32_t ll, uint32_t ml, uint32_t ov) {
    if (ll > literal_size - literals_used) return DeviceChunkStatus::corrupt_input;
    literals_used += ll;
    if (ml > block_max - matched) return DeviceChunkStatus::corrupt_input;
    matched += ml;
    ZstdRepSlot offset;
    if (!reps.resolve(ov, ll, offset)) return DeviceChunkStatus::corrupt_input;
    out[i++] = zstd_bp_sequence_record(ll, ml, offset, literals_used + matched - ml);
    return DeviceChunkStatus::ok;
  });
  if (s != DeviceChunkStatus::ok) return s;
  return zstd_bp_finish_sequences(rec, dec, matched, reps);
}

// ---------------------------------------------------------------------------------------------
// 3. Scan.

/// Pieces. The matches pass, where it runs a warp per block, cuts a block of many sequences into
/// pieces of consecutive sequences, a warp each: the pass lasts as long as its longest warp, and
/// a 128 KiB block at level 3 can hold some 9000 sequences where the median block holds 200
/// (docs/gpu_zstd.md, "Matches in pieces"). A piece reads the bytes before its first match as it
/// reads bytes of earlier blocks: final once the pieces before it are done, else chased or waited
/// for. Cuts cost chases, so a round cuts only as finely as its warps need
/// (zstd_bp_round_piece_sequences): a piece holds at least kZstdPieceSequences sequences...
inline constexpr uint32_t kZstdPieceSequences = 1024;
/// ... and a block has at most kZstdMaxPieces pieces (a bit each in ZstdBlockRecord::pieces_done).
inline constexpr uint32_t kZstdMaxPieces = 32;

/// The piece length of a round whose chunks hold `sequences` sequences, for a matches pass of
/// `warps` resident warps: the round's sequences shared evenly over the warps, at least
/// kZstdPieceSequences. Shorter pieces would add chases and no work the GPU could run at once (a
/// 1 GiB round of 4 MiB chunks of the codec bench's uint16 field, blocks of 3100 sequences at the
/// median, ran 1.15x slower in pieces of 1024; bench/RESULTS.md).
CUZARR_HOST_DEVICE inline uint32_t zstd_bp_round_piece_sequences(uint64_t sequences,
                                                                 uint64_t warps) {
  const uint64_t even = warps == 0 ? sequences : (sequences + warps - 1) / warps;
  if (even <= kZstdPieceSequences) return kZstdPieceSequences;
  return even < UINT32_MAX ? static_cast<uint32_t>(even) : UINT32_MAX;
}

/// The sequences of block `rec` whose matches the execute phase runs (none in raw and RLE blocks).
CUZARR_HOST_DEVICE inline uint32_t zstd_bp_executed_sequences(const ZstdBlockRecord& rec) {
  return rec.type == 2 && rec.sequence_tables ? rec.sequence_count : 0;
}

/// The sequences of each piece of a block of `count` sequences (the last piece holds the rest),
/// in a chunk whose plan asks for pieces of `per` (ZstdChunkPlan::piece_sequences; 0:
/// kZstdPieceSequences): `per`, or more where the block would have over kZstdMaxPieces pieces.
CUZARR_HOST_DEVICE inline uint32_t zstd_bp_piece_sequences(uint32_t count, uint32_t per) {
  if (per == 0) per = kZstdPieceSequences;
  const uint32_t even = (count + kZstdMaxPieces - 1) / kZstdMaxPieces;
  return even > per ? even : per;
}

/// How many pieces block `rec` has (at least 1) in a chunk whose plan asks for pieces of `per`.
CUZARR_HOST_DEVICE inline uint32_t zstd_bp_pieces(const ZstdBlockRecord& rec, uint32_t per) {
  const uint32_t count = zstd_bp_executed_sequences(rec);
  if (count == 0) return 1;
  per = zstd_bp_piece_sequences(count, per);
  return static_cast<uint32_t>((uint64_t{count} + per - 1) / per);
}

/// Pass 3 for one chunk (after every block's entropy pass): output offsets, starting repeat
/// offsets, the frames' content sizes and the capacity, in stream order; the first failure stops
/// it (plan.scan_status, plan.executed_blocks, plan.checked_frames).
CUZARR_HOST_DEVICE inline void zstd_bp_scan(uint64_t capacity, const ZstdSlot& slot) {
  ZstdChunkPlan& plan = *slot.plan;
  uint64_t op = 0;
  plan.scan_status = DeviceChunkStatus::ok;
  plan.executed_blocks = 0;
  plan.executed_pieces = 0;
  plan.checked_frames = 0;
  for (uint32_t f = 0; f < plan.frame_count; ++f) {
    ZstdFrameRecord& frame = slot.frames[f];
    frame.output_offset = op;
    if (frame.has_content_size && frame.content_size > capacity - op) {
      plan.scan_status = DeviceChunkStatus::output_too_small;
      return;
    }
    int64_t reps[3] = {1, 4, 8};  // at the start of a frame (RFC 8878, 3.1.2.5)
    for (uint32_t b = frame.first_block; b < frame.first_block + frame.block_count; ++b) {
      ZstdBlockRecord& rec = slot.blocks[b];
      // The literals section comes before the sequences section (RFC 8878, 3.1.1.3).
      const DeviceChunkStatus entropy_status =
          rec.literal_status != DeviceChunkStatus::ok ? rec.literal_status : rec.status;
      if (entropy_status != DeviceChunkStatus::ok) {
        plan.scan_status = entropy_status;
        return;
      }
      if (rec.decoded_size > capacity - op) {
        plan.scan_status = DeviceChunkStatus::output_too_small;
        return;
      }
      rec.output_offset = op;
      op += rec.decoded_size;
      int64_t next[3];
      for (int k = 0; k < 3; ++k) {
        rec.start_reps[k] = reps[k];
        const ZstdRepSlot& r = rec.reps[k];
        next[k] = r.source < 0 ? r.value : reps[r.source] - r.value;
      }
      for (int k = 0; k < 3; ++k) reps[k] = next[k];
      rec.piece_first = plan.executed_pieces;
      plan.executed_pieces += zstd_bp_pieces(rec, plan.piece_sequences);
      plan.executed_blocks = b + 1;
    }
    if (!frame.complete) {
      plan.scan_status = plan.header_status;
      return;
    }
    if (frame.has_content_size && op - frame.output_offset != frame.content_size) {
      plan.scan_status = DeviceChunkStatus::corrupt_input;
      return;
    }
    frame.output_size = op - frame.output_offset;
    plan.checked_frames = f + 1;
  }
  plan.output_size = op;
  plan.scan_status = plan.header_status;
}

// ---------------------------------------------------------------------------------------------
// 4. Execute, in two phases. Every output byte is written once, by a literal copy or a match.
//   4a. literals (any order of blocks): raw and RLE blocks, every compressed block's literals,
//       every offset checked, and the block's entries of the position index (ZstdIndexEntry);
//   4b. matches (per block, or per piece of a block: zstd_bp_pieces; in order within each): a
//       match byte whose source lies before the block (or piece) reads it only if it is a
//       literal there (final since 4a); if it is a match byte there, the source is followed
//       through that match to its own source, until a literal or the reader's own bytes
//       (zstd_bp_chase_run, which finds each step's block and sequence from the position
//       index). So blocks and pieces need not wait for each other; a caller may bound the chase
//       and wait for them instead.

/// A sequence's match offset from the block's starting repeat offsets, checked: at least 1 and
/// reaching back no further than the frame's start from `match_at` (no dictionary).
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_bp_resolve_offset(const ZstdSeqRecord& seq,
                                                                   const int64_t* start_reps,
                                                                   uint64_t match_at,
                                                                   uint64_t frame_start,
                                                                   uint64_t& offset) {
  const uint32_t kind = seq.match_length >> kZstdSeqKindShift;
  const int64_t value = kind == 0 ? int64_t{seq.offset} : start_reps[kind - 1] - seq.offset;
  if (value < 1 || static_cast<uint64_t>(value) > match_at - frame_start) {
    return DeviceChunkStatus::corrupt_input;
  }
  offset = static_cast<uint64_t>(value);
  return DeviceChunkStatus::ok;
}

/// The bytes of a match at output position `at` (`length` bytes from `offset` back) in a block
/// that starts at `block_start` whose source lies before the block: the bytes of its first
/// period (a match that overlaps its own output repeats them). The matches pass weighs a frame's
/// sum of these against its size to choose how to run it (zstd_bp_in_order).
CUZARR_HOST_DEVICE inline uint64_t zstd_bp_external_match_bytes(uint64_t at, uint64_t length,
                                                                uint64_t offset,
                                                                uint64_t block_start) {
  const uint64_t source = at - offset;
  if (source >= block_start) return 0;
  const uint64_t before = block_start - source;
  const uint64_t period = offset < length ? offset : length;
  return before < period ? before : period;
}

/// How the matches pass runs a frame. In order: one warp runs the frame's blocks one after the
/// other, every source final when read (no chase, no wait). In stretches: the frame's blocks are
/// cut into stretches of about `stretch` output bytes (zstd_bp_stretch_head), one warp runs each
/// stretch in order, and a match byte whose source lies before its stretch is read from a block
/// that is done, or chased, or waited for. In order is several times faster on frames whose
/// matches read earlier blocks much, whose chases run long (docs/gpu_zstd.md, "Matches in
/// order"; bench/RESULTS.md): frames whose external match bytes (zstd_bp_external_match_bytes)
/// make up at least this share of their output, in per mille, run in order.
inline constexpr uint32_t kZstdInOrderMatchesPermille = 100;

/// Whether a frame whose executed blocks hold `bytes` bytes, `external` of them match bytes read
/// from an earlier block, runs its matches in order (else in stretches): when external >= permille
/// / 1000 of bytes (permille 0: every frame; above 1000: none).
CUZARR_HOST_DEVICE inline bool zstd_bp_in_order(uint64_t external, uint64_t bytes,
                                                uint32_t permille) {
  if (permille > 1000) return false;
  return external * 1000 >= bytes * permille;
}

/// Stretches: a stretch length of kZstdStretchAuto picks zstd_bp_auto_stretch; kZstdStretchWhole
/// makes every frame one stretch, and a length of 1 every block its own.
inline constexpr uint64_t kZstdStretchAuto = 0;
inline constexpr uint64_t kZstdStretchWhole = UINT64_MAX;
/// Rounds of at least this many chunks run every frame whole (in order): their frames fill the
/// GPU alone. Level 3 on an H100 (bench/RESULTS.md, "Matches in pieces"), a warp per block
/// against in order: 64 chunks of 4 MiB 1.4x (uint16 field) and 1.1x (float32) faster; 256 of
/// 4 MiB 1.1x faster (uint16) and 1.04x slower (float32); 1024 of 1 MiB 1.06x and 1.11x slower.
inline constexpr uint64_t kZstdInOrderMinChunks = 512;

/// The stretch length for a round of `chunks` chunks: whole frames from kZstdInOrderMinChunks
/// chunks on, else a warp per block. Stretches of fixed lengths between the two (256 KiB to
/// 2 MiB) measured no faster than the nearer of them (docs/gpu_zstd.md, "Matches in stretches").
CUZARR_HOST_DEVICE inline uint64_t zstd_bp_auto_stretch(uint64_t chunks) {
  return chunks >= kZstdInOrderMinChunks ? kZstdStretchWhole : 1;
}

/// Whether a block whose output starts `offset` bytes into its frame starts a stretch of
/// `stretch` bytes, the block before it starting `previous` bytes in (`first`: the frame's first
/// block): when the two lie in different multiples of the stretch.
CUZARR_HOST_DEVICE inline bool zstd_bp_stretch_head(bool first, uint64_t previous, uint64_t offset,
                                                    uint64_t stretch) {
  return first || previous / stretch != offset / stretch;
}

/// Phase 4a for block b, serially: its literals (raw / RLE blocks whole) and its offset checks.
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_bp_execute_literals_serial(const unsigned char* in,
                                                                            const ZstdSlot& slot,
                                                                            uint32_t b,
                                                                            unsigned char* out) {
  const ZstdBlockRecord& rec = slot.blocks[b];
  const uint64_t start = rec.output_offset;
  if (rec.type == 0) {
    for (uint32_t i = 0; i < rec.decoded_size; ++i) out[start + i] = in[rec.in_offset + i];
    return DeviceChunkStatus::ok;
  }
  if (rec.type == 1) {
    for (uint32_t i = 0; i < rec.decoded_size; ++i) out[start + i] = in[rec.in_offset];
    return DeviceChunkStatus::ok;
  }
  const uint64_t frame_start = slot.frames[rec.frame].output_offset;
  const unsigned char* literals = slot.literals + rec.literal_offset;
  const ZstdSeqRecord* seqs = slot.sequences + rec.sequence_offset;
  uint64_t lp = 0, external = 0;
  const uint32_t count = rec.sequence_tables ? rec.sequence_count : 0;
  for (uint32_t i = 0; i < count; ++i) {
    const ZstdSeqRecord seq = seqs[i];
    const uint64_t ll = seq.literal_length, at = start + seq.match_at;
    for (uint64_t t = 0; t < ll; ++t) out[at - ll + t] = literals[lp + t];
    lp += ll;
    uint64_t offset = 0;
    const DeviceChunkStatus s =
        zstd_bp_resolve_offset(seq, rec.start_reps, at, frame_start, offset);
    if (s != DeviceChunkStatus::ok) return s;
    external +=
        zstd_bp_external_match_bytes(at, seq.match_length & kZstdSeqLengthMask, offset, start);
  }
  slot.blocks[b].external_bytes = static_cast<uint32_t>(external);
  const uint64_t rest = rec.literal_size - lp;
  const uint64_t tail = start + rec.decoded_size - rest;
  for (uint64_t t = 0; t < rest; ++t) out[tail + t] = literals[lp + t];
  return DeviceChunkStatus::ok;
}

/// The last sequence i in [lo, hi) with seqs[i].match_at <= local (lo when none after it does).
CUZARR_HOST_DEVICE inline uint32_t zstd_bp_last_match_at(const ZstdSeqRecord* seqs, uint32_t lo,
                                                         uint32_t hi, uint64_t local) {
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (seqs[mid].match_at <= local) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// 4a, block b's entries of the position index (those at multiples of kZstdIndexBytes inside
/// the block): entry e by lane e % lanes.
CUZARR_HOST_DEVICE inline void zstd_bp_index_block(const ZstdSlot& slot, uint32_t b, unsigned lane,
                                                   unsigned lanes) {
  const ZstdBlockRecord& rec = slot.blocks[b];
  const ZstdSeqRecord* seqs = slot.sequences + rec.sequence_offset;
  const uint32_t count = rec.type == 2 && rec.sequence_tables ? rec.sequence_count : 0;
  const uint64_t end = rec.output_offset + rec.decoded_size;
  for (uint64_t e = (rec.output_offset + kZstdIndexBytes - 1) / kZstdIndexBytes + lane;
       e * kZstdIndexBytes < end; e += lanes) {
    const uint64_t local = e * kZstdIndexBytes - rec.output_offset;
    slot.index[e] = ZstdIndexEntry{b, count > 0 ? zstd_bp_last_match_at(seqs, 0, count, local) : 0};
  }
}

/// The block of frame `frame` (blocks [first, b)) that holds output position q: from the
/// position index's block for q when it is one of them and starts at or before q (the last such
/// block is the answer), by a binary search otherwise or past it.
CUZARR_HOST_DEVICE inline uint32_t zstd_bp_block_at(const ZstdSlot& slot, uint32_t first,
                                                    uint32_t b, uint64_t q) {
  uint32_t lo = first, hi = b;  // output_offset[lo] <= q < output_offset[hi]
  const uint32_t hinted = slot.index[q / kZstdIndexBytes].block;
  if (hinted >= first && hinted < b && slot.blocks[hinted].output_offset <= q) {
    lo = hinted;
    if (lo + 1 == b || slot.blocks[lo + 1].output_offset > q) return lo;
  }
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (slot.blocks[mid].output_offset <= q) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// The last of block k's `count` sequences whose match starts at or before `local` (a position
/// in the block at or after its first match): between the position index's sequences for the
/// entries around it when they are block k's and bound `local`, by a binary search.
CUZARR_HOST_DEVICE inline uint32_t zstd_bp_sequence_at(const ZstdSlot& slot, uint32_t k,
                                                       uint32_t count, uint64_t local) {
  const ZstdBlockRecord& rec = slot.blocks[k];
  const ZstdSeqRecord* seqs = slot.sequences + rec.sequence_offset;
  const uint64_t e = (rec.output_offset + local) / kZstdIndexBytes;
  const ZstdIndexEntry below = slot.index[e], above = slot.index[e + 1];
  uint32_t lo = 0, hi = count;
  if (below.block == k && below.sequence < count && seqs[below.sequence].match_at <= local) {
    lo = below.sequence;
  }
  // Entry e + 1 lies past q (in the index: q < capacity), so its sequence is at or after the
  // answer when it is block k's and the sequence after it starts past `local`.
  if (above.block == k && above.sequence >= lo && above.sequence < count &&
      (above.sequence + 1 == count || seqs[above.sequence + 1].match_at > local)) {
    hi = above.sequence + 1;
  }
  return zstd_bp_last_match_at(seqs, lo, hi, local);
}

/// The block and sequence where the last chase started (consecutive bytes of a match's source
/// usually fall in the same ones, so the searches are skipped).
struct ZstdChaseHint {
  uint32_t block = 0;
  uint32_t sequence = 0;
};

/// Where the bytes from q on (before `own_start`, where the reader's own bytes start: the start
/// of its stretch of blocks ending with block b, at or before b's start; or, for a piece of b,
/// the piece's first match) come from: after `steps` at most, q is a literal or raw / RLE byte of
/// b's frame, or at or past `own_start` (returns true); false when the chase needs more steps (q
/// is then a match byte of an earlier block, or of b before `own_start`). `run` (in: at most this
/// many, at least 1) becomes the number of bytes from the original q whose values lie from the
/// final q on (chase_match_run). A corrupt earlier block (its failure is reported first) ends the
/// chase at its bytes.
CUZARR_HOST_DEVICE inline bool zstd_bp_chase_run(const ZstdSlot& slot, uint32_t b,
                                                 uint64_t own_start, uint64_t& q, uint32_t steps,
                                                 ZstdChaseHint& hint, uint64_t& run) {
  const ZstdBlockRecord& cur = slot.blocks[b];
  const uint32_t first = slot.frames[cur.frame].first_block;
  const uint64_t frame_start = slot.frames[cur.frame].output_offset;
  // The match of an earlier block, or of b before own_start, that writes q (false: q is final
  // there, up to `end`).
  auto find_match = [&](uint64_t at_q, uint32_t step, ChaseMatch& m, uint64_t& end) {
    const bool hinted =
        step == 0 && hint.block >= first && hint.block <= b &&
        slot.blocks[hint.block].output_offset <= at_q &&
        at_q - slot.blocks[hint.block].output_offset < slot.blocks[hint.block].decoded_size;
    const uint32_t k = hinted ? hint.block : zstd_bp_block_at(slot, first, b + 1, at_q);
    const ZstdBlockRecord& rec = slot.blocks[k];
    if (rec.execute_status != DeviceChunkStatus::ok) return false;  // end: q + 1
    const uint64_t block_end = rec.output_offset + rec.decoded_size;
    const uint32_t count = zstd_bp_executed_sequences(rec);
    end = block_end;
    if (count == 0) return false;
    // The last sequence whose match starts at or before q.
    const ZstdSeqRecord* seqs = slot.sequences + rec.sequence_offset;
    const uint64_t local = at_q - rec.output_offset;
    if (local < seqs[0].match_at) {
      end = rec.output_offset + seqs[0].match_at;
      return false;
    }
    uint32_t lo = 0;
    if (hinted && hint.sequence < count && seqs[hint.sequence].match_at <= local &&
        (hint.sequence + 1 == count || seqs[hint.sequence + 1].match_at > local)) {
      lo = hint.sequence;
    } else {
      lo = zstd_bp_sequence_at(slot, k, count, local);
    }
    if (step == 0) hint = ZstdChaseHint{k, lo};
    const ZstdSeqRecord& seq = seqs[lo];
    const uint64_t ml = seq.match_length & kZstdSeqLengthMask;
    if (local >= uint64_t{seq.match_at} + ml) {  // a literal after that match
      if (lo + 1 < count) end = rec.output_offset + seqs[lo + 1].match_at;
      return false;
    }
    m.at = rec.output_offset + seq.match_at;
    m.length = ml;
    // Offsets were checked with the block's literals (4a); a bad one ends the chase here.
    end = at_q + 1;
    return zstd_bp_resolve_offset(seq, rec.start_reps, m.at, frame_start, m.distance) ==
           DeviceChunkStatus::ok;
  };
  return chase_match_run(q, own_start, steps, run, find_match);
}

/// zstd_bp_chase_run for the one byte at q.
CUZARR_HOST_DEVICE inline bool zstd_bp_chase_source(const ZstdSlot& slot, uint32_t b,
                                                    uint64_t own_start, uint64_t& q, uint32_t steps,
                                                    ZstdChaseHint& hint) {
  uint64_t run = 1;
  return zstd_bp_chase_run(slot, b, own_start, q, steps, hint, run);
}

/// A piece of a block as the matches pass runs it: its sequences [begin, end), and where its own
/// bytes start (the block's start for the first piece, else the piece's first match: the bytes
/// before it are literals, final since 4a, or match bytes of earlier pieces).
struct ZstdPieceRange {
  uint32_t begin;
  uint32_t end;
  uint64_t own_start;
};

/// Piece p of block `rec` (zstd_bp_pieces); empty (begin == end) past the block's pieces.
CUZARR_HOST_DEVICE inline ZstdPieceRange zstd_bp_piece_range(const ZstdSlot& slot,
                                                             const ZstdBlockRecord& rec,
                                                             uint32_t p) {
  const uint32_t count = zstd_bp_executed_sequences(rec);
  const uint32_t per = zstd_bp_piece_sequences(count, slot.plan->piece_sequences);
  const uint64_t begin = uint64_t{p} * per;
  if (begin >= count) return ZstdPieceRange{count, count, rec.output_offset};
  const uint64_t end = begin + per < count ? begin + per : count;
  const uint64_t own_start =
      rec.output_offset + (begin == 0 ? 0 : slot.sequences[rec.sequence_offset + begin].match_at);
  return ZstdPieceRange{static_cast<uint32_t>(begin), static_cast<uint32_t>(end), own_start};
}

/// Phase 4b for piece `piece` of block b (zstd_bp_pieces), serially (blocks and pieces in any
/// order, after 4a for all): its matches, with the bytes before the piece chased.
CUZARR_HOST_DEVICE inline void zstd_bp_execute_piece_matches_serial(const ZstdSlot& slot,
                                                                    uint32_t b, uint32_t piece,
                                                                    unsigned char* out) {
  const ZstdBlockRecord& rec = slot.blocks[b];
  if (rec.type != 2 || rec.execute_status != DeviceChunkStatus::ok) return;
  const ZstdPieceRange range = zstd_bp_piece_range(slot, rec, piece);
  const uint64_t start = rec.output_offset, own_start = range.own_start;
  const uint64_t frame_start = slot.frames[rec.frame].output_offset;
  const ZstdSeqRecord* seqs = slot.sequences + rec.sequence_offset;
  ZstdChaseHint hint;
  for (uint32_t i = range.begin; i < range.end; ++i) {
    const ZstdSeqRecord seq = seqs[i];
    const uint64_t ml = seq.match_length & kZstdSeqLengthMask, at = start + seq.match_at;
    uint64_t offset = 0;
    zstd_bp_resolve_offset(seq, rec.start_reps, at, frame_start, offset);  // checked in 4a
    // Bytes before the piece by runs (their sources follow each other), the others one by one.
    for (uint64_t t = 0; t < ml;) {
      uint64_t q = match_source(at, offset, t);
      if (q >= own_start) {
        out[at + t] = out[q];
        ++t;
        continue;
      }
      uint64_t run = ml - t;
      if (offset < ml && offset - t % offset < run) run = offset - t % offset;
      zstd_bp_chase_run(slot, b, own_start, q, UINT32_MAX, hint, run);
      for (uint64_t k = 0; k < run; ++k) out[at + t + k] = out[q + k];
      t += run;
    }
  }
}

/// Phase 4b for block b, serially (blocks in any order, after 4a for all): its matches, piece by
/// piece, last piece first: any order gives the same bytes, and this one sends every read of an
/// earlier piece's match bytes through the chase.
CUZARR_HOST_DEVICE inline void zstd_bp_execute_matches_serial(const ZstdSlot& slot, uint32_t b,
                                                              unsigned char* out) {
  for (uint32_t p = zstd_bp_pieces(slot.blocks[b], slot.plan->piece_sequences); p-- > 0;)
    zstd_bp_execute_piece_matches_serial(slot, b, p, out);
}

// ---------------------------------------------------------------------------------------------
// 5. Hash: XXH64 of each checked frame with a checksum, split over its four accumulators (each
// runs over every fourth 8-byte word of the 32-byte stripes, so four threads share a frame).

/// Accumulator k (0..3) of XXH64 (seed 0) over the whole stripes of data[0, size).
CUZARR_HOST_DEVICE inline uint64_t zstd_bp_xxh64_lane(const unsigned char* data, uint64_t size,
                                                      unsigned k) {
  uint64_t v = k == 0   ? kXxh64Prime1 + kXxh64Prime2
               : k == 1 ? kXxh64Prime2
               : k == 2 ? 0
                        : uint64_t{0} - kXxh64Prime1;
  const uint64_t stripes = size / 32;
#if defined(__CUDA_ARCH__)
  if (reinterpret_cast<uintptr_t>(data) % 8 == 0) {  // little-endian 8-byte words
    const auto* words = reinterpret_cast<const uint64_t*>(data) + k;
    for (uint64_t i = 0; i < stripes; ++i) v = xxh64_round(v, words[4 * i]);
    return v;
  }
#endif
  for (uint64_t i = 0; i < stripes; ++i) v = xxh64_round(v, xxh64_load64(data + 32 * i + 8 * k));
  return v;
}

/// XXH64 (seed 0) of data[0, size) from the four accumulators (the rest of xxh64()).
CUZARR_HOST_DEVICE inline uint64_t zstd_bp_xxh64_combine(const uint64_t* v,
                                                         const unsigned char* data, uint64_t size) {
  if (size < 32) return xxh64_finish(kXxh64Prime5, data, 0, size);
  return xxh64_finish(xxh64_converge(v), data, size / 32 * 32, size);
}

/// Whether frame f needs the hash pass (passed the scan, has a checksum).
CUZARR_HOST_DEVICE inline bool zstd_bp_frame_hashed(const ZstdSlot& slot, uint32_t f) {
  return f < slot.plan->checked_frames && slot.frames[f].has_checksum;
}

// ---------------------------------------------------------------------------------------------
// 6. Finish.

/// Pass 6 for one chunk (after the hash pass): the first failure in stream order (a block's
/// execution, a frame's checksum when `verify_checksum`, then what stopped the scan).
CUZARR_HOST_DEVICE inline DecodeResult zstd_bp_finish(const unsigned char* in, const ZstdSlot& slot,
                                                      bool verify_checksum) {
  const ZstdChunkPlan& plan = *slot.plan;
  for (uint32_t f = 0; f < plan.frame_count; ++f) {
    const ZstdFrameRecord& frame = slot.frames[f];
    const uint32_t end = frame.first_block + frame.block_count;
    for (uint32_t b = frame.first_block; b < end && b < plan.executed_blocks; ++b) {
      const DeviceChunkStatus s = slot.blocks[b].execute_status;
      if (s != DeviceChunkStatus::ok) return {s, 0};
    }
    if (f >= plan.checked_frames) break;
    if (frame.has_checksum && verify_checksum) {
      // The low 32 bits of XXH64 (seed 0) of the frame's content (RFC 8878, 3.1.1), from the
      // hash pass.
      if (static_cast<uint32_t>(frame.hash) != load_le32(in + frame.checksum_offset)) {
        return {DeviceChunkStatus::checksum_mismatch, 0};
      }
    }
  }
  if (plan.scan_status != DeviceChunkStatus::ok) return {plan.scan_status, 0};
  return {DeviceChunkStatus::ok, plan.output_size};
}

}  // namespace cuzarr::gpu
