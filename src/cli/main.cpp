// The cuzarr command-line tool: inspect, print, import, copy and verify Zarr arrays.
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <vector>

#include "command.hpp"
#include "cuzarr/core/error.hpp"

int main(int argc, char** argv) {
  using namespace cuzarr::cli;
  CLI::App app{"cuzarr: inspect, print, import, copy and verify Zarr arrays", "cuzarr"};
  app.require_subcommand(1);
  std::vector<std::unique_ptr<Command>> commands;
  commands.push_back(add_info_command(app));
  commands.push_back(add_ls_command(app));
  commands.push_back(add_cat_command(app));
  commands.push_back(add_import_command(app));
  commands.push_back(add_cp_command(app));
  commands.push_back(add_verify_command(app));
  commands.push_back(add_consolidate_command(app));
  commands.push_back(add_compress_command(app));
  commands.push_back(add_decompress_command(app));
  commands.push_back(add_bench_command(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int status = app.exit(e);
    return status == 0 ? 0 : 2;  // usage errors exit with 2, like other errors
  }
  try {
    for (const auto& command : commands) {
      if (command->chosen()) return command->run();
    }
  } catch (const cuzarr::Error& e) {
    fmt::print(stderr, "cuzarr: error: {}\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "cuzarr: error: out of memory (a buffer could not be allocated)\n");
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "cuzarr: error: {}\n", e.what());
    return 2;
  }
  return 2;
}
