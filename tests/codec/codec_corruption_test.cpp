// Corrupt encoded chunks through every codec chain: each must come back as a failed ChunkStatus
// (never a crash or an out-of-bounds access; the sanitizer build runs these), and a bad chunk in
// a batch must not disturb the good ones.
#include <gtest/gtest.h>

#include <random>

#include "codec_test_arrays.hpp"
#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/codec/codec_chain.hpp"

namespace cuzarr::test {
namespace {

enum class Detection { always, maybe };

struct ChainCase {
  const char* label;
  const char* codecs;
  Detection flipped;   // one byte changed in the middle
  Detection garbage;   // random bytes of the same length
  Detection appended;  // extra bytes after valid data
};

void PrintTo(const ChainCase& c, std::ostream* os) { *os << c.label; }

// The bytes codec alone cannot see a changed byte; checksummed formats always can; blosc and
// zstd without checksums can only see structural damage; blosc ignores bytes after cbytes.
const ChainCase kChains[] = {
    {"bytes", R"([{"name":"bytes","configuration":{"endian":"little"}}])", Detection::maybe,
     Detection::maybe, Detection::always},
    {"crc32c", R"([{"name":"bytes","configuration":{"endian":"big"}},{"name":"crc32c"}])",
     Detection::always, Detection::always, Detection::always},
    {"gzip",
     R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"gzip","configuration":{"level":5}}])",
     Detection::always, Detection::always, Detection::always},
    {"zstd",
     R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":3}}])",
     Detection::maybe, Detection::always, Detection::always},
    {"zstd_checksum",
     R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":3,"checksum":true}}])",
     Detection::always, Detection::always, Detection::always},
    {"blosc_lz4",
     R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"blosc","configuration":{"cname":"lz4","shuffle":"shuffle"}}])",
     Detection::maybe, Detection::maybe, Detection::maybe},
    {"blosc_zstd_bitshuffle",
     R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"blosc","configuration":{"cname":"zstd","shuffle":"bitshuffle"}}])",
     Detection::maybe, Detection::maybe, Detection::maybe},
    {"transpose_blosc_crc32c",
     R"([{"name":"transpose","configuration":{"order":[1,0]}},{"name":"bytes","configuration":{"endian":"little"}},{"name":"blosc","configuration":{"cname":"blosclz"}},{"name":"crc32c"}])",
     Detection::always, Detection::always, Detection::always},
};

struct Corruption {
  const char* label;
  std::vector<std::byte> (*apply)(std::vector<std::byte>);
  Detection ChainCase::*detection;  // null: always detected
};

const Corruption kCorruptions[] = {
    {"empty", [](std::vector<std::byte>) { return std::vector<std::byte>{}; }, nullptr},
    {"one_byte",
     [](std::vector<std::byte> v) { return std::vector<std::byte>(v.begin(), v.begin() + 1); },
     nullptr},
    {"half",
     [](std::vector<std::byte> v) {
       v.resize(v.size() / 2);
       return v;
     },
     nullptr},
    {"minus_one",
     [](std::vector<std::byte> v) {
       v.pop_back();
       return v;
     },
     nullptr},
    {"flipped_middle",
     [](std::vector<std::byte> v) {
       v[v.size() / 2] ^= std::byte{0x5A};
       return v;
     },
     &ChainCase::flipped},
    {"flipped_last",
     [](std::vector<std::byte> v) {
       v.back() ^= std::byte{0x01};
       return v;
     },
     &ChainCase::flipped},
    {"garbage", [](std::vector<std::byte> v) { return random_bytes(v.size(), 77); },
     &ChainCase::garbage},
    {"appended",
     [](std::vector<std::byte> v) {
       v.push_back(std::byte{0x1F});
       v.push_back(std::byte{0x8B});
       return v;
     },
     &ChainCase::appended},
    {"all_zeros",
     [](std::vector<std::byte> v) { return std::vector<std::byte>(v.size(), std::byte{0}); },
     &ChainCase::garbage},
    {"all_ones",
     [](std::vector<std::byte> v) { return std::vector<std::byte>(v.size() * 3, std::byte{0xFF}); },
     &ChainCase::garbage},
};

void PrintTo(const Corruption& c, std::ostream* os) { *os << c.label; }

class CodecCorruption : public ::testing::TestWithParam<std::tuple<ChainCase, Corruption>> {};

