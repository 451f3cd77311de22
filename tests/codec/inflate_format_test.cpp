// The deflate / zlib / gzip decoder the GPU kernels run, checked on the CPU: byte-exact against
// zlib's output at every level and strategy over the input families (0 bytes to 32 MiB), block
// structures zlib writes on flushes and parameter changes, every gzip header field, members back
// to back; and hostile streams (hand-made invalid codes, truncations, random damage, lying
// headers and checksums), which must give a failing status and never an access outside the
// exact-size heap buffers (these tests also run under AddressSanitizer).
#include "codec/cuda/inflate_format.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codec/cuda/adler32.hpp"
#include "codec/cuda/crc32_table.hpp"
#include "codec/cuda/deflate_huffman.hpp"
#include "codec/cuda/inflate_sequences.hpp"
#include "codec/cuda/zlib_gzip_wrappers.hpp"
#include "deflate_hand_made.hpp"
#include "gpu_codec_inputs.hpp"
#include "zlib_test_streams.hpp"

namespace cuzarr {
namespace {

using gpu::DeflateWrapper;
using gpu::DeviceChunkStatus;
using Bytes = std::vector<unsigned char>;

using test::kGzipBits;
using test::kRawBits;
using test::kZlibBits;
using test::window_bits_of;
using test::zlib_compress;

const char* name_of(DeflateWrapper w) {
  return w == DeflateWrapper::raw ? "raw" : w == DeflateWrapper::zlib ? "zlib" : "gzip";
}

const uint32_t (*crc_table())[256] {
  static const gpu::Crc32Tables tables = gpu::make_crc32_tables();
  return tables.table;
}

struct Decoded {
  gpu::InflateResult result;
  Bytes bytes;  // the first result.size bytes of the output
};

/// inflate_serial's engine with the deflate data decoded through InflateBatch (the order of
/// writes of the GPU kernel).
struct BatchedEngine : gpu::SerialInflateEngine {
  gpu::InflateBatch* batch = nullptr;
  gpu::InflateResult deflate(const unsigned char* in, uint64_t size, uint64_t start,
                             unsigned char* out, uint64_t capacity, uint64_t op) {
    return gpu::inflate_run_batched_serial(in, size, start, out, capacity, op, *workspace, *batch);
  }
};

/// Our serial decoder with the input and output in heap buffers of exactly their sizes, step by
/// step and through batches: both must agree on the status, the size and the bytes.
Decoded inflate_exact(const Bytes& stream, uint64_t capacity, DeflateWrapper w,
                      bool verify = true) {
  auto in = std::make_unique<unsigned char[]>(stream.size());
  if (!stream.empty()) std::memcpy(in.get(), stream.data(), stream.size());
  auto out = std::make_unique<unsigned char[]>(capacity);
  auto ws = std::make_unique<gpu::InflateWorkspace>();
  Decoded d;
  d.result = gpu::inflate_serial(in.get(), stream.size(), out.get(), capacity, w, verify, *ws,
                                 crc_table());
  EXPECT_LE(d.result.size, capacity);
  d.bytes.assign(out.get(), out.get() + std::min<uint64_t>(d.result.size, capacity));

  auto batched_out = std::make_unique<unsigned char[]>(capacity);
  auto batch = std::make_unique<gpu::InflateBatch>();
  BatchedEngine engine;
  engine.workspace = ws.get();
  engine.crc_table = crc_table();
  engine.batch = batch.get();
  const auto b =
      gpu::inflate_wrapped(in.get(), stream.size(), batched_out.get(), capacity, w, verify, engine);
  EXPECT_EQ(b.status, d.result.status);
  EXPECT_EQ(b.size, d.result.size);  // also on failure: the output produced before it
  if (b.status == DeviceChunkStatus::ok && d.result.status == DeviceChunkStatus::ok) {
    EXPECT_EQ(b.consumed, d.result.consumed);
    EXPECT_TRUE(std::equal(d.bytes.begin(), d.bytes.end(), batched_out.get()));
  }
  return d;
}

void expect_decodes(const Bytes& stream, const Bytes& expected, DeflateWrapper w,
                    const std::string& what) {
  const Decoded d = inflate_exact(stream, expected.size(), w);
  ASSERT_EQ(d.result.status, DeviceChunkStatus::ok) << what << " " << name_of(w);
  ASSERT_EQ(d.result.size, expected.size()) << what << " " << name_of(w);
  ASSERT_TRUE(d.bytes == expected) << what << " " << name_of(w);
  ASSERT_EQ(d.result.consumed, stream.size()) << what << " " << name_of(w);
}

constexpr DeflateWrapper kWrappers[] = {DeflateWrapper::raw, DeflateWrapper::zlib,
                                        DeflateWrapper::gzip};

// Conformance ------------------------------------------------------------------------------------

TEST(InflateFormat, DecodesZlibOutputAtEveryLevelForEveryFamilyAndWrapper) {
  int streams = 0;
  for (const auto& input : test::input_families(test::small_sizes())) {
    for (int level = 0; level <= 9; ++level) {
      for (DeflateWrapper w : kWrappers) {
        // The largest sizes with one wrapper per level, to keep the test quick.
        if (input.bytes.size() > 65541 && w != kWrappers[level % 3]) continue;
        expect_decodes(zlib_compress(input.bytes, level, w), input.bytes, w,
                       input.name + " level " + std::to_string(level));
        ++streams;
      }
    }
  }
  EXPECT_GT(streams, 3000);
}

TEST(InflateFormat, DecodesEveryZlibStrategy) {
  for (const auto& input : test::input_families(test::small_sizes())) {
    for (int strategy : {Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED}) {
      for (int level : {1, 6, 9}) {
        const DeflateWrapper w = kWrappers[(level + strategy) % 3];
        expect_decodes(zlib_compress(input.bytes, level, w, strategy), input.bytes, w,
                       input.name + " strategy " + std::to_string(strategy) + " level " +
                           std::to_string(level));
      }
    }
  }
}

TEST(InflateFormat, DecodesSmallWindowsAndMemoryLevels) {
  for (const auto& input : test::input_families({1000, 70000})) {
    for (int bits = 9; bits <= 15; bits += 3) {
      for (int mem_level : {1, 9}) {
        expect_decodes(zlib_compress(input.bytes, 6, -bits, Z_DEFAULT_STRATEGY, mem_level),
                       input.bytes, DeflateWrapper::raw, input.name);
        expect_decodes(zlib_compress(input.bytes, 9, bits, Z_DEFAULT_STRATEGY, mem_level),
                       input.bytes, DeflateWrapper::zlib, input.name);
      }
    }
  }
}

TEST(InflateFormat, DecodesLargeChunksUpTo32MiB) {
  // Levels 1 and 6 in turn over the families (kept few: these tests also run under ASan).
  int level = 1;
  for (const auto& input : test::input_families({4 << 20})) {
    expect_decodes(zlib_compress(input.bytes, level, DeflateWrapper::gzip), input.bytes,
                   DeflateWrapper::gzip, input.name + " level " + std::to_string(level));
    level = level == 1 ? 6 : 1;
  }
  const Bytes big = test::smooth_float32_input(32 << 20, 9);
  expect_decodes(zlib_compress(big, 6, DeflateWrapper::zlib), big, DeflateWrapper::zlib,
                 "32 MiB float32 level 6");
}

/// Deflates in pieces, with `flush` after each and a level change every other piece: streams
/// with many blocks of all three types, empty stored blocks (sync / full flush) and unfinished
/// bit positions between blocks (Z_BLOCK, Z_PARTIAL_FLUSH).
Bytes deflate_in_pieces(const Bytes& in, int window_bits, int flush, size_t piece) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY), Z_OK);
  Bytes out(deflateBound(&z, in.size()) * 2 + 4096 + in.size() / piece * 16);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  size_t at = 0;
  int k = 0;
  do {
    const size_t n = std::min(piece, in.size() - at);
    z.next_in = const_cast<Bytef*>(in.data() + at);
    z.avail_in = static_cast<uInt>(n);
    at += n;
    const int rc = deflate(&z, at == in.size() ? Z_FINISH : flush);
    EXPECT_TRUE(rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR);
    if (++k % 2 == 0 && at < in.size()) {
      EXPECT_EQ(
          deflateParams(&z, k % 4 == 0 ? 0 : 9, k % 8 == 2 ? Z_HUFFMAN_ONLY : Z_DEFAULT_STRATEGY),
          Z_OK);
    }
  } while (at < in.size());
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST(InflateFormat, DecodesMultiBlockStreamsWithFlushes) {
  for (const auto& input : test::input_families({100000})) {
    for (int flush : {Z_NO_FLUSH, Z_SYNC_FLUSH, Z_FULL_FLUSH, Z_BLOCK, Z_PARTIAL_FLUSH}) {
      for (DeflateWrapper w : kWrappers) {
        expect_decodes(deflate_in_pieces(input.bytes, window_bits_of(w), flush, 7001), input.bytes,
                       w, input.name + " flush " + std::to_string(flush));
      }
    }
  }
}

