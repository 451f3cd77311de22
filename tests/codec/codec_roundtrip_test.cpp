// Table-driven round trips: codec chains x data types x chunk shapes. Each case encodes a batch of
// chunks (one of them a strided view), checks the encoded bytes against an independent model
// decoded with the reference libraries (zlib, libzstd, c-blosc), then decodes the batch both into
// fresh arrays and into caller-provided strided arrays.
#include <gtest/gtest.h>
#if CUZARR_HAVE_BLOSC
#include <blosc.h>
#endif
#include <zlib.h>
#include <zstd.h>

#include <bit>
#include <cstring>
#include <numeric>

#include "codec_test_arrays.hpp"
#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/codec/codec_chain.hpp"
#include "cuzarr/codec/crc32c.hpp"

namespace cuzarr::test {
namespace {

struct ChainCase {
  const char* label;
  const char* codecs;  // JSON; transpose orders "rotate"/"reverse" are resolved per rank
};

void PrintTo(const ChainCase& c, std::ostream* os) { *os << c.label; }

const ChainCase kChains[] = {
    {"bytes_le", R"([{"name":"bytes","configuration":{"endian":"little"}}])"},
    {"bytes_be", R"([{"name":"bytes","configuration":{"endian":"big"}}])"},
    {"crc32c", R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}])"},
    {"gzip",
     R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"gzip","configuration":{"level":1}}])"},
    {"zstd_be_checksum",
     R"([{"name":"bytes","configuration":{"endian":"big"}},{"name":"zstd","configuration":{"level":3,"checksum":true}}])"},
    {"zstd_negative_level",
     R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":-5}}])"},
    {"blosc_lz4_shuffle",
     R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"blosc","configuration":{"cname":"lz4","clevel":5,"shuffle":"shuffle"}}])"},
    {"blosc_zstd_bitshuffle",
     R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"blosc","configuration":{"cname":"zstd","clevel":3,"shuffle":"bitshuffle"}}])"},
    {"blosc_blosclz_noshuffle_blocksize",
     R"([{"name":"bytes","configuration":{"endian":"big"}},{"name":"blosc","configuration":{"cname":"blosclz","clevel":9,"shuffle":"noshuffle","blocksize":256}}])"},
    {"transpose_zstd",
     R"([{"name":"transpose","configuration":{"order":"rotate"}},{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd"}])"},
    {"transpose_be_gzip_crc32c",
     R"([{"name":"transpose","configuration":{"order":"reverse"}},{"name":"bytes","configuration":{"endian":"big"}},{"name":"gzip","configuration":{"level":6}},{"name":"crc32c"}])"},
    {"two_transposes_blosc_lz4hc_crc32c",
     R"([{"name":"transpose","configuration":{"order":"rotate"}},{"name":"transpose","configuration":{"order":"reverse"}},{"name":"bytes","configuration":{"endian":"little"}},{"name":"blosc","configuration":{"cname":"lz4hc","typesize":4}},{"name":"crc32c"}])"},
    {"zstd_crc32c_gzip",
     R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1}},{"name":"crc32c"},{"name":"gzip"}])"},
};

const char* const kDataTypes[] = {"bool",    "int8",    "int16",     "int32",      "int64",
                                  "uint8",   "uint16",  "uint32",    "uint64",     "float16",
                                  "float32", "float64", "complex64", "complex128", "r24"};

const Shape kShapes[] = {{1},      {7},       {1000},     {1, 1},    {3, 5},
                         {17, 31}, {1, 1, 1}, {4, 6, 10}, {2, 3, 65}};

std::vector<int64_t> resolve_order(const std::string& what, size_t rank) {
  std::vector<int64_t> order(rank);
  std::iota(order.begin(), order.end(), 0);
  if (what == "reverse") std::reverse(order.begin(), order.end());
  if (what == "rotate" && rank > 0) std::rotate(order.begin(), order.begin() + 1, order.end());
  return order;
}

nlohmann::json resolve_codecs(const char* text, size_t rank) {
  auto codecs = nlohmann::json::parse(text);
  for (auto& c : codecs) {
    if (c["name"] == "transpose")
      c["configuration"]["order"] = resolve_order(c["configuration"]["order"], rank);
  }
  return codecs;
}

// --- Reference decoders: the libraries used directly, no cuzarr code. ---

