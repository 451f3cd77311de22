// The cases of the differential decode fuzzer (cuzarr_gpu_decode_fuzz): random valid chunks
// written by the reference libraries (libzstd, zlib, liblz4) with random settings, mutated copies
// of them, and the libraries' own verdict on each (the reference the decoders under test must
// agree with). Everything is drawn from one std::mt19937_64, so a seed replays the same cases.
#pragma once

#include <lz4.h>
#include <lz4hc.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace cuzarr::fuzz {

using Bytes = std::vector<unsigned char>;
using Rng = std::mt19937_64;

enum class Codec { zstd, gzip, zlib, deflate, lz4, numcodecs_lz4 };
inline constexpr Codec kCodecs[] = {Codec::zstd,    Codec::gzip, Codec::zlib,
                                    Codec::deflate, Codec::lz4,  Codec::numcodecs_lz4};

inline const char* codec_name(Codec c) {
  switch (c) {
    case Codec::zstd:
      return "zstd";
    case Codec::gzip:
      return "gzip";
    case Codec::zlib:
      return "zlib";
    case Codec::deflate:
      return "deflate (raw)";
    case Codec::lz4:
      return "lz4 (raw block)";
    case Codec::numcodecs_lz4:
      return "numcodecs.lz4";
  }
  return "?";
}

/// One input for the decoders: the bytes, the output capacity and what it was made from.
struct Case {
  Bytes input;
  uint64_t capacity = 0;
  bool valid = false;      ///< an unmutated chunk with capacity = its decoded size
  bool too_small = false;  ///< an unmutated chunk with capacity < its decoded size
  std::string how;         ///< how it was made, for reports
};

/// The reference library's verdict: decoded bytes, or nothing when it rejects the input.
using Verdict = std::optional<Bytes>;

inline uint64_t below(Rng& rng, uint64_t n) { return n == 0 ? 0 : rng() % n; }
inline bool chance(Rng& rng, unsigned one_in) { return below(rng, one_in) == 0; }

// Data ------------------------------------------------------------------------------------------

/// `size` bytes of one kind: random, runs, a smooth uint16 field plus noise, or text-like words;
/// "mixed" concatenates pieces of the others.
inline Bytes make_data(Rng& rng, size_t size, std::string& kind) {
  static const char* const kinds[] = {"random", "runs", "smooth", "text", "mixed"};
  kind = kinds[below(rng, 5)];
  Bytes v(size);
  const auto fill = [&](const std::string& k, size_t from, size_t to) {
    if (k == "random") {
      for (size_t i = from; i < to; ++i) v[i] = static_cast<unsigned char>(rng());
    } else if (k == "runs") {
      const unsigned values = 1 + static_cast<unsigned>(below(rng, 8));
      size_t i = from;
      while (i < to) {
        const size_t run = std::min<size_t>(to - i, 1 + below(rng, chance(rng, 4) ? 5000 : 40));
        std::memset(v.data() + i, static_cast<int>(below(rng, values) * 37), run);
        i += run;
      }
    } else if (k == "smooth") {
      const double period = 20.0 + static_cast<double>(below(rng, 200));
      const unsigned noise = 1u << below(rng, 6);
      for (size_t i = from; i + 1 < to; i += 2) {
        const double x = static_cast<double>((i / 2) % 1024), y = static_cast<double>(i / 2048);
        const auto value = static_cast<uint16_t>(
            20000 + 8000 * std::sin(x / period) * std::cos(y / (period + 17)) +
            static_cast<double>(rng() % noise));
        v[i] = static_cast<unsigned char>(value);
        v[i + 1] = static_cast<unsigned char>(value >> 8);
      }
      if ((to - from) % 2) v[to - 1] = 0x42;
    } else {  // text
      static const char* const words[] = {
          "the ",    "zarr ",  "chunk ",        "array ", "of ",  "compressed ", "data, ",
          "shard ",  "index ", "codec ",        "and ",   "GPU ", "decoder ",    "reads ",
          "bytes. ", "\n",     "{\"shape\": [", "1024, ", "]}",   "metadata ",   "zstd "};
      size_t i = from;
      while (i < to) {
        const char* w = words[below(rng, std::size(words))];
        const size_t n = std::min(std::strlen(w), to - i);
        std::memcpy(v.data() + i, w, n);
        i += n;
      }
    }
  };
  if (kind == "mixed") {
    size_t i = 0;
    while (i < size) {
      const size_t piece = std::min<size_t>(size - i, 1 + below(rng, 1 + size / 3));
      fill(kinds[below(rng, 4)], i, i + piece);
      i += piece;
    }
  } else {
    fill(kind, 0, size);
  }
  return v;
}