Bytes gzip_with_header(const Bytes& in, int level, bool extra, bool name, bool comment, bool hcrc) {
  static unsigned char extra_field[] = {'A', 'B', 4, 0, 1, 2, 3, 4};
  static unsigned char file_name[] = "chunk.bin";
  static unsigned char text[] = "a comment";
  gz_header h{};
  h.text = 1;
  h.time = 123456789;
  h.os = 3;
  h.extra = extra ? extra_field : Z_NULL;
  h.extra_len = sizeof(extra_field);
  h.name = name ? file_name : Z_NULL;
  h.comment = comment ? text : Z_NULL;
  h.hcrc = hcrc ? 1 : 0;
  return zlib_compress(in, level, kGzipBits, Z_DEFAULT_STRATEGY, 8, &h);
}

TEST(InflateFormat, ReadsEveryGzipHeaderField) {
  const Bytes input = test::runs_input(5000, 4);
  for (int mask = 0; mask < 16; ++mask) {
    const Bytes stream = gzip_with_header(input, 6, mask & 1, mask & 2, mask & 4, mask & 8);
    expect_decodes(stream, input, DeflateWrapper::gzip, "header mask " + std::to_string(mask));
    expect_decodes(stream, input, DeflateWrapper::gzip_or_zlib,
                   "header mask " + std::to_string(mask));
  }
  // A wrong header CRC is caught when verifying, ignored otherwise.
  Bytes stream = gzip_with_header(input, 6, true, true, true, true);
  const size_t hcrc_at = 10 + 2 + 8 + 10 + 10;  // fixed, XLEN + extra, name, comment
  ASSERT_EQ(stream[3], 0x1F);                   // FTEXT FHCRC FEXTRA FNAME FCOMMENT
  stream[hcrc_at] ^= 1;
  EXPECT_EQ(inflate_exact(stream, input.size(), DeflateWrapper::gzip).result.status,
            DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(inflate_exact(stream, input.size(), DeflateWrapper::gzip, false).result.status,
            DeviceChunkStatus::ok);
}

TEST(InflateFormat, DecodesGzipMembersBackToBack) {
  const Bytes a = test::smooth_uint16_input(30000, 1), b = test::random_input(777, 2),
              c = test::runs_input(50000, 3);
  Bytes stream = zlib_compress(a, 6, DeflateWrapper::gzip);
  const Bytes sb = zlib_compress(b, 1, DeflateWrapper::gzip),
              sc = zlib_compress(c, 9, DeflateWrapper::gzip);
  const Bytes empty = zlib_compress({}, 6, DeflateWrapper::gzip);
  stream.insert(stream.end(), sb.begin(), sb.end());
  stream.insert(stream.end(), empty.begin(), empty.end());
  stream.insert(stream.end(), sc.begin(), sc.end());
  Bytes all = a;
  all.insert(all.end(), b.begin(), b.end());
  all.insert(all.end(), c.begin(), c.end());
  expect_decodes(stream, all, DeflateWrapper::gzip, "three members");
  expect_decodes(stream, all, DeflateWrapper::gzip_or_zlib, "three members");
  // A zlib stream as a member: accepted with detection, not as gzip.
  const Bytes sz = zlib_compress(b, 6, DeflateWrapper::zlib);
  Bytes mixed = zlib_compress(a, 6, DeflateWrapper::gzip);
  mixed.insert(mixed.end(), sz.begin(), sz.end());
  Bytes ab = a;
  ab.insert(ab.end(), b.begin(), b.end());
  expect_decodes(mixed, ab, DeflateWrapper::gzip_or_zlib, "gzip then zlib");
  EXPECT_EQ(inflate_exact(mixed, ab.size(), DeflateWrapper::gzip).result.status,
            DeviceChunkStatus::corrupt_input);
  // Trailing bytes that are not a member are an error, as for cuzarr's CPU gzip codec.
  Bytes trailing = zlib_compress(a, 6, DeflateWrapper::gzip);
  trailing.push_back(0);
  EXPECT_EQ(inflate_exact(trailing, a.size(), DeflateWrapper::gzip).result.status,
            DeviceChunkStatus::corrupt_input);
}

TEST(InflateFormat, ZlibStreamIgnoresTrailingBytesAndRefusesPresetDictionaries) {
  const Bytes input = test::smooth_uint16_input(20000, 5);
  Bytes stream = zlib_compress(input, 6, DeflateWrapper::zlib);
  const size_t size = stream.size();
  stream.insert(stream.end(), {1, 2, 3});
  const Decoded d = inflate_exact(stream, input.size(), DeflateWrapper::zlib);
  EXPECT_EQ(d.result.status, DeviceChunkStatus::ok);
  EXPECT_EQ(d.result.consumed, size);
  EXPECT_TRUE(d.bytes == input);

  z_stream z{};
  ASSERT_EQ(deflateInit(&z, 6), Z_OK);
  const unsigned char dictionary[] = "some dictionary bytes";
  ASSERT_EQ(deflateSetDictionary(&z, dictionary, sizeof(dictionary)), Z_OK);
  Bytes out(deflateBound(&z, input.size()) + 64);
  z.next_in = const_cast<Bytef*>(input.data());
  z.avail_in = static_cast<uInt>(input.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  ASSERT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  EXPECT_EQ(inflate_exact(out, input.size(), DeflateWrapper::zlib).result.status,
            DeviceChunkStatus::unsupported);
}

// Hand-made streams ------------------------------------------------------------------------------

/// Packs fields into a deflate stream (deflate_hand_made.hpp).
using BitWriter = test::DeflateBitWriter;

TEST(InflateFormat, MatchesCannotReachIntoAnEarlierMember) {
  const Bytes x(100, 'x');
  Bytes two = zlib_compress(x, 6, DeflateWrapper::gzip);
  // A second member: fixed block, literal 'y', then a match of length 3 at distance 2 (which
  // only the first member's output could serve).
  const Bytes header = {0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3};
  two.insert(two.end(), header.begin(), header.end());
  BitWriter body;
  body.bits(1, 1).bits(1, 2).fixed('y').fixed(257).code(1, 5).fixed(256).bits(0, 64);
  const Bytes b = body.bytes();
  two.insert(two.end(), b.begin(), b.end());
  const Decoded d = inflate_exact(two, 1000, DeflateWrapper::gzip, false);
  EXPECT_EQ(d.result.status, DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(d.result.size, 101u);  // the literal of the second member was written
  // Distance 1 is within the member: accepted.
  Bytes ok = zlib_compress(x, 6, DeflateWrapper::gzip);
  ok.insert(ok.end(), header.begin(), header.end());
  BitWriter good;
  good.bits(1, 1).bits(1, 2).fixed('y').fixed(257).code(0, 5).fixed(256).bits(0, 64);
  const Bytes g = good.bytes();
  ok.insert(ok.end(), g.begin(), g.end());
  const Decoded e = inflate_exact(ok, 104, DeflateWrapper::gzip, false);
  EXPECT_EQ(e.result.status, DeviceChunkStatus::ok);
  EXPECT_EQ(std::string(e.bytes.begin() + 98, e.bytes.end()), "xxyyyy");
}

DeviceChunkStatus raw_status(const Bytes& stream, uint64_t capacity = 1000) {
  return inflate_exact(stream, capacity, DeflateWrapper::raw).result.status;
}

TEST(InflateFormat, HandMadeFixedBlocks) {
  // "ab", then a match of length 6 at distance 2 (overlapping: "ababab"), end of block.
  BitWriter w;
  w.bits(1, 1).bits(1, 2).fixed('a').fixed('b').fixed(260).code(1, 5).fixed(256);
  const Decoded d = inflate_exact(w.bytes(), 8, DeflateWrapper::raw);
  ASSERT_EQ(d.result.status, DeviceChunkStatus::ok);
  EXPECT_EQ(std::string(d.bytes.begin(), d.bytes.end()), "abababab");
  EXPECT_EQ(inflate_exact(w.bytes(), 7, DeflateWrapper::raw).result.status,
            DeviceChunkStatus::output_too_small);
  EXPECT_EQ(inflate_exact(w.bytes(), 1, DeflateWrapper::raw).result.status,
            DeviceChunkStatus::output_too_small);
  // Distance 3 after two bytes: before the start of the output.
  BitWriter far;
  far.bits(1, 1).bits(1, 2).fixed('a').fixed('b').fixed(257).code(2, 5).fixed(256);
  EXPECT_EQ(raw_status(far.bytes()), DeviceChunkStatus::corrupt_input);
  // Length symbols 286 / 287 and distance codes 30 / 31 exist in the fixed code but are invalid.
  for (uint32_t symbol : {286u, 287u}) {
    BitWriter bad;
    bad.bits(1, 1).bits(1, 2).fixed('a').fixed(symbol).code(0, 5).fixed(256);
    EXPECT_EQ(raw_status(bad.bytes()), DeviceChunkStatus::corrupt_input) << symbol;
  }
  for (uint32_t distance : {30u, 31u}) {
    BitWriter bad;
    bad.bits(1, 1).bits(1, 2).fixed('a').fixed(257).code(distance, 5).fixed(256);
    EXPECT_EQ(raw_status(bad.bytes()), DeviceChunkStatus::corrupt_input) << distance;
  }
  // Length 258 (symbol 285, no extra bits) and the largest distance of a code with extra bits.
  BitWriter longest;
  longest.bits(1, 1).bits(1, 2).fixed('z').fixed(285).code(0, 5).fixed(256);
  const Decoded l = inflate_exact(longest.bytes(), 259, DeflateWrapper::raw);
  ASSERT_EQ(l.result.status, DeviceChunkStatus::ok);
  EXPECT_EQ(l.bytes, Bytes(259, 'z'));
  // Reserved block type 3.
  BitWriter reserved;
  reserved.bits(1, 1).bits(3, 2).bits(0, 16);
  EXPECT_EQ(raw_status(reserved.bytes()), DeviceChunkStatus::corrupt_input);
  // No final block: the input ends inside the stream.
  BitWriter unfinished;
  unfinished.bits(0, 1).bits(1, 2).fixed('a').fixed(256);
  EXPECT_EQ(raw_status(unfinished.bytes()), DeviceChunkStatus::corrupt_input);
  // An empty input.
  EXPECT_EQ(raw_status({}), DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(inflate_exact({}, 0, DeflateWrapper::zlib).result.status,
            DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(inflate_exact({}, 0, DeflateWrapper::gzip).result.status,
            DeviceChunkStatus::corrupt_input);
}

TEST(InflateFormat, HandMadeStoredBlocks) {
  // Two stored blocks: "abc" (not final), "" (final).
  const Bytes ok = {0x00, 3, 0, 0xFC, 0xFF, 'a', 'b', 'c', 0x01, 0, 0, 0xFF, 0xFF};
  const Decoded d = inflate_exact(ok, 3, DeflateWrapper::raw);
  ASSERT_EQ(d.result.status, DeviceChunkStatus::ok);
  EXPECT_EQ(std::string(d.bytes.begin(), d.bytes.end()), "abc");
  EXPECT_EQ(d.result.consumed, ok.size());
  Bytes nlen = ok;
  nlen[3] = 0xFD;  // NLEN is not the complement of LEN
  EXPECT_EQ(raw_status(nlen), DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(raw_status(ok, 2), DeviceChunkStatus::output_too_small);
  const Bytes lying = {0x01, 200, 0, 55, 0xFF, 'a', 'b', 'c'};  // LEN past the input
  EXPECT_EQ(raw_status(lying), DeviceChunkStatus::corrupt_input);
  for (size_t cut = 0; cut < ok.size(); ++cut) {
    EXPECT_EQ(raw_status(Bytes(ok.begin(), ok.begin() + cut)), DeviceChunkStatus::corrupt_input)
        << cut;
  }
}

/// A dynamic block header: HLIT, HDIST, HCLEN and the code length code lengths (in the order of
/// RFC 1951 3.2.7) are written; the caller appends the coded lengths.
BitWriter dynamic_header(uint32_t hlit, uint32_t hdist, const std::vector<uint32_t>& cl_lengths) {
  BitWriter w;
  w.bits(1, 1)
      .bits(2, 2)
      .bits(hlit - 257, 5)
      .bits(hdist - 1, 5)
      .bits(static_cast<uint32_t>(cl_lengths.size()) - 4, 4);
  for (uint32_t l : cl_lengths) w.bits(l, 3);
  return w;
}

TEST(InflateFormat, HandMadeDynamicBlocks) {
  // The code length code: length 2 for the symbols 1, 16, 17 and 18, in the order of 3.2.7
  // (16 17 18 0 8 7 9 6 10 5 11 4 12 3 13 2 14 1: HCLEN + 4 = 18).
  std::vector<uint32_t> order_lengths(18, 0);
  order_lengths[0] = 2;   // 16
  order_lengths[1] = 2;   // 17
  order_lengths[2] = 2;   // 18
  order_lengths[17] = 2;  // 1
  // Canonical codes (by symbol value): 1 -> 00, 16 -> 01, 17 -> 10, 18 -> 11.
  auto lengths_block = [&](uint32_t hlit, uint32_t hdist, auto&& body) {
    BitWriter w = dynamic_header(hlit, hdist, order_lengths);
    body(w);
    return w;
  };
  auto zeros = [](BitWriter& w, uint32_t n) {  // n zeros with 17 / 18 (never 1 or 2 left)
    while (n > 0) {
      ASSERT_GE(n, 3u);
      if (n >= 11) {
        const uint32_t k = std::min<uint32_t>(n, 138);
        w.code(3, 2).bits(k - 11, 7);
        n -= k;
      } else {
        const uint32_t k = std::min<uint32_t>(n, 10);
        w.code(2, 2).bits(k - 3, 3);
        n -= k;
      }
    }
  };
  const uint32_t one = 0;  // the code of code length 1
  // Literal/length lengths: 'a' (97) and 256 of length 1, the rest 0 (HLIT 257); distance: one
  // code of length 1 (HDIST 1, the single-code case). Data: 'a' (code 0), 'a', end (code 1).
  auto good = lengths_block(257, 1, [&](BitWriter& w) {
    zeros(w, 97);
    w.code(one, 2);
    zeros(w, 256 - 98);
    w.code(one, 2);
    w.code(one, 2);  // distance code 0: length 1
  });
  good.code(0, 1).code(0, 1).code(1, 1);  // 'a' 'a' EOB
  const Decoded d = inflate_exact(good.bytes(), 2, DeflateWrapper::raw);
  ASSERT_EQ(d.result.status, DeviceChunkStatus::ok);
  EXPECT_EQ(std::string(d.bytes.begin(), d.bytes.end()), "aa");

  // Repeat code 16 as the very first length: nothing to repeat.
  auto repeat_first = lengths_block(257, 1, [&](BitWriter& w) { w.code(1, 2).bits(0, 2); });
  EXPECT_EQ(raw_status(repeat_first.bytes()), DeviceChunkStatus::corrupt_input);
  // Zeros running past HLIT + HDIST (3.2.7).
  auto past_end = lengths_block(257, 1, [&](BitWriter& w) {
    zeros(w, 97);
    w.code(one, 2);
    zeros(w, 256 - 98);
    w.code(one, 2);
    w.code(2, 2).bits(0, 3);  // 3 zeros, only 1 left
  });
  EXPECT_EQ(raw_status(past_end.bytes()), DeviceChunkStatus::corrupt_input);
  // No end-of-block code.
  auto no_eob = lengths_block(257, 1, [&](BitWriter& w) {
    zeros(w, 97);
    w.code(one, 2);
    w.code(one, 2);  // 98 length 1
    zeros(w, 257 - 99);
    w.code(one, 2);
  });
  EXPECT_EQ(raw_status(no_eob.bytes()), DeviceChunkStatus::corrupt_input);
  // Over-subscribed literal/length code: three codes of length 1.
  auto over = lengths_block(257, 1, [&](BitWriter& w) {
    zeros(w, 96);
    w.code(one, 2).code(one, 2);
    zeros(w, 256 - 98);
    w.code(one, 2).code(one, 2);
  });
  EXPECT_EQ(raw_status(over.bytes()), DeviceChunkStatus::corrupt_input);
  // (Incomplete codes with more than one code: HuffmanBuildRules.)
  // HLIT 287 (above 286) and HDIST 31 are refused.
  EXPECT_EQ(raw_status(dynamic_header(287, 1, order_lengths).bytes()),
            DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(raw_status(dynamic_header(257, 31, order_lengths).bytes()),
            DeviceChunkStatus::corrupt_input);
  // An incomplete code length code (one code of length 2).
  EXPECT_EQ(raw_status(dynamic_header(257, 1, {2, 0, 0, 0}).bytes()),
            DeviceChunkStatus::corrupt_input);
  // A single-code code length code is not accepted either (only literal/length and distance).
  EXPECT_EQ(raw_status(dynamic_header(257, 1, {1, 0, 0, 0}).bytes()),
            DeviceChunkStatus::corrupt_input);
}

TEST(InflateFormat, HuffmanBuildRules) {
  gpu::HuffmanTable t;
  const uint8_t complete[] = {1, 2, 3, 3};
  EXPECT_EQ(gpu::build_huffman(t, complete, 4, false), gpu::HuffmanBuild::ok);
  const uint8_t over[] = {1, 1, 2};
  EXPECT_EQ(gpu::build_huffman(t, over, 3, true), gpu::HuffmanBuild::over_subscribed);
  const uint8_t incomplete[] = {1, 2, 0};
  EXPECT_EQ(gpu::build_huffman(t, incomplete, 3, true), gpu::HuffmanBuild::incomplete);
  const uint8_t single[] = {0, 1, 0};
  EXPECT_EQ(gpu::build_huffman(t, single, 3, true), gpu::HuffmanBuild::ok);
  EXPECT_EQ(gpu::build_huffman(t, single, 3, false), gpu::HuffmanBuild::incomplete);
  const uint8_t single_long[] = {0, 2, 0};
  EXPECT_EQ(gpu::build_huffman(t, single_long, 3, true), gpu::HuffmanBuild::incomplete);
  const uint8_t empty[] = {0, 0, 0};
  EXPECT_EQ(gpu::build_huffman(t, empty, 3, true), gpu::HuffmanBuild::ok);
  // 15-bit codes (beyond the primary table) decode through the canonical search: lengths
  // 1, 2, ..., 14, 15, 15 form a complete code.
  uint8_t deep[16];
  for (int k = 0; k < 15; ++k) deep[k] = static_cast<uint8_t>(k + 1);
  deep[15] = 15;
  // The distance table's primary table resolves fewer bits (kDistanceFastBits): codes of 10 to
  // 15 bits take the canonical search there.
  gpu::DistanceTable d;
  ASSERT_EQ(gpu::build_huffman(t, deep, 16, false), gpu::HuffmanBuild::ok);
  ASSERT_EQ(gpu::build_huffman(d, deep, 16, false, gpu::HuffmanAlphabet::distance),
            gpu::HuffmanBuild::ok);
  for (uint32_t symbol = 0; symbol < 16; ++symbol) {
    // Symbol k < 15 has code 1...10 (k ones, then a zero); symbol 15 has 15 ones.
    BitWriter w;
    const uint32_t len = deep[symbol];
    const uint32_t code = symbol < 15 ? ((1u << len) - 2) : 0x7FFF;
    w.code(code, len).bits(0, 16);
    const Bytes b = w.bytes();
    gpu::DeflateBitReader r;
    r.reset(b.data(), b.size(), 0);
    r.refill();
    EXPECT_EQ(gpu::huffman_decode(t, r), static_cast<int32_t>(symbol));
    EXPECT_EQ(r.bit_position(), len);
    gpu::DeflateBitReader rd;
    rd.reset(b.data(), b.size(), 0);
    rd.refill();
    EXPECT_EQ(gpu::huffman_decode(d, rd), static_cast<int32_t>(symbol)) << "distance table";
    EXPECT_EQ(rd.bit_position(), len);
  }
}

TEST(InflateFormat, PrimaryTablesFilledEntryByEntryEqualTheBuiltOnes) {
  // huffman_fill_fast (a GPU warp's lanes fill a block's primary tables) against build_huffman's
  // own fill, for random complete codes of up to 15 bits in both alphabets, and the fixed codes.
  std::mt19937 rng(20261122);
  for (int round = 0; round < 200; ++round) {
    const bool distance = round % 2 == 1;
    const uint32_t n = round == 0 ? 288 : distance ? 1 + rng() % 30 : 257 + rng() % 29;
    std::vector<uint8_t> lengths(n, 0);
    if (round == 0) {
      for (uint32_t s = 0; s < n; ++s) lengths[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
    } else {
      // Kraft sum built up to exactly 1 in units of 2^-15: each symbol takes a random length that
      // still fits; the rest is filled with the longest codes.
      uint32_t left = 1u << 15;
      for (uint32_t s = 0; s < n && left > 0; ++s) {
        if (rng() % 3 == 0) continue;
        uint32_t len = 1 + rng() % 15;
        while ((1u << (15 - len)) > left) ++len;
        lengths[s] = static_cast<uint8_t>(len);
        left -= 1u << (15 - len);
      }
      for (uint32_t s = 0; s < n && left > 0; ++s) {
        if (lengths[s] == 0) {
          lengths[s] = 15;
          left -= 1;
        }
      }
      if (left != 0) continue;  // not enough symbols to complete the code
    }
    const auto alphabet =
        distance ? gpu::HuffmanAlphabet::distance : gpu::HuffmanAlphabet::literal_length;
    // Distance codes in the distance table (its primary table resolves fewer bits), and also
    // in a literal/length-sized one.
    const auto compare = [&]<class Table>(Table*) {
      auto built = std::make_unique<Table>();
      auto filled = std::make_unique<Table>();
      ASSERT_EQ(gpu::build_huffman(*built, lengths.data(), n, false, alphabet),
                gpu::HuffmanBuild::ok);
      ASSERT_EQ(gpu::build_huffman(*filled, lengths.data(), n, false, alphabet, 0),
                gpu::HuffmanBuild::ok);
      for (uint32_t lane = 0; lane < 32; ++lane) {
        gpu::huffman_fill_fast(*filled, alphabet, lane, 32);
      }
      for (uint32_t b = 0; b < (1u << Table::kFastBits); ++b) {
        ASSERT_EQ(filled->fast[b], built->fast[b]) << "round " << round << " entry " << b;
      }
    };
    compare(static_cast<gpu::HuffmanTable*>(nullptr));
    if (distance) compare(static_cast<gpu::DistanceTable*>(nullptr));
  }
}

// Checksums --------------------------------------------------------------------------------------

TEST(InflateFormat, ChecksumsMatchZlib) {
  for (const auto& input : test::input_families({0, 1, 100, 5552, 5553, 70000})) {
    const auto* p = input.bytes.data();
    const uInt n = static_cast<uInt>(input.bytes.size());
    EXPECT_EQ(gpu::crc32(p, n, crc_table()), ::crc32(0, p, n)) << input.name;
    EXPECT_EQ(gpu::adler32(p, n), ::adler32(1, p, n)) << input.name;
    // Split into pieces and combined.
    uint32_t crc_acc = 0, a_part = 0, b_part = 0;
    for (uint64_t begin = 0; begin < n; begin += 997) {
      const uint64_t len = std::min<uint64_t>(997, n - begin);
      const uint64_t after = n - begin - len;
      crc_acc ^= gpu::crc32_shift(gpu::crc32_update(0, p + begin, len, crc_table()), after);
      const auto piece = gpu::adler32_piece(p + begin, len);
      a_part = (a_part + piece.s) % gpu::kAdlerModulus;
      b_part = (b_part + gpu::adler32_b_contribution(piece, after)) % gpu::kAdlerModulus;
    }
    EXPECT_EQ(gpu::crc32_finish(crc_acc, n), ::crc32(0, p, n)) << input.name;
    EXPECT_EQ(gpu::adler32_finish(a_part, b_part, n), ::adler32(1, p, n)) << input.name;
  }
}

TEST(InflateFormat, LyingTrailersAndHeaders) {
  const Bytes input = test::smooth_float32_input(10000, 8);
  // gzip: CRC, ISIZE; zlib: Adler-32.
  for (size_t from_end : {8u, 5u, 4u, 1u}) {
    Bytes g = zlib_compress(input, 6, DeflateWrapper::gzip);
    g[g.size() - from_end] ^= 0x40;
    EXPECT_EQ(inflate_exact(g, input.size(), DeflateWrapper::gzip).result.status,
              DeviceChunkStatus::checksum_mismatch)
        << from_end;
    EXPECT_EQ(inflate_exact(g, input.size(), DeflateWrapper::gzip, false).result.status,
              DeviceChunkStatus::ok);
  }
  for (size_t from_end : {4u, 1u}) {
    Bytes z = zlib_compress(input, 6, DeflateWrapper::zlib);
    z[z.size() - from_end] ^= 0x02;
    EXPECT_EQ(inflate_exact(z, input.size(), DeflateWrapper::zlib).result.status,
              DeviceChunkStatus::checksum_mismatch);
    EXPECT_EQ(inflate_exact(z, input.size(), DeflateWrapper::zlib, false).result.status,
              DeviceChunkStatus::ok);
  }
  // Headers: zlib method, window size, FCHECK; gzip magic, method, reserved flags, a length of
  // FEXTRA past the input, a name without its terminating zero.
  const Bytes z = zlib_compress(input, 6, DeflateWrapper::zlib);
  auto zlib_status = [&](size_t at, unsigned char value) {
    Bytes bad = z;
    bad[at] = value;
    return inflate_exact(bad, input.size(), DeflateWrapper::zlib).result.status;
  };
  EXPECT_EQ(zlib_status(0, 0x79), DeviceChunkStatus::corrupt_input);      // CM 9
  EXPECT_EQ(zlib_status(0, 0x88), DeviceChunkStatus::corrupt_input);      // CINFO 8
  EXPECT_EQ(zlib_status(1, z[1] ^ 1), DeviceChunkStatus::corrupt_input);  // FCHECK
  const Bytes g = zlib_compress(input, 6, DeflateWrapper::gzip);
  auto gzip_status = [&](size_t at, unsigned char value) {
    Bytes bad = g;
    bad[at] = value;
    return inflate_exact(bad, input.size(), DeflateWrapper::gzip).result.status;
  };
  EXPECT_EQ(gzip_status(0, 0x1E), DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(gzip_status(1, 0x8C), DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(gzip_status(2, 7), DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(gzip_status(3, 0x20), DeviceChunkStatus::corrupt_input);
  const Bytes extra_past_end = {0x1F, 0x8B, 8, 0x04, 0, 0, 0, 0, 0, 3, 0xFF, 0xFF, 1, 2};
  EXPECT_EQ(inflate_exact(extra_past_end, 10, DeflateWrapper::gzip).result.status,
            DeviceChunkStatus::corrupt_input);
  const Bytes unterminated = {0x1F, 0x8B, 8, 0x08, 0, 0, 0, 0, 0, 3, 'a', 'b'};
  EXPECT_EQ(inflate_exact(unterminated, 10, DeflateWrapper::gzip).result.status,
            DeviceChunkStatus::corrupt_input);
  // The output is too small for the data.
  EXPECT_EQ(inflate_exact(g, input.size() - 1, DeflateWrapper::gzip).result.status,
            DeviceChunkStatus::output_too_small);
}

// Hostile input ----------------------------------------------------------------------------------

/// zlib's verdict on a whole stream: ok (and the bytes) or not.
struct ZlibVerdict {
  bool ok = false;
  bool trailing = false;  // it ended before the input did
  Bytes bytes;
};

ZlibVerdict zlib_inflate(const Bytes& stream, uint64_t capacity, int window_bits) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, window_bits), Z_OK);
  ZlibVerdict v;
  v.bytes.resize(capacity + 1);
  z.next_in = const_cast<Bytef*>(stream.data());
  z.avail_in = static_cast<uInt>(stream.size());
  z.next_out = v.bytes.data();
  z.avail_out = static_cast<uInt>(capacity);
  const int rc = inflate(&z, Z_FINISH);
  v.ok = rc == Z_STREAM_END;
  v.trailing = z.avail_in != 0;
  v.bytes.resize(z.total_out);
  inflateEnd(&z);
  return v;
}

TEST(InflateFormat, DistanceCodesLongerThanThePrimaryTable) {
  // Distance codes of 1 to 15 bits, each used, in three dynamic blocks: the codes of more than
  // kDistanceFastBits bits take the canonical search, in the step-by-step and batched decoders.
  const test::HandMadeDeflate made = test::long_distance_code_stream(3, 40);
  const ZlibVerdict z = zlib_inflate(made.stream, made.decoded.size(), test::kRawBits);
  ASSERT_TRUE(z.ok);
  ASSERT_TRUE(z.bytes == made.decoded);
  expect_decodes(made.stream, made.decoded, DeflateWrapper::raw, "long distance codes");
}

TEST(InflateFormat, TruncatedStreamsFail) {
  for (const auto& input : test::input_families({1, 300, 20000})) {
    for (DeflateWrapper w : kWrappers) {
      for (int level : {0, 1, 9}) {
        const Bytes stream = zlib_compress(input.bytes, level, w);
        // Every cut for short streams, about 200 evenly spread cuts otherwise.
        const size_t step = std::max<size_t>(1, stream.size() / 200);
        for (size_t cut = 0; cut < stream.size(); cut += step) {
          const Bytes truncated(stream.begin(), stream.begin() + cut);
          const auto r = inflate_exact(truncated, input.bytes.size(), w).result;
          ASSERT_NE(r.status, DeviceChunkStatus::ok)
              << input.name << " " << name_of(w) << " level " << level << " cut " << cut;
        }
      }
    }
  }
}

TEST(InflateFormat, DamagedStreamsNeverOverrunAndAgreeWithZlib) {
  std::mt19937 rng(17);
  int both_accepted = 0, compared = 0;
  for (const auto& input : test::input_families({100, 1000, 30000})) {
    for (DeflateWrapper w : kWrappers) {
      for (int level : {1, 6}) {
        const Bytes stream = zlib_compress(input.bytes, level, w);
        for (int trial = 0; trial < 40; ++trial) {
          Bytes damaged = stream;
          const int kind = trial % 4;
          if (kind == 0) {  // flip a few bits
            for (int k = 0; k <= trial % 3; ++k) damaged[rng() % damaged.size()] ^= 1u << rng() % 8;
          } else if (kind == 1) {  // overwrite bytes
            for (int k = 0; k <= trial % 5; ++k)
              damaged[rng() % damaged.size()] = static_cast<unsigned char>(rng());
          } else if (kind == 2) {  // a random run in the body
            const size_t at = rng() % damaged.size();
            for (size_t k = at; k < std::min(damaged.size(), at + 1 + rng() % 20); ++k)
              damaged[k] = static_cast<unsigned char>(rng());
          } else {  // cut and damage
            damaged.resize(1 + rng() % damaged.size());
            damaged[rng() % damaged.size()] ^= 0x10;
          }
          const uint64_t capacity = input.bytes.size() + (trial % 7 == 0 ? 100 : 0) -
                                    (trial % 11 == 0 ? std::min<size_t>(input.bytes.size(), 3) : 0);
          const Decoded ours = inflate_exact(damaged, capacity, w);
          const ZlibVerdict ref = zlib_inflate(damaged, capacity, window_bits_of(w));
          if (w == DeflateWrapper::gzip && ref.ok && ref.trailing) continue;  // see gzip wrapper
          ++compared;
          ASSERT_EQ(ours.result.status == DeviceChunkStatus::ok, ref.ok)
              << input.name << " " << name_of(w) << " level " << level << " trial " << trial
              << " status " << static_cast<int>(ours.result.status);
          if (ref.ok) {
            ++both_accepted;
            ASSERT_TRUE(ours.bytes == ref.bytes) << input.name << " trial " << trial;
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 3000);
  EXPECT_GT(both_accepted, 20);  // damage zlib accepts too (e.g. in gzip's MTIME)
}

TEST(InflateFormat, RandomBytesNeverOverrun) {
  std::mt19937 rng(23);
  for (int trial = 0; trial < 3000; ++trial) {
    Bytes junk(1 + rng() % 600);
    for (auto& b : junk) b = static_cast<unsigned char>(rng());
    if (trial % 3 == 0) junk[0] = static_cast<unsigned char>((junk[0] & ~7u) | 4u | (rng() & 1));
    const DeflateWrapper w = kWrappers[trial % 3];
    const Decoded ours = inflate_exact(junk, rng() % 5000, w);
    if (w == DeflateWrapper::raw) continue;
    // Random bytes virtually never pass a zlib / gzip header and checksum.
    EXPECT_NE(ours.result.status, DeviceChunkStatus::ok) << trial;
  }
}

}  // namespace
}  // namespace cuzarr
