// The GPUDirect Storage mode: parsing, the CUZARR_GDS override, and FileStore's choice when
// device reads must not use cuFile. Reads into device memory themselves are GPU tests.
#include "cuzarr/store/gds_mode.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "cuzarr/core/error.hpp"
#include "cuzarr/store/file_store.hpp"

namespace cuzarr {
namespace {

// Sets CUZARR_GDS for one test and restores the previous value.
class GdsEnvironment {
 public:
  explicit GdsEnvironment(const char* value) {
    if (const char* old = std::getenv("CUZARR_GDS")) old_ = old;
    if (value)
      ::setenv("CUZARR_GDS", value, 1);
    else
      ::unsetenv("CUZARR_GDS");
  }
  ~GdsEnvironment() {
    if (old_)
      ::setenv("CUZARR_GDS", old_->c_str(), 1);
    else
      ::unsetenv("CUZARR_GDS");
  }

 private:
  std::optional<std::string> old_;
};

TEST(GdsMode, ParsesTheNamesInAnyCase) {
  EXPECT_EQ(parse_gds_mode("ON"), GdsMode::on);
  EXPECT_EQ(parse_gds_mode("off"), GdsMode::off);
  EXPECT_EQ(parse_gds_mode("Auto"), GdsMode::automatic);
  EXPECT_EQ(parse_gds_mode("true"), GdsMode::on);
  EXPECT_EQ(parse_gds_mode("0"), GdsMode::off);
  EXPECT_EQ(gds_mode_name(GdsMode::automatic), "auto");
  try {
    parse_gds_mode("sometimes");
    FAIL() << "no error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("sometimes"), std::string::npos);
  }
}

TEST(GdsMode, TheEnvironmentOverridesTheConfiguredMode) {
  {
    GdsEnvironment env(nullptr);
    EXPECT_EQ(effective_gds_mode(GdsMode::on), GdsMode::on);
  }
  {
    GdsEnvironment env("OFF");
    EXPECT_EQ(effective_gds_mode(GdsMode::on), GdsMode::off);
  }
  {
    GdsEnvironment env("auto");
    EXPECT_EQ(effective_gds_mode(GdsMode::off), GdsMode::automatic);
  }
  {
    GdsEnvironment env("maybe");
    try {
      effective_gds_mode(GdsMode::off);
      FAIL() << "no error";
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("CUZARR_GDS"), std::string::npos) << e.what();
    }
  }
}

TEST(GdsMode, FileStoreWithGdsOffNeverUsesCuFile) {
  GdsEnvironment env(nullptr);
  const auto root = std::filesystem::temp_directory_path() / "cuzarr_gds_off";
  FileStore store(root, true, FileStoreOptions{GdsMode::off});
  EXPECT_FALSE(store.reads_into_device());
  EXPECT_EQ(store.gds_mode(), GdsMode::off);
  std::filesystem::remove_all(root);
}

TEST(GdsMode, ModeOnWithoutCuFileIsAClearError) {
  if (gds_available()) GTEST_SKIP() << "cuFile is available on this machine";
  GdsEnvironment env(nullptr);
  const auto root = std::filesystem::temp_directory_path() / "cuzarr_gds_on";
  FileStore store(root, true, FileStoreOptions{GdsMode::on});
  try {
    (void)store.reads_into_device();
    FAIL() << "no error";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("GPUDirect Storage"), std::string::npos) << e.what();
    EXPECT_FALSE(gds_unavailable_reason().empty());
  }
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace cuzarr
