// numcodecs bytes->bytes codecs: reference vectors produced by numcodecs 0.16 (Python), round
// trips and corrupt input.
#include <gtest/gtest.h>

#include <numeric>

#include "codec/numcodecs_test_support.hpp"
#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/codec/numcodecs_checksum32_codec.hpp"
#include "cuzarr/codec/numcodecs_fletcher32_codec.hpp"
#include "cuzarr/codec/numcodecs_ids.hpp"
#include "cuzarr/codec/numcodecs_jenkins_lookup3_codec.hpp"

namespace cuzarr {
namespace {

using namespace numcodecs_test;
using json = nlohmann::json;

const std::string kText = "hello hello hello hello numcodecs!";
const ChunkRepresentation kTextRep = rep(DataType(DataTypeKind::uint8), {34});

// numcodecs.<id>().encode(b"hello hello hello hello numcodecs!") with default settings.
struct Vector {
  const char* name;
  json config;
  const char* hex;
};
const Vector kVectors[] = {
    {"numcodecs.lz4", json::object(), "220000006e68656c6c6f200600a06e756d636f6465637321"},
    {"numcodecs.zlib", {{"level", 1}}, "7801cb48cdc9c957c8c020f34a7393f35352938b1501dfd60cb3"},
    {"numcodecs.bz2",
     {{"level", 1}},
     "425a6831314159265359e1b37503000006918060000e478a002000310340d012a69a1e9a230b6a55025ae830c9d85"
     "99f177245385090e1b37503"},
    {"numcodecs.lzma", json::object(),
     "fd377a585a000004e6d6b4460200210116000000742fe5a3e0002100165d00341949ee8de9560c608d7c17bf37344"
     "8135dc34c8640000000a5"
     "c1e7ec01e1d27400013222bea096181fb6f37d010000000004595a"},
    {"numcodecs.gzip",
     {{"level", 1}},
     "1f8b0800a608026b04ffcb48cdc9c957c8c020f34a7393f35352938b15010fd4f20d22000000"},
    {"numcodecs.crc32", json::object(),
     "0fd4f20d68656c6c6f2068656c6c6f2068656c6c6f2068656c6c6f206e756d636f6465637321"},
    {"numcodecs.crc32",
     {{"location", "end"}},
     "68656c6c6f2068656c6c6f2068656c6c6f2068656c6c6f206e756d636f64656373210fd4f20d"},
    {"numcodecs.adler32", json::object(),
     "b30cd6df68656c6c6f2068656c6c6f2068656c6c6f2068656c6c6f206e756d636f6465637321"},
};

TEST(NumcodecsBytesCodecs, DecodeNumcodecsVectors) {
  for (const auto& v : kVectors) {
    auto codec = make<BytesToBytesCodec>(v.name, v.config, kTextRep);
    Buffer out;
    auto st = decode_one(*codec, from_hex(v.hex), out, kTextRep);
    ASSERT_TRUE(st.ok) << v.name << ": " << st.message;
    EXPECT_EQ(out.as_string_view(), kText) << v.name;
  }
}

TEST(NumcodecsBytesCodecs, EncodeMatchesNumcodecsWhereTheFormatIsDeterministic) {
  // Checksums, lz4 blocks and zlib/bz2 streams carry no timestamps; gzip and xz outputs are
  // left out (gzip stores the time, and xz depends on the liblzma build).
  for (const auto& v : kVectors) {
    const std::string name = v.name;
    if (name == "numcodecs.gzip" || name == "numcodecs.lzma") continue;
    auto codec = make<BytesToBytesCodec>(v.name, v.config, kTextRep);
    Buffer out;
    ASSERT_TRUE(encode_one(*codec, Buffer::copy_of(kText), out, kTextRep).ok) << name;
    EXPECT_EQ(to_hex(out), v.hex) << name;
  }
}

TEST(NumcodecsBytesCodecs, RoundTripEveryCodecAndSize) {
  const std::pair<const char*, json> codecs[] = {{"numcodecs.zlib", json::object()},
                                                 {"numcodecs.gzip", json::object()},
                                                 {"numcodecs.bz2", {{"level", 9}}},
                                                 {"numcodecs.lzma", json::object()},
                                                 {"numcodecs.lzma", {{"format", 2}, {"preset", 1}}},
                                                 {"numcodecs.lz4", {{"acceleration", 5}}},
                                                 {"numcodecs.shuffle", {{"elementsize", 8}}},
                                                 {"numcodecs.crc32", json::object()},
                                                 {"numcodecs.adler32", {{"location", "end"}}},
                                                 {"numcodecs.crc32c", json::object()},
                                                 {"numcodecs.fletcher32", json::object()},
                                                 {"numcodecs.jenkins_lookup3", {{"initval", 7}}}};
  for (size_t size : {size_t{0}, size_t{8}, size_t{4096}, size_t{200008}}) {
    Buffer data = Buffer::allocate(size);
    for (size_t i = 0; i < size; ++i)
      data.data()[i] = static_cast<std::byte>((i * 31 + i / 100) & 0xff);
    const auto r = rep(DataType(DataTypeKind::float64), {static_cast<int64_t>(size / 8)});
    for (const auto& [name, config] : codecs) {
      auto codec = make<BytesToBytesCodec>(name, config, r);
      Buffer enc, dec;
      auto st = encode_one(*codec, data, enc, r);
      ASSERT_TRUE(st.ok) << name << ": " << st.message;
      st = decode_one(*codec, enc, dec, r);
      ASSERT_TRUE(st.ok) << name << " size " << size << ": " << st.message;
      EXPECT_EQ(to_hex(dec), to_hex(data)) << name << " size " << size;
    }
  }
}

TEST(NumcodecsBytesCodecs, Fletcher32MatchesNumcodecs) {
  // numcodecs.Fletcher32().encode(b"abcde"): odd length exercises the trailing byte.
  auto codec = make<BytesToBytesCodec>("numcodecs.fletcher32", json::object(), kTextRep);
  Buffer out;
  ASSERT_TRUE(encode_one(*codec, Buffer::copy_of(std::string_view("abcde")), out, kTextRep).ok);
  EXPECT_EQ(to_hex(out), "6162636465c729f04f");
  // 1001 bytes (i * 7) & 255: more than one 360-word block; numcodecs' checksum is e794e48a.
  Buffer big = Buffer::allocate(1001);
  for (size_t i = 0; i < big.size(); ++i) big.data()[i] = static_cast<std::byte>((i * 7) & 255);
  EXPECT_EQ(fletcher32_hdf5(big.bytes()), 0x8ae494e7u);
}

// Checksums numcodecs 0.16.6's JenkinsLookup3 wrote for these inputs: every length of the last
// block (none, 1, 5, 12, 13 bytes), a seed, more than one block, and a prefix.
TEST(NumcodecsBytesCodecs, JenkinsLookup3MatchesNumcodecs) {
  const auto hash = [](std::string_view text, uint32_t initval) {
    return jenkins_lookup3(std::as_bytes(std::span(text.data(), text.size())), initval);
  };
  EXPECT_EQ(hash("", 0), 0xdeadbeefu);
  EXPECT_EQ(hash("a", 0), 0x58d68708u);
  EXPECT_EQ(hash("abcde", 0), 0x026d72deu);
  EXPECT_EQ(hash("abcdefghijkl", 0), 0x4012f87bu);
  EXPECT_EQ(hash("abcdefghijklm", 0), 0x928128f9u);
  EXPECT_EQ(hash("abcde", 7), 0x88c19094u);
  Buffer big = Buffer::allocate(1001);
  for (size_t i = 0; i < big.size(); ++i) big.data()[i] = static_cast<std::byte>((i * 7) & 255);
  EXPECT_EQ(jenkins_lookup3(big.bytes(), 0), 0x8cfa3fadu);
  EXPECT_EQ(jenkins_lookup3(big.bytes(), 0xdeadbeefu), 0x089f6135u);
  // The codec appends the checksum little-endian; a prefix is hashed before the data.
  auto codec = make<BytesToBytesCodec>("numcodecs.jenkins_lookup3", json::object(), kTextRep);
  Buffer out;
  ASSERT_TRUE(encode_one(*codec, Buffer::copy_of(std::string_view("abcde")), out, kTextRep).ok);
  EXPECT_EQ(to_hex(out), "6162636465de726d02");
  auto prefixed = make<BytesToBytesCodec>("numcodecs.jenkins_lookup3",
                                          {{"prefix", {'x', 'y'}}, {"initval", 0}}, kTextRep);
  ASSERT_TRUE(encode_one(*prefixed, Buffer::copy_of(std::string_view("abcde")), out, kTextRep).ok);
  EXPECT_EQ(to_hex(out), "616263646572867a5f");
  EXPECT_EQ(prefixed->to_json()["configuration"]["prefix"], json::array({'x', 'y'}));
  for (const char* config : {R"({"initval": -1})", R"({"initval": 4294967296})",
                             R"({"prefix": "xy"})", R"({"prefix": [256]})", R"({"seed": 1})"}) {
    EXPECT_THROW(
        make<BytesToBytesCodec>("numcodecs.jenkins_lookup3", json::parse(config), kTextRep),
        InvalidArgumentError)
        << config;
  }
}

// What numcodecs 0.16.6's Base64 wrote for these inputs (every length mod 3), and text it would
// not write: a length not a multiple of 4, characters outside the alphabet, misplaced padding.
TEST(NumcodecsBytesCodecs, Base64MatchesNumcodecs) {
  auto codec = make<BytesToBytesCodec>("numcodecs.base64", json::object(), kTextRep);
  for (const auto& [data, text] : std::vector<std::pair<std::string_view, std::string_view>>{
           {"", ""},
           {"hello world!x", "aGVsbG8gd29ybGQheA=="},
           {"ab", "YWI="},
           {"abc", "YWJj"},
           {std::string_view("\xff\xfe\x00", 3), "//4A"}}) {
    Buffer enc, dec;
    ASSERT_TRUE(encode_one(*codec, Buffer::copy_of(data), enc, kTextRep).ok) << text;
    EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(enc.data()), enc.size()), text);
    EXPECT_EQ(static_cast<int64_t>(enc.size()),
              codec->fixed_encoded_size(static_cast<int64_t>(data.size())));
    ASSERT_TRUE(decode_one(*codec, enc, dec, kTextRep).ok) << text;
    EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(dec.data()), dec.size()), data);
  }
  for (const char* bad : {"YWI", "YW=j", "YWJj\n", "Y*Jj", "YQ==YQ=="}) {
    Buffer dec;
    const auto st = decode_one(*codec, Buffer::copy_of(std::string_view(bad)), dec, kTextRep);
    EXPECT_FALSE(st.ok) << bad;
    EXPECT_EQ(st.code, ErrorCode::corrupt_data) << bad;
    EXPECT_NE(st.message.find("numcodecs.base64"), std::string::npos) << st.message;
  }
  EXPECT_THROW(make<BytesToBytesCodec>("numcodecs.base64", json{{"altchars", "-_"}}, kTextRep),
               InvalidArgumentError);
  // A batch whose spans differ in length is the caller's error, named with the codec.
  std::vector<Buffer> inputs(2), outputs(1);
  std::vector<ChunkStatus> statuses(2);
  try {
    codec->decode(inputs, outputs, kTextRep, statuses);
    ADD_FAILURE() << "no error for a batch of 2 inputs and 1 output";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("codec \"numcodecs.base64\": batch sizes"),
              std::string::npos)
        << e.what();
  }
}