/// A size from 1 byte to 4 MiB, log-uniform.
inline size_t random_size(Rng& rng) {
  const double e = std::uniform_real_distribution<double>(0.0, 22.0)(rng);
  return std::clamp<size_t>(static_cast<size_t>(std::exp2(e)), 1, size_t{4} << 20);
}

// Compressors -----------------------------------------------------------------------------------

inline void append(Bytes& out, const Bytes& more) {
  out.insert(out.end(), more.begin(), more.end());
}

/// One zstd frame of `data` with random settings (level -7..19, checksum, content size, window,
/// one-shot or streamed in pieces). Appends to `how`.
inline Bytes zstd_frame(Rng& rng, const unsigned char* data, size_t size, std::string& how) {
  int level = static_cast<int>(below(rng, 27)) - 7;
  if (size > (size_t{1} << 20) && level > 9 && !chance(rng, 8)) level = 9;  // keep it quick
  const bool checksum = chance(rng, 2), content_size = chance(rng, 2), streamed = chance(rng, 3);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, checksum ? 1 : 0);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, content_size ? 1 : 0);
  int window_log = 0;
  if (chance(rng, 4)) {
    window_log = 10 + static_cast<int>(below(rng, 14));
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, window_log);
  }
  Bytes out(ZSTD_compressBound(size) + 64);
  size_t written = 0;
  if (!streamed) {
    written = ZSTD_compress2(cctx, out.data(), out.size(), data, size);
  } else {
    ZSTD_outBuffer ob{out.data(), out.size(), 0};
    size_t pos = 0;
    while (true) {
      const size_t piece = std::min<size_t>(size - pos, 1 + below(rng, 1 + size / 2));
      const bool last = pos + piece == size;
      ZSTD_inBuffer ib{data + pos, piece, 0};
      size_t left = 0;
      do {
        left = ZSTD_compressStream2(cctx, &ob, &ib, last ? ZSTD_e_end : ZSTD_e_continue);
      } while (!ZSTD_isError(left) && (ib.pos < ib.size || (last && left != 0)));
      pos += piece;
      if (ZSTD_isError(left) || last) {
        written = ZSTD_isError(left) ? left : ob.pos;
        break;
      }
    }
  }
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(written)) std::abort();  // a generator bug
  out.resize(written);
  how += " L" + std::to_string(level) + (checksum ? " +xxh" : "") + (content_size ? " +fcs" : "") +
         (streamed ? " streamed" : "") + (window_log ? " wlog" + std::to_string(window_log) : "");
  return out;
}

/// A skippable frame (RFC 8878, 3.1.2) with random content.
inline Bytes skippable_frame(Rng& rng) {
  const uint32_t magic = 0x184D2A50u + static_cast<uint32_t>(below(rng, 16));
  const uint32_t size = static_cast<uint32_t>(below(rng, 64));
  Bytes out(8 + size);
  for (int b = 0; b < 4; ++b) {
    out[b] = static_cast<unsigned char>(magic >> (8 * b));
    out[4 + b] = static_cast<unsigned char>(size >> (8 * b));
  }
  for (uint32_t i = 0; i < size; ++i) out[8 + i] = static_cast<unsigned char>(rng());
  return out;
}

