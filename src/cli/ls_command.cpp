// `cuzarr ls`: the hierarchy below a group, drawn as a tree.
#include <fmt/format.h>

#include <string>

#include "command.hpp"
#include "cuzarr/cuzarr.hpp"
#include "node_location.hpp"

namespace cuzarr::cli {
namespace {

std::string describe_array(const Array& array) {
  return fmt::format("(array {} {}, chunks {})", shape_to_string(array.shape()),
                     array.data_type().name(), shape_to_string(array.chunk_shape()));
}

/// Prints the members of `group` below a line already printed, each prefixed with `indent`.
void print_members(const Group& group, const std::string& indent) {
  auto members = group.members();
  for (size_t i = 0; i < members.size(); ++i) {
    bool last = i + 1 == members.size();
    const auto& member = members[i];
    std::string branch = indent + (last ? "└── " : "├── ");
    if (member.type == NodeType::array) {
      fmt::print("{}{} {}\n", branch, member.name, describe_array(group.open_array(member.name)));
    } else {
      fmt::print("{}{} (group)\n", branch, member.name);
      print_members(group.open_group(member.name), indent + (last ? "    " : "│   "));
    }
  }
}

class LsCommand final : public Command {
 public:
  explicit LsCommand(CLI::App& app)
      : Command(app.add_subcommand("ls", "List the arrays and groups of a hierarchy as a tree")) {
    subcommand_->add_option("path", path_, "Directory of the Zarr group (or array)")->required();
  }

  int run() override {
    NodeLocation node = open_node(path_);
    if (node.type == NodeType::array) {
      fmt::print("{} {}\n", path_, describe_array(Array::open(node.store)));
      return 0;
    }
    fmt::print("{} (group)\n", path_);
    print_members(Group::open(node.store), "");
    return 0;
  }

 private:
  std::string path_;
};

}  // namespace

std::unique_ptr<Command> add_ls_command(CLI::App& app) { return std::make_unique<LsCommand>(app); }

}  // namespace cuzarr::cli