TEST(NumcodecsBytesCodecs, ShuffleMatchesNumcodecs) {
  // numcodecs.Shuffle(elementsize=4).encode(np.arange(6, dtype='<u4') * 0x01020304)
  std::vector<uint32_t> values(6);
  for (uint32_t i = 0; i < 6; ++i) values[i] = i * 0x01020304u;
  Buffer data = Buffer::copy_of(std::as_bytes(std::span(values)));
  const auto r = rep(DataType(DataTypeKind::uint32), {6});
  auto codec =
      make<BytesToBytesCodec>("numcodecs.shuffle", json::object(), r);  // elementsize from the type
  Buffer out;
  ASSERT_TRUE(encode_one(*codec, data, out, r).ok);
  EXPECT_EQ(to_hex(out), "0004080c1014000306090c0f00020406080a000102030405");
  EXPECT_EQ(codec->to_json()["configuration"]["elementsize"], 4);
}

TEST(NumcodecsBytesCodecs, ChecksumMismatchAndTruncationFail) {
  for (const char* name : {"numcodecs.crc32", "numcodecs.adler32", "numcodecs.crc32c",
                           "numcodecs.fletcher32", "numcodecs.jenkins_lookup3"}) {
    auto codec = make<BytesToBytesCodec>(name, json::object(), kTextRep);
    Buffer enc, dec;
    ASSERT_TRUE(encode_one(*codec, Buffer::copy_of(kText), enc, kTextRep).ok);
    Buffer corrupt = Buffer::copy_of(enc.bytes());
    corrupt.data()[corrupt.size() / 2] ^= std::byte{0x10};
    auto st = decode_one(*codec, corrupt, dec, kTextRep);
    EXPECT_FALSE(st.ok) << name;
    EXPECT_EQ(st.code, ErrorCode::corrupt_data) << name;
    EXPECT_NE(st.message.find("checksum"), std::string::npos) << st.message;
    st = decode_one(*codec, enc.slice(0, 3), dec, kTextRep);
    EXPECT_FALSE(st.ok) << name;
  }
}