std::vector<std::byte> reference_gunzip(const std::vector<std::byte>& in, size_t expected) {
  std::vector<std::byte> out(expected + 16);
  z_stream s{};
  EXPECT_EQ(inflateInit2(&s, 15 + 16), Z_OK);
  s.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
  s.avail_in = static_cast<uInt>(in.size());
  s.next_out = reinterpret_cast<Bytef*>(out.data());
  s.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&s, Z_FINISH), Z_STREAM_END);
  EXPECT_EQ(s.avail_in, 0u) << "bytes after the gzip member";
  out.resize(s.total_out);
  inflateEnd(&s);
  return out;
}

std::vector<std::byte> reference_unzstd(const std::vector<std::byte>& in) {
  const unsigned long long size = ZSTD_getFrameContentSize(in.data(), in.size());
  EXPECT_NE(size, ZSTD_CONTENTSIZE_ERROR);
  EXPECT_NE(size, ZSTD_CONTENTSIZE_UNKNOWN) << "single-shot zstd frames record their content size";
  std::vector<std::byte> out(size);
  const size_t got = ZSTD_decompress(out.data(), out.size(), in.data(), in.size());
  EXPECT_FALSE(ZSTD_isError(got)) << ZSTD_getErrorName(got);
  EXPECT_EQ(got, size);
  return out;
}

std::vector<std::byte> reference_unblosc(const std::vector<std::byte>& in,
                                         const nlohmann::json& config, size_t elem) {
#if !CUZARR_HAVE_BLOSC
  ADD_FAILURE() << "blosc support was not built";
  (void)config;
  (void)elem;
  return in;
#else
  size_t nbytes = 0, cbytes = 0, blocksize = 0;
  blosc_cbuffer_sizes(in.data(), &nbytes, &cbytes, &blocksize);
  EXPECT_EQ(cbytes, in.size());
  size_t typesize = 0;
  int flags = 0;
  blosc_cbuffer_metainfo(in.data(), &typesize, &flags);
  const size_t expected_typesize = config.value("typesize", elem);
  if (nbytes >= expected_typesize) {
    EXPECT_EQ(typesize, expected_typesize > 255 ? 1 : expected_typesize);
  }
  EXPECT_STREQ(blosc_cbuffer_complib(in.data()),
               config.value("cname", std::string("zstd")) == "zstd"      ? "Zstd"
               : config.value("cname", std::string("zstd")) == "blosclz" ? "BloscLZ"
                                                                         : "LZ4");
  std::vector<std::byte> out(nbytes);
  if (nbytes > 0) {
    EXPECT_EQ(blosc_decompress(in.data(), out.data(), out.size()), static_cast<int>(nbytes));
  }
  return out;
#endif
}

std::vector<std::byte> reference_strip_crc32c(const std::vector<std::byte>& in) {
  EXPECT_GE(in.size(), 4u);
  std::vector<std::byte> payload(in.begin(), in.end() - 4);
  uint32_t stored = 0;
  for (int b = 0; b < 4; ++b) stored |= std::to_integer<uint32_t>(in[in.size() - 4 + b]) << (8 * b);
  EXPECT_EQ(stored, crc32c_software(payload));
  return payload;
}

class CodecRoundTrip : public ::testing::TestWithParam<std::tuple<ChainCase, const char*, Shape>> {
};

