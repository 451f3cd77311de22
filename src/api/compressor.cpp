#include "cuzarr/api/compressor.hpp"

namespace cuzarr {

Compressor::Compressor(CompressorOptions options) : options_(std::move(options)) {
  options_.validate();
}

CompressResult Compressor::compress(const Buffer& input, const CompressCall& call) const {
  return std::move(compress(std::span<const Buffer>(&input, 1), call).front());
}

DecompressResult Compressor::decompress(const Buffer& input, const DecompressCall& call) const {
  return std::move(decompress(std::span<const Buffer>(&input, 1), call).front());
}

}  // namespace cuzarr