TEST(NumcodecsBytesCodecs, TruncatedCompressedStreamsFail) {
  for (const auto& v : kVectors) {
    const std::string name = v.name;
    if (name.find("crc32") != std::string::npos || name.find("adler32") != std::string::npos)
      continue;
    auto codec = make<BytesToBytesCodec>(v.name, v.config, kTextRep);
    Buffer full = from_hex(v.hex), dec;
    auto st = decode_one(*codec, full.slice(0, full.size() - 6), dec, kTextRep);
    EXPECT_FALSE(st.ok) << name;
    st = decode_one(*codec, Buffer(), dec, kTextRep);
    EXPECT_FALSE(st.ok) << name;
  }
}

TEST(NumcodecsBytesCodecs, Lz4HeaderClaimingHugeSizeFailsWithoutAllocating) {
  auto codec = make<BytesToBytesCodec>("numcodecs.lz4", json::object(), kTextRep);
  Buffer bad = from_hex("ffffff7f00");  // claims 2 GiB from a 1-byte block
  Buffer dec;
  auto st = decode_one(*codec, bad, dec, kTextRep);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, ErrorCode::corrupt_data);
  EXPECT_NE(st.message.find("header claims"), std::string::npos) << st.message;
  // A header claiming fewer bytes than the block holds.
  Buffer wrong = from_hex("100000006e68656c6c6f200600a06e756d636f6465637321");
  st = decode_one(*codec, wrong, dec, kTextRep);
  EXPECT_FALSE(st.ok);
  // Garbage block.
  st = decode_one(*codec, from_hex("08000000ffffffffffff"), dec, kTextRep);
  EXPECT_FALSE(st.ok);
}