TEST_P(CodecRoundTrip, EncodesToTheModelAndDecodesBack) {
  ASSERT_EQ(std::endian::native, std::endian::little)
      << "the model below assumes a little-endian host";
  const auto& [chain_case, dtype_name, shape] = GetParam();
  if (std::string_view(chain_case.codecs).find("\"blosc\"") != std::string_view::npos &&
      !BloscCodec::available())
    GTEST_SKIP() << "blosc support was not built";
  const DataType dtype = DataType::from_name(dtype_name);
  const auto rep = representation(dtype, shape);
  const auto codecs = resolve_codecs(chain_case.codecs, shape.size());
  auto chain = CodecChain::create(parse_specs(codecs), rep);

  // A batch of three chunks; the middle one is a strided view.
  constexpr size_t kBatch = 3;
  std::vector<NDBuffer> arrays;
  for (uint32_t i = 0; i < kBatch; ++i) arrays.push_back(make_array(dtype, shape, 1000 * i + 7));
  arrays[1] = strided_copy(arrays[1]);
  ASSERT_TRUE(same_elements(arrays[1], make_array(dtype, shape, 1007)));

  std::vector<Buffer> encoded(kBatch);
  std::vector<ChunkStatus> status(kBatch);
  chain->encode(arrays, encoded, status);
  for (size_t i = 0; i < kBatch; ++i) ASSERT_TRUE(status[i].ok) << status[i].message;

  const auto fixed = chain->fixed_encoded_size(rep);
  for (size_t i = 0; i < kBatch; ++i) {
    // Model of the bytes codec output: naive transpositions, then byte swapping.
    std::vector<std::byte> model = c_order_bytes(arrays[i]);
    Shape model_shape = shape;
    std::vector<nlohmann::json> b2b;
    bool past_a2b = false;
    for (const auto& c : codecs) {
      if (c["name"] == "transpose") {
        auto order = c["configuration"]["order"].get<std::vector<int64_t>>();
        model = transpose_bytes(model, model_shape, order, dtype.size());
        Shape next(order.size());
        for (size_t d = 0; d < order.size(); ++d)
          next[d] = model_shape[static_cast<size_t>(order[d])];
        model_shape = next;
      } else if (c["name"] == "bytes") {
        if (c["configuration"]["endian"] == "big") model = swap_units(model, dtype.endian_unit());
        past_a2b = true;
      } else {
        ASSERT_TRUE(past_a2b);
        b2b.push_back(c);
      }
    }
    // Undo the bytes -> bytes codecs with the reference libraries.
    std::vector<std::byte> bytes(encoded[i].data(), encoded[i].data() + encoded[i].size());
    if (fixed) {
      EXPECT_EQ(static_cast<int64_t>(bytes.size()), *fixed);
    }
    for (auto it = b2b.rbegin(); it != b2b.rend(); ++it) {
      const std::string name = (*it)["name"];
      if (name == "gzip") bytes = reference_gunzip(bytes, model.size() + 64);
      if (name == "zstd") bytes = reference_unzstd(bytes);
      if (name == "blosc")
        bytes = reference_unblosc(bytes, it->value("configuration", nlohmann::json::object()),
                                  dtype.size());
      if (name == "crc32c") bytes = reference_strip_crc32c(bytes);
    }
    EXPECT_EQ(bytes, model) << "chunk " << i << ": encoded bytes differ from the model";
  }

  // Decode into fresh arrays.
  std::vector<NDBuffer> decoded(kBatch);
  status.assign(kBatch, {});
  chain->decode(encoded, decoded, status);
  for (size_t i = 0; i < kBatch; ++i) {
    ASSERT_TRUE(status[i].ok) << status[i].message;
    EXPECT_TRUE(same_elements(decoded[i], arrays[i])) << "chunk " << i;
  }

  // Decode into caller-provided arrays, one of them strided: the arrays are filled in place.
  std::vector<NDBuffer> targets{NDBuffer::allocate(dtype, shape),
                                strided_copy(make_array(dtype, shape, 99)),
                                NDBuffer::allocate(dtype, shape)};
  std::vector<const std::byte*> pointers;
  for (const auto& t : targets) pointers.push_back(t.data());
  status.assign(kBatch, {});
  chain->decode(encoded, targets, status);
  for (size_t i = 0; i < kBatch; ++i) {
    ASSERT_TRUE(status[i].ok) << status[i].message;
    EXPECT_EQ(targets[i].data(), pointers[i]) << "chunk " << i << " was not decoded in place";
    EXPECT_TRUE(same_elements(targets[i], arrays[i])) << "chunk " << i;
  }
}

std::string case_name(const ::testing::TestParamInfo<CodecRoundTrip::ParamType>& info) {
  const auto& [chain_case, dtype_name, shape] = info.param;
  std::string name = std::string(chain_case.label) + "_" + dtype_name + "_";
  for (size_t d = 0; d < shape.size(); ++d) name += (d ? "x" : "") + std::to_string(shape[d]);
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllChains, CodecRoundTrip,
                         ::testing::Combine(::testing::ValuesIn(kChains),
                                            ::testing::ValuesIn(kDataTypes),
                                            ::testing::ValuesIn(kShapes)),
                         case_name);

}  // namespace
}  // namespace cuzarr::test
