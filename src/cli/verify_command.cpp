// `cuzarr verify`: decodes every stored chunk of an array (or of every array in a hierarchy) and
// reports the ones that fail.
#include <fmt/format.h>

#include <string>

#include "command.hpp"
#include "cuzarr/cuzarr.hpp"
#include "node_location.hpp"

namespace cuzarr::cli {
namespace {

struct VerifyTotals {
  int64_t arrays = 0;
  int64_t chunks_stored = 0;
  int64_t bad_chunks = 0;
};

void verify_array(const Array& array, const std::string& display_path, VerifyTotals& totals) {
  ++totals.arrays;
  totals.chunks_stored += array.storage_info().chunks_stored;
  for (const auto& problem : array.verify()) {
    ++totals.bad_chunks;
    fmt::print("BAD {}: {}: {}\n", display_path, problem.key, problem.message);
  }
}

void verify_group(const Group& group, const std::string& display_path, VerifyTotals& totals) {
  for (const auto& member : group.members()) {
    std::string child_path = display_path + "/" + member.name;
    if (member.type == NodeType::array) {
      verify_array(group.open_array(member.name), child_path, totals);
    } else {
      verify_group(group.open_group(member.name), child_path, totals);
    }
  }
}

class VerifyCommand final : public Command {
 public:
  explicit VerifyCommand(CLI::App& app)
      : Command(app.add_subcommand(
            "verify",
            "Decode every stored chunk of an array (or of all arrays below a group); "
            "exit status 1 when any fails")) {
    subcommand_->add_option("path", path_, "Directory of the Zarr array or group")->required();
  }

  int run() override {
    NodeLocation node = open_node(path_);
    VerifyTotals totals;
    if (node.type == NodeType::array) {
      verify_array(Array::open(node.store), path_, totals);
    } else {
      verify_group(Group::open(node.store), path_, totals);
    }
    fmt::print("{}: {} array{}, {} stored chunk{}, {} bad\n", totals.bad_chunks ? "FAILED" : "OK",
               totals.arrays, totals.arrays == 1 ? "" : "s", totals.chunks_stored,
               totals.chunks_stored == 1 ? "" : "s", totals.bad_chunks);
    return totals.bad_chunks ? 1 : 0;
  }

 private:
  std::string path_;
};

}  // namespace

std::unique_ptr<Command> add_verify_command(CLI::App& app) {
  return std::make_unique<VerifyCommand>(app);
}

}  // namespace cuzarr::cli
