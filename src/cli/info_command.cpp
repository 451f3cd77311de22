// `cuzarr info`: what an array or group is and how it is stored.
#include <fmt/format.h>

#include <string>

#include "command.hpp"
#include "cuzarr/codec/codec_chain.hpp"
#include "cuzarr/cuzarr.hpp"
#include "cuzarr/metadata/json_document.hpp"
#include "node_location.hpp"

namespace cuzarr::cli {
namespace {

std::string human_bytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, units[unit]);
}

/// The inner chunk shape when the array is sharded (sharding spec: configuration.chunk_shape).
nlohmann::json inner_chunk_shape(const ArrayMetadata& metadata) {
  for (const auto& codec : metadata.codecs) {
    if (codec.name == "sharding_indexed" && codec.configuration.contains("chunk_shape")) {
      return codec.configuration["chunk_shape"];
    }
  }
  return nullptr;
}

/// Whether cuzarr can decode the array's chunks: null when its codec chain builds, else why not
/// (an unknown codec, a configuration it refuses), as a read would report it.
nlohmann::json codec_problem(const ArrayMetadata& metadata) {
  try {
    CodecChain::create(
        metadata.codecs,
        ChunkRepresentation{metadata.chunk_shape, metadata.data_type, metadata.fill_value});
    return nullptr;
  } catch (const Error& e) {
    return e.what();
  }
}

nlohmann::json array_info(const std::string& path, const Array& array) {
  const ArrayMetadata& metadata = array.metadata();
  nlohmann::json document = metadata.to_json();
  ArrayStorageInfo storage = array.storage_info();
  int64_t chunk_bytes =
      byte_count(metadata.chunk_shape, static_cast<int64_t>(metadata.data_type.size()));
  uint64_t uncompressed =
      static_cast<uint64_t>(storage.chunks_stored) * static_cast<uint64_t>(chunk_bytes);

  nlohmann::json info;
  info["path"] = path;
  info["node_type"] = "array";
  info["zarr_format"] = metadata.zarr_format;
  info["shape"] = metadata.shape;
  info["data_type"] = metadata.data_type.description();
  info["chunk_shape"] = metadata.chunk_shape;
  nlohmann::json inner = inner_chunk_shape(metadata);
  if (!inner.is_null()) info["inner_chunk_shape"] = inner;
  info["chunk_grid_shape"] = metadata.chunk_grid_shape();
  info["chunk_grid"] = document["chunk_grid"];
  info["chunk_key_encoding"] = metadata.chunk_key_encoding.to_json();
  info["codecs"] = document.value("codecs", nlohmann::json::array());
  const nlohmann::json problem = codec_problem(metadata);
  info["codecs_readable"] = problem.is_null();
  if (!problem.is_null()) info["codec_error"] = problem;
  info["fill_value"] = document.value("fill_value", nlohmann::json());
  info["dimension_names"] = document.value("dimension_names", nlohmann::json());
  info["attributes"] = metadata.attributes;
  info["chunks_total"] = storage.chunks_total;
  info["chunks_stored"] = storage.chunks_stored;
  info["stored_bytes"] = storage.stored_bytes;
  info["array_bytes"] = byte_count(metadata.shape, static_cast<int64_t>(metadata.data_type.size()));
  info["uncompressed_bytes"] = uncompressed;
  info["compression_ratio"] = storage.stored_bytes > 0
                                  ? nlohmann::json(static_cast<double>(uncompressed) /
                                                   static_cast<double>(storage.stored_bytes))
                                  : nlohmann::json();
  return info;
}

nlohmann::json group_info(const std::string& path, const Group& group) {
  nlohmann::json info;
  info["path"] = path;
  info["node_type"] = "group";
  info["zarr_format"] = group.zarr_format();
  info["attributes"] = group.attributes();
  int arrays = 0, groups = 0;
  nlohmann::json members = nlohmann::json::array();
  for (const auto& member : group.members()) {
    (member.type == NodeType::array ? arrays : groups)++;
    members.push_back(
        {{"name", member.name}, {"node_type", member.type == NodeType::array ? "array" : "group"}});
  }
  info["members"] = members;
  info["member_arrays"] = arrays;
  info["member_groups"] = groups;
  return info;
}

