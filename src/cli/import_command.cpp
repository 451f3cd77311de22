// `cuzarr import`: writes a .npy file as a new Zarr array (v3, or v2 with --zarr-format 2).
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "codec_option.hpp"
#include "command.hpp"
#include "cuzarr/cuzarr.hpp"
#include "cuzarr/metadata/data_type_json.hpp"
#include "cuzarr/metadata/json_document.hpp"
#include "npy_file.hpp"
#include "staged_replacement.hpp"
#include "string_arrays.hpp"

namespace cuzarr::cli {
namespace {

/// --fill-value: JSON when it parses; numpy/Python spellings of special values are accepted too.
nlohmann::json parse_fill_value_option(const std::string& text) {
  if (text == "nan" || text == "NaN") return "NaN";
  if (text == "inf" || text == "+inf" || text == "Infinity") return "Infinity";
  if (text == "-inf" || text == "-Infinity") return "-Infinity";
  if (text == "True") return true;
  if (text == "False") return false;
  auto parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return text;  // e.g. a hex bit pattern "0x7fc00000"
  return parsed;
}

/// Adapts a fill value to `dtype` the way a user means it: no value is the type's zero, a number
/// for a bool is false/true, a real value for a complex type is [value, 0].
nlohmann::json fill_value_for(const std::optional<nlohmann::json>& value, const DataType& dtype) {
  if (!value) {
    // The extension types: null asks for the type's zero ("" for strings, 0 for times).
    if (dtype.is_extension_float() || dtype.is_time() || dtype.is_fixed_length_bytes() ||
        dtype.is_variable_length())
      return nullptr;
    if (dtype.kind() == DataTypeKind::boolean) return false;
    if (dtype.is_complex()) return nlohmann::json::array({0.0, 0.0});
    if (dtype.kind() == DataTypeKind::raw) return nlohmann::json(std::vector<int>(dtype.size(), 0));
    return 0;
  }
  if (dtype.kind() == DataTypeKind::boolean && value->is_number()) return *value != 0;
  if (dtype.is_complex() && (value->is_number() || value->is_string()))
    return nlohmann::json::array({*value, 0.0});
  return *value;
}

/// `data` seen as the data type `text` names (a v3 name or data_type JSON), of the same size.
NDBuffer reinterpreted(const NDBuffer& data, const std::string& text) {
  auto parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  const DataType dtype = data_type_from_json(parsed.is_discarded() ? nlohmann::json(text) : parsed);
  if (dtype.is_variable_length() || data.dtype().is_variable_length() ||
      dtype.size() != data.dtype().size()) {
    throw InvalidArgumentError(fmt::format(
        "--data-type {}: elements of {} bytes cannot be reinterpreted as {} (expected {} bytes "
        "of a fixed-size type)",
        text, data.dtype().size(), dtype.description(), data.dtype().size()));
  }
  return NDBuffer(data.buffer(), dtype, data.shape(), data.byte_strides(), data.byte_offset());
}

class ImportCommand final : public Command {
 public:
  explicit ImportCommand(CLI::App& app)
      : Command(app.add_subcommand("import", "Write a .npy file as a new Zarr array")) {
    subcommand_->add_option("input", input_, "The .npy file to read (format 1.0, 2.0 or 3.0)")
        ->required();
    subcommand_->add_option("path", path_, "Directory to write the Zarr array to")->required();
    subcommand_
        ->add_option("--chunks", chunks_, "Chunk shape, e.g. 64,64 (default: the whole array)")
        ->delimiter(',')
        ->allow_extra_args(false);
    subcommand_
        ->add_option(
            "--shards", shards_,
            "Shard shape, e.g. 256,256: store shards (sharding_indexed) of --chunks inner chunks")
        ->delimiter(',')
        ->allow_extra_args(false);
    subcommand_
        ->add_option(
            "--codec", codecs_,
            "A codec, in order (repeat the option): zstd, \"zstd:level=3,checksum=true\", "
            "gzip:level=5, "
            "\"blosc:cname=lz4,clevel=5,shuffle=shuffle\", crc32c, \"transpose:order=1,0\", "
            "bytes:endian=big, or a JSON codec object. Default: bytes, zstd")
        ->allow_extra_args(false);
    subcommand_->add_option("--fill-value", fill_value_,
                            "Fill value (JSON, or nan/inf/-inf); default 0");
    subcommand_->add_option("--attributes", attributes_, "Attributes as a JSON object");
    subcommand_->add_option("--dimension-names", dimension_names_, "Dimension names, e.g. y,x")
        ->delimiter(',')
        ->allow_extra_args(false);
    subcommand_
        ->add_option(
            "--zarr-format", zarr_format_,
            "3 (zarr.json, the default) or 2 (.zarray: the codecs must be ones v2 can hold: "
            "filters, bytes, one compressor; --chunk-separator sets its separator)")
        ->check(CLI::IsMember({2, 3}));
    subcommand_
        ->add_option("--chunk-separator", chunk_separator_,
                     "With --zarr-format 2: the chunk key separator, \".\" (default) or \"/\"")
        ->check(CLI::IsMember({".", "/"}));
    subcommand_->add_flag("--overwrite", overwrite_, "Replace an existing array or group at PATH");
    subcommand_->add_option(
        "--data-type", data_type_,
        "Store the elements as this Zarr data type instead of the .npy's, reinterpreting their "
        "bytes (same size): a name such as bfloat16 or float8_e4m3fn (save the bits as <u2 / "
        "|u1), or a data_type JSON object");
    subcommand_->add_flag("--variable-length", variable_length_,
                          "Store <U data as the variable-length string type (vlen-utf8) and |S "
                          "data as variable_length_bytes (vlen-bytes), trailing zeros removed");
  }