/// One deflate stream of `data` (raw: window bits -9..-15, zlib: 9..15, gzip: 25..31) at level
/// 0..9, with a random strategy and memory level, fed in pieces with random flushes; gzip with a
/// random header (name, comment, extra field, header CRC).
inline Bytes deflate_stream(Rng& rng, Codec codec, const unsigned char* data, size_t size,
                            std::string& how) {
  static const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED};
  static const int flushes[] = {Z_NO_FLUSH, Z_SYNC_FLUSH, Z_FULL_FLUSH, Z_PARTIAL_FLUSH, Z_BLOCK};
  const int level = static_cast<int>(below(rng, 10));
  const int strategy = strategies[below(rng, 5)];
  const int window = 9 + static_cast<int>(below(rng, 7));
  const int mem_level = 1 + static_cast<int>(below(rng, 9));
  const int bits = codec == Codec::deflate ? -window : codec == Codec::zlib ? window : window + 16;
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, bits, mem_level, strategy) != Z_OK) std::abort();
  gz_header header{};
  std::string name, comment;
  Bytes extra;
  if (codec == Codec::gzip && chance(rng, 2)) {
    name = "chunk-" + std::to_string(below(rng, 1000));
    comment = chance(rng, 2) ? "written by the fuzzer" : "";
    extra.resize(below(rng, 3) * below(rng, 40));
    for (auto& b : extra) b = static_cast<unsigned char>(rng());
    header.text = static_cast<int>(below(rng, 2));
    header.time = static_cast<uLong>(rng() & 0xffffffffu);
    header.os = static_cast<int>(below(rng, 256));
    header.name = reinterpret_cast<Bytef*>(name.data());
    header.comment = comment.empty() ? Z_NULL : reinterpret_cast<Bytef*>(comment.data());
    header.extra = extra.empty() ? Z_NULL : extra.data();
    header.extra_len = static_cast<uInt>(extra.size());
    header.hcrc = static_cast<int>(below(rng, 2));
    deflateSetHeader(&z, &header);
    how += " header";
  }
  Bytes out(deflateBound(&z, size) + 1024 + size / 8);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  size_t pos = 0;
  const bool pieces = chance(rng, 3);
  while (true) {
    const size_t piece =
        pieces ? std::min<size_t>(size - pos, 1 + below(rng, 1 + size / 3)) : size - pos;
    z.next_in = const_cast<Bytef*>(data + pos);
    z.avail_in = static_cast<uInt>(piece);
    pos += piece;
    const int flush = pos == size ? Z_FINISH : flushes[below(rng, 5)];
    int ret = Z_OK;
    do {
      if (z.avail_out == 0) {  // grow
        const size_t used = out.size();
        out.resize(used * 2);
        z.next_out = out.data() + used;
        z.avail_out = static_cast<uInt>(out.size() - used);
      }
      ret = deflate(&z, flush);
    } while (ret == Z_OK && (z.avail_in > 0 || z.avail_out == 0 || flush == Z_FINISH));
    if (flush == Z_FINISH) {
      if (ret != Z_STREAM_END) std::abort();
      break;
    }
  }
  out.resize(z.total_out);
  deflateEnd(&z);
  static const char* const strategy_names[] = {"default", "filtered", "huffman", "rle", "fixed"};
  how += " L" + std::to_string(level) + " " +
         strategy_names[std::find(std::begin(strategies), std::end(strategies), strategy) -
                        std::begin(strategies)] +
         " w" + std::to_string(window) + (pieces ? " flushes" : "");
  return out;
}

