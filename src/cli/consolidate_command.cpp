// `cuzarr consolidate`: writes the consolidated metadata of a group's hierarchy.
#include <fmt/format.h>

#include <string>

#include "command.hpp"
#include "cuzarr/cuzarr.hpp"
#include "node_location.hpp"

namespace cuzarr::cli {
namespace {

class ConsolidateCommand final : public Command {
 public:
  explicit ConsolidateCommand(CLI::App& app)
      : Command(app.add_subcommand(
            "consolidate",
            "Record the metadata of every node below a group in one document (Zarr v3: in the "
            "group's zarr.json; Zarr v2: .zmetadata), as zarr.consolidate_metadata does")) {
    subcommand_->add_option("path", path_, "Directory of the Zarr group")->required();
  }

  int run() override {
    NodeLocation node = open_node(path_);
    if (node.type != NodeType::group)
      throw InvalidArgumentError(fmt::format("\"{}\" is an array, not a group", path_));
    const size_t count = consolidate_metadata(node.store);
    fmt::print("{}: consolidated the metadata of {} node{}\n", path_, count, count == 1 ? "" : "s");
    return 0;
  }

 private:
  std::string path_;
};

}  // namespace

std::unique_ptr<Command> add_consolidate_command(CLI::App& app) {
  return std::make_unique<ConsolidateCommand>(app);
}

}  // namespace cuzarr::cli