TEST(NumcodecsBytesCodecs, BadConfigurationsAreRejected) {
  auto& registry = CodecRegistry::instance();
  EXPECT_THROW(registry.create(CodecSpec{"numcodecs.zlib", {{"level", 12}}}, kTextRep),
               InvalidArgumentError);
  EXPECT_THROW(registry.create(CodecSpec{"numcodecs.bz2", {{"level", 0}}}, kTextRep),
               InvalidArgumentError);
  EXPECT_THROW(registry.create(CodecSpec{"numcodecs.crc32", {{"location", "middle"}}}, kTextRep),
               InvalidArgumentError);
  EXPECT_THROW(registry.create(CodecSpec{"numcodecs.lzma", {{"format", 3}}}, kTextRep),
               UnsupportedError);
  EXPECT_THROW(
      registry.create(CodecSpec{"numcodecs.lzma", json::parse(R"({"filters": [{"id": 33}]})")},
                      kTextRep),
      UnsupportedError);
  EXPECT_THROW(registry.create(CodecSpec{"numcodecs.lz4", {{"speed", 1}}}, kTextRep),
               InvalidArgumentError);
}

TEST(NumcodecsBytesCodecs, ChecksumDefaultsFollowNumcodecs) {
  auto crc32 = make<NumcodecsChecksum32Codec>("numcodecs.crc32", json::object(), kTextRep);
  auto crc32c = make<NumcodecsChecksum32Codec>("numcodecs.crc32c", json::object(), kTextRep);
  EXPECT_EQ(crc32->location(), NumcodecsChecksum32Codec::Location::start);
  EXPECT_EQ(crc32c->location(), NumcodecsChecksum32Codec::Location::end);
  EXPECT_EQ(crc32->to_json(),
            json::parse(R"({"name":"numcodecs.crc32","configuration":{"location":"start"}})"));
}

// zarr-python 3 stores numcodecs' Zstd and Blosc in v3 metadata as "numcodecs.zstd" and
// "numcodecs.blosc" with numcodecs' configuration. 600 bytes (i * 7 % 13), encoded by numcodecs
// 0.16 as zarr-python's wrapper calls it (the chunk as bytes, so blosc's typesize is 1).
const struct {
  const char* name;
  const char* config;
  const char* hex;
} kCoreFormatVectors[] = {
    {"numcodecs.zstd", R"({"level": 3})",
     "28b52ffd605801a5000068000701080209030a040b050c06010048a09a5f"},
    {"numcodecs.blosc", R"({"cname": "lz4", "clevel": 5, "shuffle": 1})",
     "0201210158020000580200003f0000001400000027000000ff0b000701080209030a040b050c06000701080209030"
     "a040b050c061a00ffff2850050c060007"},
    {"numcodecs.blosc", R"({"cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0})",
     "02019401580200005802000069000000140000005100000028b52ffd6058013d0200540366c6cc9819336366"
     "cc8c993133d2525a4a4b69292da5a5b49496025da00b74812ed005ba4017e8a80a55a12a5485aa5015aa4255"
     "0005002838551890be01e91b90be8134bf"},
};

