// The LZ4 span parser (lz4_span_parse.cuh), run on the CPU with emulated warps: the tokens a plan
// takes are exactly the serial parser's, in order, with their output positions, and a plan stops
// before a token that only the scalar parser may take. The team decoder that uses it is tested in
// lz4_warp_decode_test.cpp (every team size, damaged blocks).
#include "warp_emulator.hpp"
// The emulator must come before the device headers.
#include <gtest/gtest.h>
#include <lz4.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "codec/cuda/lz4_block_format.hpp"
#include "codec/cuda/lz4_span_parse.cuh"

namespace cuzarr::gpu {
namespace {

using Bytes = std::vector<unsigned char>;
using test::warp_emulation::kLanes;
using test::warp_emulation::run_warp;

Bytes compress(const Bytes& data, int acceleration) {
  Bytes block(LZ4_compressBound(static_cast<int>(data.size())));
  const int n = LZ4_compress_fast(
      reinterpret_cast<const char*>(data.data()), reinterpret_cast<char*>(block.data()),
      static_cast<int>(data.size()), static_cast<int>(block.size()), acceleration);
  block.resize(static_cast<size_t>(n));
  return block;
}

// A quantized field: runs of a few values, one sample in five off by a little (short sequences,
// about 2x); or bytes repeated from 1 to 300 back (matches of every length and distance).
Bytes make_data(bool quantized, size_t size, std::mt19937_64& rng) {
  Bytes d(size);
  for (size_t i = 0; i < size;) {
    if (quantized) {
      d[i] = static_cast<unsigned char>((i / 6) % 9 * 28 + (rng() % 5 == 0 ? rng() % 4 : 0));
      ++i;
    } else if (i > 300 && rng() % 4 != 0) {  // a run of 4 to 300 bytes from 1 to 300 back
      const size_t distance = 1 + rng() % 300;
      for (size_t n = 4 + rng() % 297; n > 0 && i < size; --n, ++i) d[i] = d[i - distance];
    } else {
      d[i++] = static_cast<unsigned char>(rng());
    }
  }
  return d;
}

struct SerialToken {
  uint64_t at, op;
  CopyStep step;
};

std::vector<SerialToken> serial_tokens(const Bytes& block, uint64_t capacity) {
  std::vector<SerialToken> tokens;
  uint64_t ip = 0, op = 0;
  for (;;) {
    SerialToken t{ip, op, {}};
    if (lz4_parse_sequence(block.data(), block.size(), ip, op, capacity, t.step) !=
        DeviceChunkStatus::ok) {
      return tokens;
    }
    tokens.push_back(t);
    op += t.step.literal_length + t.step.match_length;
    if (t.step.last) return tokens;
  }
}

// Plans span after span over the block, as the team's parser does; a token no plan takes is taken
// from the serial list. Checks every queued step against the serial parse; counts the tokens that
// spans took.
void plan_through(const Bytes& block, uint64_t capacity, const std::vector<SerialToken>& serial,
                  size_t& taken_by_spans) {
  auto shared = std::make_unique<detail::Lz4SpanShared>();
  auto ring = std::make_unique<detail::Lz4StepRing<1024>>();
  taken_by_spans = 0;
  size_t k = 0;  // serial index of the token at ip
  uint64_t ip = 0, op = 0;
  while (k < serial.size()) {
    ASSERT_EQ(ip, serial[k].at) << "token " << k;
    std::vector<detail::Lz4SpanPlan> plans(kLanes);
    run_warp([&](unsigned lane) {
      plans[lane] = detail::lz4_span_plan(block.data(), static_cast<uint32_t>(block.size()),
                                          static_cast<uint32_t>(ip), op, capacity, lane, *shared);
      detail::lz4_span_queue(plans[lane], *shared, op, 0, plans[lane].taken, *ring, 0, lane);
    });
    const detail::Lz4SpanPlan& plan = plans[0];
    for (unsigned lane = 1; lane < kLanes; ++lane) {
      ASSERT_EQ(plans[lane].taken, plan.taken);
      ASSERT_EQ(plans[lane].taken_bytes, plan.taken_bytes);
      ASSERT_EQ(plans[lane].next, plan.next);
    }
    ASSERT_LE(plan.taken, 1024u);
    if (plan.taken == 0) {  // the scalar parser's token
      op += serial[k].step.literal_length + serial[k].step.match_length;
      ++k;
      ip = k < serial.size() ? serial[k].at : ip;
      continue;
    }
    ASSERT_LE(k + plan.taken, serial.size());
    for (unsigned r = 0; r < plan.taken; ++r, ++k) {
      const detail::Lz4QueuedStep& q = ring->slots[r];
      const SerialToken& s = serial[k];
      ASSERT_FALSE(s.step.last) << "token " << k;
      ASSERT_EQ(q.literal_at, s.step.literal_start) << "token " << k;
      ASSERT_EQ(q.literal_length, s.step.literal_length) << "token " << k;
      ASSERT_EQ(q.match_distance, s.step.match_distance) << "token " << k;
      ASSERT_EQ(q.match_length, s.step.match_length) << "token " << k;
      ASSERT_EQ(q.output_at, s.op) << "token " << k;
    }
    op += plan.taken_bytes;
    ASSERT_EQ(op, k < serial.size() ? serial[k].op : op) << "token " << k;
    ip += plan.next;
    taken_by_spans += plan.taken;
  }
}

TEST(Lz4SpanParse, PlansTakeTheSerialParsersTokensInOrder) {
  std::mt19937_64 rng(41);
  for (const bool quantized : {true, false}) {
    for (const int acceleration : {1, 8}) {
      const Bytes data = make_data(quantized, 150000, rng);
      const Bytes block = compress(data, acceleration);
      const std::vector<SerialToken> serial = serial_tokens(block, data.size());
      ASSERT_TRUE(!serial.empty() && serial.back().step.last);
      size_t by_spans = 0;
      ASSERT_NO_FATAL_FAILURE(plan_through(block, data.size(), serial, by_spans));
      // The lanes' chains meet: nearly every token comes from a span (the last one never does).
      EXPECT_GE(by_spans * 10, serial.size() * 9) << quantized << " " << acceleration;
    }
  }
}

// The loop-free successor of every offset equals the token reader's, with every limit: on liblz4
// blocks, on random bytes, and on bytes made mostly of length nibbles of 15 and length bytes of 255
// (where the reader's loops and every stop are taken).
TEST(Lz4SpanParse, SuccessorsAreTheTokenReadersAtEveryOffset) {
  std::mt19937_64 rng(43);
  std::vector<Bytes> inputs;
  for (const bool quantized : {true, false}) {
    const Bytes block = compress(make_data(quantized, 20000, rng), 1);
    inputs.emplace_back(block.begin(), block.begin() + 2048);
  }
  Bytes random(2048), lengths(2048);
  for (unsigned char& b : random) b = static_cast<unsigned char>(rng());
  const unsigned char kinds[] = {0x00, 0x0F, 0xF0, 0xFF, 0xFF, 0xFF, 0x01, 0x10};
  for (unsigned char& b : lengths)
    b = rng() % 4 == 0 ? static_cast<unsigned char>(rng()) : kinds[rng() % 8];
  inputs.push_back(random);
  inputs.push_back(lengths);
  size_t stops = 0, long_tokens = 0, compared = 0;
  for (const Bytes& input : inputs) {
    const auto readable = static_cast<uint32_t>(input.size());
    for (const uint32_t limit :
         {uint32_t{1536}, uint32_t{1200}, uint32_t{700}, uint32_t{40}, uint32_t{3}}) {
      for (uint32_t at = 0; at + detail::kLz4SpanSuccessorReach <= readable; ++at) {
        bool long_lengths = false;
        const uint32_t short_word =
            detail::lz4_span_successor_short(input.data(), at, limit, long_lengths);
        const uint32_t expected =
            detail::lz4_span_packed(detail::lz4_span_token(input.data(), at, limit));
        if (!long_lengths) {
          ASSERT_EQ(short_word, expected) << "offset " << at << ", limit " << limit;
        }
        stops += expected == detail::kLz4SpanStop;
        long_tokens += long_lengths && expected != detail::kLz4SpanStop;
        ++compared;
      }
    }
  }
  // Both kinds of results were compared, and tokens the short reader leaves to the token reader
  // occurred.
  EXPECT_GT(stops, compared / 10);
  EXPECT_LT(stops, compared * 9 / 10);
  EXPECT_GT(long_tokens, 100u);
}

// Offsets before the output's start and outputs past the capacity end a plan before the first token
// that fails (the scalar parser then reports it), wherever in the span it lies.
TEST(Lz4SpanParse, PlansStopBeforeTheFirstFailingToken) {
  std::mt19937_64 rng(42);
  const Bytes data = make_data(true, 6000, rng);
  const Bytes block = compress(data, 1);
  const std::vector<SerialToken> serial = serial_tokens(block, data.size());
  auto shared = std::make_unique<detail::Lz4SpanShared>();
  for (const uint64_t capacity : {uint64_t{40}, uint64_t{700}, uint64_t{1500}}) {
    std::vector<detail::Lz4SpanPlan> plans(kLanes);
    run_warp([&](unsigned lane) {
      plans[lane] = detail::lz4_span_plan(block.data(), static_cast<uint32_t>(block.size()), 0, 0,
                                          capacity, lane, *shared);
    });
    // The serial parser's first failure with this capacity.
    const std::vector<SerialToken> cut = serial_tokens(block, capacity);
    ASSERT_LT(cut.size(), serial.size());
    ASSERT_LT(serial[cut.size()].at, detail::kLz4SpanBytes);  // the failing token is in the span
    EXPECT_EQ(plans[0].taken, cut.size()) << capacity;
    EXPECT_EQ(plans[0].next, serial[cut.size()].at) << capacity;
    EXPECT_EQ(plans[0].taken_bytes, serial[cut.size()].op) << capacity;
  }
  // An offset reaching before the output's start: the same block planned as if its first tokens
  // produced less output than they do.
  Bytes bad = block;
  const size_t victim = 40;
  ASSERT_LT(victim, serial.size());
  const SerialToken& v = serial[victim];
  ASSERT_LT(v.at, detail::kLz4SpanBytes);
  const size_t offset_at = v.step.literal_start + v.step.literal_length;
  const auto too_far = static_cast<uint16_t>(v.op + v.step.literal_length + 1);
  bad[offset_at] = static_cast<unsigned char>(too_far);
  bad[offset_at + 1] = static_cast<unsigned char>(too_far >> 8);
  std::vector<detail::Lz4SpanPlan> plans(kLanes);
  run_warp([&](unsigned lane) {
    plans[lane] = detail::lz4_span_plan(bad.data(), static_cast<uint32_t>(bad.size()), 0, 0,
                                        data.size(), lane, *shared);
  });
  EXPECT_EQ(plans[0].taken, victim);
  EXPECT_EQ(plans[0].next, v.at);
}

}  // namespace
}  // namespace cuzarr::gpu