  int run() override {
    NDBuffer data = read_npy(input_);
    if (variable_length_) data = to_variable_length(data);
    if (!data_type_.empty()) data = reinterpreted(data, data_type_);
    ArrayCreateOptions options;
    options.shape = data.shape();
    options.data_type = data.dtype();
    options.chunk_shape = chunks_;
    if (!shards_.empty()) options.shard_shape = shards_;
    if (!codecs_.empty()) {
      std::vector<CodecSpec> specs;
      for (const auto& text : codecs_) specs.push_back(parse_codec_option(text));
      options.codecs = complete_codec_list(std::move(specs), data.dtype());
    }
    // No --fill-value: the type's zero (v3 needs it spelled out in the type's JSON form; v2
    // metadata takes null for it).
    options.fill_value =
        fill_value_.empty() && zarr_format_ == 2
            ? nlohmann::json()
            : fill_value_for(fill_value_.empty() ? std::nullopt
                                                 : std::optional<nlohmann::json>(
                                                       parse_fill_value_option(fill_value_)),
                             data.dtype());
    if (!attributes_.empty()) {
      options.attributes = parse_json_document(attributes_, "--attributes");
      if (!options.attributes.is_object())
        throw InvalidArgumentError("--attributes must be a JSON object");
    }
    if (!dimension_names_.empty()) {
      std::vector<std::optional<std::string>> names(dimension_names_.begin(),
                                                    dimension_names_.end());
      options.dimension_names = std::move(names);
    }
    options.overwrite = overwrite_;
    options.zarr_format = zarr_format_;
    if (!chunk_separator_.empty()) {
      if (zarr_format_ != 2) throw InvalidArgumentError("--chunk-separator needs --zarr-format 2");
      options.chunk_key_encoding = {ChunkKeyEncoding::Kind::v2, chunk_separator_[0]};
    }

    StagedReplacement target(path_, overwrite_);  // an array replaced only once written
    auto store = open_store(target.write_path(), /*create=*/true);
    Array array = Array::create(store, "", options);
    array.write(Selection{}, data);
    target.commit();
    return 0;
  }

 private:
  std::string input_;
  std::string path_;
  std::vector<int64_t> chunks_;
  std::vector<int64_t> shards_;
  std::vector<std::string> codecs_;
  std::string fill_value_;
  std::string attributes_;
  std::vector<std::string> dimension_names_;
  bool overwrite_ = false;
  int zarr_format_ = 3;
  std::string chunk_separator_;
  bool variable_length_ = false;
  std::string data_type_;
};

}  // namespace

std::unique_ptr<Command> add_import_command(CLI::App& app) {
  return std::make_unique<ImportCommand>(app);
}

}  // namespace cuzarr::cli