/// A raw LZ4 block of `data` (LZ4_compress_fast, acceleration 1..64, or LZ4_compress_HC, level
/// 1..12).
inline Bytes lz4_block(Rng& rng, const unsigned char* data, size_t size, std::string& how) {
  Bytes out(static_cast<size_t>(LZ4_compressBound(static_cast<int>(size))));
  const auto src = reinterpret_cast<const char*>(data);
  const auto dst = reinterpret_cast<char*>(out.data());
  int written = 0;
  if (chance(rng, 3)) {
    const int level = 1 + static_cast<int>(below(rng, 12));
    written =
        LZ4_compress_HC(src, dst, static_cast<int>(size), static_cast<int>(out.size()), level);
    how += " HC" + std::to_string(level);
  } else {
    const int acceleration = 1 + static_cast<int>(below(rng, chance(rng, 2) ? 2 : 64));
    written = LZ4_compress_fast(src, dst, static_cast<int>(size), static_cast<int>(out.size()),
                                acceleration);
    how += " fast" + std::to_string(acceleration);
  }
  if (written <= 0) std::abort();
  out.resize(static_cast<size_t>(written));
  return out;
}

/// A valid chunk of `codec` holding `data`: zstd as 1..3 frames with skippable frames among them,
/// gzip as 1..3 members, numcodecs.lz4 as its 4-byte size header and one block.
inline Bytes encode(Rng& rng, Codec codec, const Bytes& data, std::string& how) {
  Bytes out;
  const size_t parts =
      (codec == Codec::zstd || codec == Codec::gzip) && chance(rng, 3) ? 2 + below(rng, 2) : 1;
  std::vector<size_t> cuts{0, data.size()};
  for (size_t p = 1; p < parts; ++p) cuts.push_back(below(rng, data.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  if (parts > 1) how += " " + std::to_string(parts) + " parts";
  for (size_t p = 0; p + 1 < cuts.size(); ++p) {
    const unsigned char* at = data.data() + cuts[p];
    const size_t n = cuts[p + 1] - cuts[p];
    switch (codec) {
      case Codec::zstd:
        if (chance(rng, 5)) {
          append(out, skippable_frame(rng));
          how += " +skippable";
        }
        append(out, zstd_frame(rng, at, n, how));
        break;
      case Codec::gzip:
      case Codec::zlib:
      case Codec::deflate:
        append(out, deflate_stream(rng, codec, at, n, how));
        break;
      case Codec::lz4:
        append(out, lz4_block(rng, at, n, how));
        break;
      case Codec::numcodecs_lz4: {
        for (int b = 0; b < 4; ++b) out.push_back(static_cast<unsigned char>(n >> (8 * b)));
        append(out, lz4_block(rng, at, n, how));
        break;
      }
    }
  }
  if (codec == Codec::zstd && chance(rng, 8)) {
    append(out, skippable_frame(rng));
    how += " +skippable";
  }
  return out;
}

// Mutations -------------------------------------------------------------------------------------

/// A position in `n` bytes, biased towards the first 32 (headers) one time in three.
inline size_t position(Rng& rng, size_t n) {
  return chance(rng, 3) ? below(rng, std::min<size_t>(n, 32)) : below(rng, n);
}

/// A damaged copy of `in`: 1..3 of bit flips, byte overwrites, truncation, insertions,
/// deletions, and splices with `other` (its head or tail in place of `in`'s).
inline Bytes mutate(Rng& rng, const Bytes& in, const Bytes& other, std::string& how) {
  Bytes v = in;
  const unsigned ops = 1 + static_cast<unsigned>(below(rng, 3));
  for (unsigned op = 0; op < ops; ++op) {
    switch (below(rng, 7)) {
      case 0: {
        const unsigned flips = 1 + static_cast<unsigned>(below(rng, 8));
        for (unsigned f = 0; f < flips && !v.empty(); ++f)
          v[position(rng, v.size())] ^= static_cast<unsigned char>(1u << below(rng, 8));
        how += " flip" + std::to_string(flips);
        break;
      }
      case 1: {
        if (v.empty()) break;
        static const unsigned char values[] = {0x00, 0xff, 0x7f, 0x80};
        v[position(rng, v.size())] =
            chance(rng, 2) ? values[below(rng, 4)] : static_cast<unsigned char>(rng());
        how += " set";
        break;
      }
      case 2: {
        const size_t keep = chance(rng, 2)
                                ? below(rng, v.size() + 1)
                                : v.size() - std::min<size_t>(v.size(), 1 + below(rng, 8));
        v.resize(keep);
        how += " truncate@" + std::to_string(keep);
        break;
      }
      case 3: {
        const size_t at = position(rng, v.size() + 1), n = 1 + below(rng, 16);
        Bytes bytes(n);
        for (auto& b : bytes) b = static_cast<unsigned char>(rng());
        v.insert(v.begin() + static_cast<std::ptrdiff_t>(at), bytes.begin(), bytes.end());
        how += " insert" + std::to_string(n) + "@" + std::to_string(at);
        break;
      }
      case 4: {
        if (v.empty()) break;
        const size_t at = position(rng, v.size());
        const size_t n = std::min<size_t>(v.size() - at, 1 + below(rng, 16));
        v.erase(v.begin() + static_cast<std::ptrdiff_t>(at),
                v.begin() + static_cast<std::ptrdiff_t>(at + n));
        how += " delete" + std::to_string(n) + "@" + std::to_string(at);
        break;
      }
      case 5: {  // another chunk's header in front of this one's body
        const size_t head = below(rng, std::min<size_t>(other.size(), 48) + 1);
        const size_t cut = below(rng, std::min<size_t>(v.size(), 48) + 1);
        Bytes s(other.begin(), other.begin() + static_cast<std::ptrdiff_t>(head));
        s.insert(s.end(), v.begin() + static_cast<std::ptrdiff_t>(cut), v.end());
        v = std::move(s);
        how += " splice-header";
        break;
      }
      default: {  // this chunk's head, another chunk's tail
        const size_t cut = below(rng, v.size() + 1), from = below(rng, other.size() + 1);
        v.resize(cut);
        v.insert(v.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
        how += " splice";
        break;
      }
    }
  }
  return v;
}

// The reference libraries' verdicts --------------------------------------------------------------

/// libzstd (all frames of the input; skippable frames skipped; windows up to its format maximum,
/// so that the verdict is the format's, not a memory limit's).
inline Verdict zstd_reference(const Bytes& in, uint64_t capacity) {
  static thread_local ZSTD_DCtx* dctx = [] {
    ZSTD_DCtx* d = ZSTD_createDCtx();
    ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax,
                           ZSTD_dParam_getBounds(ZSTD_d_windowLogMax).upperBound);
    return d;
  }();
  Bytes out(std::max<uint64_t>(capacity, 1));
  const size_t n = ZSTD_decompressDCtx(dctx, out.data(), capacity, in.data(), in.size());
  if (ZSTD_isError(n)) return std::nullopt;
  out.resize(n);
  return out;
}

/// zlib: one raw or zlib stream (bytes after it ignored, as inflate does), or gzip members back
/// to back filling the input (inflate restarted after each member).
inline Verdict zlib_reference(Codec codec, const Bytes& in, uint64_t capacity) {
  const int bits = codec == Codec::deflate ? -15 : codec == Codec::zlib ? 15 : 31;
  Bytes out(std::max<uint64_t>(capacity, 1));
  z_stream z{};
  if (inflateInit2(&z, bits) != Z_OK) std::abort();
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(capacity);
  bool ok = false;
  while (true) {
    const int ret = inflate(&z, Z_FINISH);
    if (ret != Z_STREAM_END) break;
    if (codec != Codec::gzip || z.avail_in == 0) {
      ok = true;
      break;
    }
    inflateReset(&z);  // the next gzip member
  }
  const size_t produced = capacity - z.avail_out;  // total_out restarts with each member
  inflateEnd(&z);
  if (!ok) return std::nullopt;
  out.resize(produced);
  return out;
}

/// liblz4's LZ4_decompress_safe; numcodecs.lz4 as numcodecs and cuzarr's CPU codec read it: the
/// header's size must fit the capacity and the block must decode to exactly that size.
inline Verdict lz4_reference(Codec codec, const Bytes& in, uint64_t capacity) {
  const unsigned char* block = in.data();
  size_t block_size = in.size();
  uint64_t limit = capacity;
  if (codec == Codec::numcodecs_lz4) {
    if (in.size() < 4) return std::nullopt;
    limit = static_cast<uint64_t>(in[0]) | static_cast<uint64_t>(in[1]) << 8 |
            static_cast<uint64_t>(in[2]) << 16 | static_cast<uint64_t>(in[3]) << 24;
    if (limit > capacity) return std::nullopt;
    if (limit == 0) return Bytes{};
    block += 4;
    block_size -= 4;
  }
  Bytes out(std::max<uint64_t>(limit, 1));
  const int n =
      LZ4_decompress_safe(reinterpret_cast<const char*>(block), reinterpret_cast<char*>(out.data()),
                          static_cast<int>(block_size), static_cast<int>(limit));
  if (n < 0) return std::nullopt;
  if (codec == Codec::numcodecs_lz4 && static_cast<uint64_t>(n) != limit) return std::nullopt;
  out.resize(static_cast<size_t>(n));
  return out;
}

/// Whether an LZ4 block (numcodecs.lz4: after its header, with the header's size as capacity)
/// breaks an end-of-block condition of lz4_Block_format.md that LZ4_decompress_safe enforces
/// against the output capacity: the last match must start at least 12 bytes (MFLIMIT) before the
/// end and end at least 5 (LASTLITERALS) before it, and the block must end with at least 5
/// literals after its last match. False for blocks whose sequences do not parse.
inline bool lz4_breaks_end_rules(Codec codec, const Bytes& in, uint64_t capacity) {
  size_t ip = 0;
  if (codec == Codec::numcodecs_lz4) {
    if (in.size() < 4) return false;
    capacity = static_cast<uint64_t>(in[0]) | static_cast<uint64_t>(in[1]) << 8 |
               static_cast<uint64_t>(in[2]) << 16 | static_cast<uint64_t>(in[3]) << 24;
    ip = 4;
  }
  const auto extended = [&](uint64_t& length) {
    unsigned extra = 255;
    while (extra == 255) {
      if (ip >= in.size()) return false;
      extra = in[ip++];
      length += extra;
    }
    return true;
  };
  uint64_t op = 0;
  bool any_match = false, breaks = false;
  while (ip < in.size()) {
    const unsigned token = in[ip++];
    uint64_t literals = token >> 4;
    if (literals == 15 && !extended(literals)) return false;
    if (literals > in.size() - ip) return false;
    ip += literals;
    op += literals;
    if (ip == in.size()) return any_match && (breaks || literals < 5);
    if (in.size() - ip < 2) return false;
    ip += 2;
    uint64_t length = (token & 15u) + 4;
    if ((token & 15u) == 15 && !extended(length)) return false;
    any_match = true;
    breaks = op + 12 > capacity || op + length + 5 > capacity;
    op += length;
  }
  return false;
}

inline Verdict reference(Codec codec, const Bytes& in, uint64_t capacity) {
  switch (codec) {
    case Codec::zstd:
      return zstd_reference(in, capacity);
    case Codec::gzip:
    case Codec::zlib:
    case Codec::deflate:
      return zlib_reference(codec, in, capacity);
    case Codec::lz4:
    case Codec::numcodecs_lz4:
      return lz4_reference(codec, in, capacity);
  }
  return std::nullopt;
}

}  // namespace cuzarr::fuzz