Buffer thirteen_pattern() {
  Buffer data = Buffer::allocate(600);
  for (size_t i = 0; i < 600; ++i) data.data()[i] = static_cast<std::byte>(i * 7 % 13);
  return data;
}

TEST(NumcodecsBytesCodecs, ZstdAndBloscUnderZarrPythonsNamesDecodeNumcodecsVectors) {
  const auto r = rep(DataType(DataTypeKind::int32), {150});
  const Buffer expected = thirteen_pattern();
  for (const auto& v : kCoreFormatVectors) {
    if (std::string(v.name) == "numcodecs.blosc" && !BloscCodec::available()) continue;  // no blosc
    auto codec = make<BytesToBytesCodec>(v.name, json::parse(v.config), r);
    Buffer out;
    auto st = decode_one(*codec, from_hex(v.hex), out, r);
    ASSERT_TRUE(st.ok) << v.name << " " << v.config << ": " << st.message;
    EXPECT_EQ(to_hex(out), to_hex(expected)) << v.name << " " << v.config;
  }
}

TEST(NumcodecsBytesCodecs, ZstdAndBloscUnderZarrPythonsNamesWriteTheCoreFormats) {
  const auto r = rep(DataType(DataTypeKind::int32), {150});
  const Buffer data = thirteen_pattern();
  const std::pair<const char*, const char*> pairs[] = {
      {R"({"name": "numcodecs.zstd", "configuration": {"level": 5, "checksum": true}})",
       R"({"name": "zstd", "configuration": {"level": 5, "checksum": true}})"},
      {R"({"name": "numcodecs.blosc", "configuration": {"cname": "lz4", "shuffle": -1}})",
       R"({"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "bitshuffle",
           "typesize": 1}})"},
      {R"({"name": "numcodecs.blosc", "configuration": {"shuffle": 1, "typesize": 4}})",
       R"({"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle",
           "typesize": 4}})"}};
  for (const auto& [wrapped, core] : pairs) {
    const json w = json::parse(wrapped), c = json::parse(core);
    if (c["name"] == "blosc" && !BloscCodec::available()) continue;  // checked where blosc is built
    auto ours = make<BytesToBytesCodec>(w["name"], w["configuration"], r);
    auto reference = make<BytesToBytesCodec>(c["name"], c["configuration"], r);
    Buffer mine, theirs, back;
    ASSERT_TRUE(encode_one(*ours, data, mine, r).ok) << wrapped;
    ASSERT_TRUE(encode_one(*reference, data, theirs, r).ok) << core;
    EXPECT_EQ(to_hex(mine), to_hex(theirs)) << wrapped;  // the same settings, the same bytes
    ASSERT_TRUE(decode_one(*reference, mine, back, r).ok) << wrapped;
    EXPECT_EQ(to_hex(back), to_hex(data)) << wrapped;
  }
}

TEST(NumcodecsBytesCodecs, BloscUnderZarrPythonsNameRefusesBadSettings) {
  auto& registry = CodecRegistry::instance();
  for (const char* config : {R"({"shuffle": 3})", R"({"shuffle": "bit"})", R"({"clevel": 10})",
                             R"({"cname": "snappy2"})", R"({"speed": 1})", R"([1])"}) {
    try {
      registry.create(CodecSpec{"numcodecs.blosc", json::parse(config)}, kTextRep);
      ADD_FAILURE() << config << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("blosc"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(registry.create(CodecSpec{"numcodecs.zstd", {{"level", 99}}}, kTextRep),
               InvalidArgumentError);
}

TEST(NumcodecsIds, MapV2IdsOntoRegisteredV3Names) {
  EXPECT_EQ(v3_name_for_numcodecs_id("zlib"), "numcodecs.zlib");
  EXPECT_EQ(v3_name_for_numcodecs_id("fixedscaleoffset"), "numcodecs.fixedscaleoffset");
  EXPECT_EQ(v3_name_for_numcodecs_id("jenkins_lookup3"), "numcodecs.jenkins_lookup3");
  EXPECT_EQ(v3_name_for_numcodecs_id("categorize"), std::nullopt);
  EXPECT_EQ(v3_name_for_numcodecs_id(""), std::nullopt);
  for (const auto& id : supported_numcodecs_ids()) {
    EXPECT_TRUE(CodecRegistry::instance().contains(*v3_name_for_numcodecs_id(id))) << id;
  }
}

}  // namespace
}  // namespace cuzarr