void print_row(const char* label, const std::string& value) {
  fmt::print("{:<20}: {}\n", label, value);
}

/// "[40, 50]" for a JSON list of integers.
std::string list_text(const nlohmann::json& list) { return shape_to_string(list.get<Shape>()); }

void print_array_info(const nlohmann::json& info) {
  print_row("Path", info["path"].get<std::string>());
  print_row("Node type", "array");
  print_row("Zarr format", info["zarr_format"].dump());
  print_row("Shape", list_text(info["shape"]));
  print_row("Data type", info["data_type"].get<std::string>());
  print_row(info["chunk_grid"]["name"] == "regular" ? "Chunk shape" : "Largest chunk",
            list_text(info["chunk_shape"]));
  if (info.contains("inner_chunk_shape"))
    print_row("Inner chunk shape", list_text(info["inner_chunk_shape"]));
  print_row("Chunk grid",
            fmt::format("{} {} ({} chunks)", info["chunk_grid"]["name"].get<std::string>(),
                        list_text(info["chunk_grid_shape"]), info["chunks_total"].get<int64_t>()));
  print_row("Chunk key encoding", info["chunk_key_encoding"].dump());
  print_row("Codecs", info["codecs"].dump());
  print_row("Codecs readable", info["codecs_readable"].get<bool>()
                                   ? "yes"
                                   : "no: " + info["codec_error"].get<std::string>());
  print_row("Fill value", dump_json_document(info["fill_value"]));
  print_row("Dimension names",
            info["dimension_names"].is_null() ? "none" : info["dimension_names"].dump());
  print_row("Attributes", dump_json_document(info["attributes"]));
  print_row("Stored chunks", fmt::format("{} of {}", info["chunks_stored"].get<int64_t>(),
                                         info["chunks_total"].get<int64_t>()));
  auto stored = info["stored_bytes"].get<uint64_t>();
  auto uncompressed = info["uncompressed_bytes"].get<uint64_t>();
  auto array_bytes = info["array_bytes"].get<uint64_t>();
  print_row("Stored bytes", fmt::format("{} ({})", stored, human_bytes(stored)));
  print_row("Uncompressed bytes",
            fmt::format("{} ({}, of stored chunks)", uncompressed, human_bytes(uncompressed)));
  print_row("Array bytes", fmt::format("{} ({})", array_bytes, human_bytes(array_bytes)));
  print_row("Compression ratio",
            info["compression_ratio"].is_null()
                ? "n/a"
                : fmt::format("{:.2f}", info["compression_ratio"].get<double>()));
}

void print_group_info(const nlohmann::json& info) {
  print_row("Path", info["path"].get<std::string>());
  print_row("Node type", "group");
  print_row("Zarr format", info["zarr_format"].dump());
  print_row("Attributes", dump_json_document(info["attributes"]));
  print_row("Members",
            fmt::format("{} ({} arrays, {} groups)", info["members"].size(),
                        info["member_arrays"].get<int>(), info["member_groups"].get<int>()));
}

class InfoCommand final : public Command {
 public:
  explicit InfoCommand(CLI::App& app)
      : Command(app.add_subcommand(
            "info", "Show the metadata and storage statistics of an array or group")) {
    subcommand_->add_option("path", path_, "Directory of the Zarr array or group")->required();
    subcommand_->add_flag("--json", json_, "Print machine-readable JSON");
  }

  int run() override {
    NodeLocation node = open_node(path_);
    nlohmann::json info = node.type == NodeType::array ? array_info(path_, Array::open(node.store))
                                                       : group_info(path_, Group::open(node.store));
    if (json_) {
      fmt::print("{}\n", dump_json_document(info, 2));
    } else if (node.type == NodeType::array) {
      print_array_info(info);
    } else {
      print_group_info(info);
    }
    return 0;
  }

 private:
  std::string path_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> add_info_command(CLI::App& app) {
  return std::make_unique<InfoCommand>(app);
}

}  // namespace cuzarr::cli
