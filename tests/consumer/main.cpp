// Creates a chunked, compressed array in a temporary directory with the installed cuzarr, reads
// back a strided selection and checks every value. Exits 0 on success.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzarr/cuzarr.hpp"

int main() {
  namespace fs = std::filesystem;
  fs::path directory =
      fs::temp_directory_path() / ("cuzarr-consumer-" + std::to_string(::getpid()));
  try {
    auto store = cuzarr::open_store(directory.string(), /*create=*/true);
    cuzarr::ArrayCreateOptions options;
    options.shape = {30, 20};
    options.data_type = cuzarr::DataType(cuzarr::DataTypeKind::int32);
    options.chunk_shape = {8, 6};
    options.attributes = {{"description", "consumer test"}};
    auto array = cuzarr::Array::create(store, "", options);

    auto data = cuzarr::NDBuffer::allocate(array.data_type(), array.shape());
    std::iota(data.data_as<int32_t>(), data.data_as<int32_t>() + data.size(), 0);
    array.write({}, data);

    auto reopened = cuzarr::Array::open(cuzarr::open_store(directory.string()));
    auto part = reopened.read(cuzarr::parse_selection("3:25:4, ::-5"));
    if (part.shape() != cuzarr::Shape{6, 4}) throw std::runtime_error("unexpected result shape");
    auto values = part.data_as<int32_t>();
    for (int64_t i = 0; i < 6; ++i) {
      for (int64_t j = 0; j < 4; ++j) {
        int32_t expected = static_cast<int32_t>((3 + 4 * i) * 20 + (19 - 5 * j));
        if (values[i * 4 + j] != expected) throw std::runtime_error("wrong value read back");
      }
    }
    if (reopened.attributes().at("description") != "consumer test")
      throw std::runtime_error("attributes lost");
    std::printf("cuzarr consumer: ok (%lld chunks stored)\n",
                static_cast<long long>(reopened.storage_info().chunks_stored));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzarr consumer: %s\n", e.what());
    fs::remove_all(directory);
    return 1;
  }
  fs::remove_all(directory);
  return 0;
}