TEST_P(CodecCorruption, FailsTheChunkAndLeavesTheOthersIntact) {
  const auto& [chain_case, corruption] = GetParam();
  if (std::string_view(chain_case.codecs).find("\"blosc\"") != std::string_view::npos &&
      !BloscCodec::available())
    GTEST_SKIP() << "blosc support was not built";
  const DataType dtype(DataTypeKind::float32);
  const Shape shape{20, 33};
  const auto rep = representation(dtype, shape);
  auto chain = CodecChain::create(parse_specs(nlohmann::json::parse(chain_case.codecs)), rep);

  std::vector<NDBuffer> arrays{make_array(dtype, shape, 1), make_array(dtype, shape, 2),
                               make_array(dtype, shape, 3)};
  std::vector<Buffer> encoded(3);
  std::vector<ChunkStatus> status(3);
  chain->encode(arrays, encoded, status);
  for (const auto& s : status) ASSERT_TRUE(s.ok) << s.message;

  encoded[1] = Buffer::copy_of(corruption.apply(
      std::vector<std::byte>(encoded[1].data(), encoded[1].data() + encoded[1].size())));
  std::vector<NDBuffer> decoded(3);
  status.assign(3, {});
  chain->decode(encoded, decoded, status);

  const Detection detection =
      corruption.detection ? chain_case.*(corruption.detection) : Detection::always;
  if (detection == Detection::always) {
    EXPECT_FALSE(status[1].ok) << "corruption went unnoticed";
  }
  if (!status[1].ok) {
    EXPECT_EQ(status[1].code, ErrorCode::corrupt_data) << status[1].message;
    EXPECT_FALSE(status[1].message.empty());
  } else {
    EXPECT_EQ(decoded[1].shape(), shape);  // undetected: still a well-formed chunk
  }
  for (size_t i : {size_t{0}, size_t{2}}) {
    ASSERT_TRUE(status[i].ok) << status[i].message;
    EXPECT_TRUE(same_elements(decoded[i], arrays[i])) << "chunk " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(AllChains, CodecCorruption,
                         ::testing::Combine(::testing::ValuesIn(kChains),
                                            ::testing::ValuesIn(kCorruptions)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param).label) + "_" +
                                  std::get<1>(info.param).label;
                         });

// Many random mutations of valid streams: whatever each decodes to, it must not crash, and a
// chunk that decodes must have the right shape.
TEST(CodecCorruption, RandomMutationsNeverCrash) {
  const DataType dtype(DataTypeKind::int16);
  const Shape shape{50, 7};
  const auto rep = representation(dtype, shape);
  std::mt19937 rng(2024);
  for (const auto& chain_case : kChains) {
    // Without c-blosc the blosc chains are skipped (CodecCorruption.FailsTheChunk... says so).
    if (std::string_view(chain_case.codecs).find("\"blosc\"") != std::string_view::npos &&
        !BloscCodec::available())
      continue;
    auto chain = CodecChain::create(parse_specs(nlohmann::json::parse(chain_case.codecs)), rep);
    std::vector<NDBuffer> arrays{make_array(dtype, shape, 4)};
    std::vector<Buffer> encoded(1);
    std::vector<ChunkStatus> status(1);
    chain->encode(arrays, encoded, status);
    ASSERT_TRUE(status[0].ok) << status[0].message;
    const std::vector<std::byte> good(encoded[0].data(), encoded[0].data() + encoded[0].size());
    constexpr size_t kTrials = 64;
    std::vector<Buffer> mutated;
    for (size_t t = 0; t < kTrials; ++t) {
      auto bytes = good;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits && !bytes.empty(); ++e)
        bytes[rng() % bytes.size()] = static_cast<std::byte>(rng() & 0xFF);
      if (rng() % 4 == 0) bytes.resize(rng() % (bytes.size() + 1));
      mutated.push_back(Buffer::copy_of(bytes));
    }
    std::vector<NDBuffer> decoded(kTrials);
    std::vector<ChunkStatus> statuses(kTrials);
    chain->decode(mutated, decoded, statuses);
    for (size_t t = 0; t < kTrials; ++t) {
      if (statuses[t].ok) {
        EXPECT_EQ(decoded[t].shape(), shape) << chain_case.label;
      } else {
        EXPECT_EQ(statuses[t].code, ErrorCode::corrupt_data)
            << chain_case.label << ": " << statuses[t].message;
      }
    }
  }
}

}  // namespace
}  // namespace cuzarr::test
