// `cuzarr cat`: reads (a selection of) an array and prints it like numpy, or saves it as .npy.
#include <fmt/format.h>

#include <string>

#include "array_printer.hpp"
#include "command.hpp"
#include "cuzarr/cuzarr.hpp"
#include "node_location.hpp"
#include "npy_file.hpp"
#include "string_arrays.hpp"

namespace cuzarr::cli {
namespace {

class CatCommand final : public Command {
 public:
  explicit CatCommand(CLI::App& app)
      : Command(app.add_subcommand("cat",
                                   "Print (a selection of) an array, or save it as a .npy file")) {
    subcommand_->add_option("path", path_, "Directory of the Zarr array")->required();
    subcommand_->add_option("--select,-s", select_,
                            "numpy-style selection, e.g. \"0:10, :, 5\" or \"..., ::-2\"");
    subcommand_->add_option("--npy", npy_,
                            "Write the selection to this .npy file instead of printing it "
                            "(string and variable_length_bytes arrays as <U / |S of their "
                            "longest value)");
    subcommand_
        ->add_option("--device", device_,
                     "Where to read into: cpu (default) or cuda (GPU memory: needs a CUDA build "
                     "and a GPU; the result is then copied to the host for output)")
        ->check(CLI::IsMember({"cpu", "cuda"}));
  }

  int run() override {
    NodeLocation node = open_node(path_);
    if (node.type != NodeType::array) {
      throw InvalidArgumentError(
          fmt::format("{} is a group; cat needs an array (see `cuzarr ls {}`)", path_, path_));
    }
    Array array = Array::open(node.store);
    Selection selection = select_.empty() ? Selection{} : parse_selection(select_);
    NDBuffer data =
        array.read(selection, device_ == "cuda" ? MemoryKind::device : MemoryKind::host);
    if (!is_host_accessible(data.kind())) {
      data = NDBuffer(data.buffer().copy_to(MemoryKind::host), data.dtype(), data.shape(),
                      data.byte_strides(), data.byte_offset());
    }
    if (!npy_.empty()) {
      write_npy(npy_, data.dtype().is_variable_length() ? to_fixed_length(data) : data);
    } else {
      fmt::print("{}\n", format_array(data));
    }
    return 0;
  }

 private:
  std::string path_;
  std::string select_;
  std::string npy_;
  std::string device_ = "cpu";
};

}  // namespace

std::unique_ptr<Command> add_cat_command(CLI::App& app) {
  return std::make_unique<CatCommand>(app);
}

}  // namespace cuzarr::cli
