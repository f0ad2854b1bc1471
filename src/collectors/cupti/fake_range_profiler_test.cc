// The fake libcupti (fake_range_profiler.cc, fake_profiler_host.cc) refuses what the real
// one documents as wrong, so that the counter tests guard the tracer's call order: these
// checks call it directly (dlopen, as the tracer does) and see each rule enforced.
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "base/testing/built_files.h"

namespace kraken::cupti {
namespace {

const auto kRulesContext = reinterpret_cast<CUcontext>(0x1000);  // the fake's one context

template <typename Params>
Params RulesParams(size_t struct_size) {
  Params params;
  std::memset(&params, 0, sizeof(params));
  params.structSize = struct_size;
  return params;
}

class FakeRangeProfilerRules : public ::testing::Test {
 protected:
  void SetUp() override {
    handle_ = dlopen(KRAKEN_CUPTI_FAKE_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    auto init_finished = reinterpret_cast<void (*)()>(dlsym(handle_, "kraken_fake_cuda_init_finished"));
    ASSERT_NE(init_finished, nullptr);
    init_finished();  // the profiler is initialized after cuInit
    auto init = RulesParams<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    ASSERT_EQ(Fn<decltype(&cuptiProfilerInitialize)>("cuptiProfilerInitialize")(&init), CUPTI_SUCCESS);
  }
  void TearDown() override {
    if (object_ != nullptr) {
      auto disable = RulesParams<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
      disable.pRangeProfilerObject = object_;
      EXPECT_EQ(Fn<decltype(&cuptiRangeProfilerDisable)>("cuptiRangeProfilerDisable")(&disable), CUPTI_SUCCESS);
    }
    if (handle_ != nullptr) dlclose(handle_);
  }
  template <typename F>
  F Fn(const char* name) {
    auto fn = reinterpret_cast<F>(dlsym(handle_, name));
    EXPECT_NE(fn, nullptr) << name;
    return fn;
  }
  CUptiResult Availability() {
    auto params = RulesParams<CUpti_Profiler_GetCounterAvailability_Params>(
        CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    params.ctx = kRulesContext;
    return Fn<decltype(&cuptiProfilerGetCounterAvailability)>("cuptiProfilerGetCounterAvailability")(&params);
  }
  CUptiResult Enable() {
    auto params = RulesParams<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    params.ctx = kRulesContext;
    CUptiResult result = Fn<decltype(&cuptiRangeProfilerEnable)>("cuptiRangeProfilerEnable")(&params);
    if (result == CUPTI_SUCCESS) object_ = params.pRangeProfilerObject;
    return result;
  }
  // An initialized counter data image of 4 ranges for the enabled object.
  std::vector<uint8_t> Image() {
    const char* metric = "dram__bytes_read.sum";
    auto size = RulesParams<CUpti_RangeProfiler_GetCounterDataSize_Params>(
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
    size.pRangeProfilerObject = object_;
    size.pMetricNames = &metric;
    size.numMetrics = 1;
    size.maxNumOfRanges = 4;
    size.maxNumRangeTreeNodes = 4;
    EXPECT_EQ(Fn<decltype(&cuptiRangeProfilerGetCounterDataSize)>("cuptiRangeProfilerGetCounterDataSize")(&size),
              CUPTI_SUCCESS);
    std::vector<uint8_t> image(size.counterDataSize);
    auto init = RulesParams<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    init.pRangeProfilerObject = object_;
    init.counterDataSize = image.size();
    init.pCounterData = image.data();
    EXPECT_EQ(Fn<decltype(&cuptiRangeProfilerCounterDataImageInitialize)>(
                  "cuptiRangeProfilerCounterDataImageInitialize")(&init),
              CUPTI_SUCCESS);
    return image;
  }
  CUpti_RangeProfiler_SetConfig_Params Config(std::vector<uint8_t>* image, const std::vector<uint8_t>& config) {
    auto params =
        RulesParams<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
    params.pRangeProfilerObject = object_;
    params.configSize = config.size();
    params.pConfig = config.data();
    params.counterDataImageSize = image->size();
    params.pCounterDataImage = image->data();
    params.range = CUPTI_AutoRange;
    params.replayMode = CUPTI_KernelReplay;
    params.maxRangesPerPass = 4;
    params.numNestingLevels = params.minNestingLevel = params.targetNestingLevel = 1;
    return params;
  }
  template <typename Params, typename F>
  CUptiResult OnObject(const char* name, size_t struct_size) {
    auto params = RulesParams<Params>(struct_size);
    params.pRangeProfilerObject = object_;
    return Fn<F>(name)(&params);
  }

  void* handle_ = nullptr;
  CUpti_RangeProfiler_Object* object_ = nullptr;
};

TEST_F(FakeRangeProfilerRules, CounterAvailabilityIsRefusedWhileTheRangeProfilerIsEnabled) {
  EXPECT_EQ(Availability(), CUPTI_SUCCESS);
  ASSERT_EQ(Enable(), CUPTI_SUCCESS);
  EXPECT_EQ(Availability(), CUPTI_ERROR_INVALID_OPERATION);
  EXPECT_EQ(Enable(), CUPTI_ERROR_INVALID_OPERATION);  // not twice without Disable
}

TEST_F(FakeRangeProfilerRules, AWrongStructSizeOrAPrivatePointerIsRefused) {
  auto chip = RulesParams<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE - 1);
  EXPECT_EQ(Fn<decltype(&cuptiDeviceGetChipName)>("cuptiDeviceGetChipName")(&chip), CUPTI_ERROR_INVALID_PARAMETER);
  auto params = RulesParams<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  params.ctx = kRulesContext;
  int priv = 0;
  params.pPriv = &priv;
  EXPECT_EQ(Fn<decltype(&cuptiRangeProfilerEnable)>("cuptiRangeProfilerEnable")(&params),
            CUPTI_ERROR_INVALID_PARAMETER);
}

TEST_F(FakeRangeProfilerRules, CallsOutOfOrderAreRefused) {
  using Start = decltype(&cuptiRangeProfilerStart);
  using Stop = decltype(&cuptiRangeProfilerStop);
  using Decode = decltype(&cuptiRangeProfilerDecodeData);
  // Before Enable: no range profiler object.
  EXPECT_NE((OnObject<CUpti_RangeProfiler_Start_Params, Start>("cuptiRangeProfilerStart",
                                                               CUpti_RangeProfiler_Start_Params_STRUCT_SIZE)),
            CUPTI_SUCCESS);
  ASSERT_EQ(Enable(), CUPTI_SUCCESS);
  EXPECT_EQ((OnObject<CUpti_RangeProfiler_Start_Params, Start>("cuptiRangeProfilerStart",
                                                               CUpti_RangeProfiler_Start_Params_STRUCT_SIZE)),
            CUPTI_ERROR_INVALID_OPERATION);  // not configured
  std::vector<uint8_t> image = Image();
  const std::vector<uint8_t> config(64, 0x5a);
  auto set_config = Fn<decltype(&cuptiRangeProfilerSetConfig)>("cuptiRangeProfilerSetConfig");
  auto user_range = Config(&image, config);
  user_range.range = CUPTI_UserRange;  // kernel replay is only supported in auto range
  EXPECT_EQ(set_config(&user_range), CUPTI_ERROR_INVALID_PARAMETER);
  auto nested = Config(&image, config);
  nested.numNestingLevels = 2;  // auto range: one level
  EXPECT_EQ(set_config(&nested), CUPTI_ERROR_INVALID_PARAMETER);
  auto good = Config(&image, config);
  ASSERT_EQ(set_config(&good), CUPTI_SUCCESS);
  EXPECT_EQ((OnObject<CUpti_RangeProfiler_DecodeData_Params, Decode>(
                "cuptiRangeProfilerDecodeData", CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE)),
            CUPTI_ERROR_INVALID_OPERATION);  // before Stop
  EXPECT_EQ((OnObject<CUpti_RangeProfiler_Stop_Params, Stop>("cuptiRangeProfilerStop",
                                                             CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE)),
            CUPTI_ERROR_INVALID_OPERATION);  // before Start
  ASSERT_EQ((OnObject<CUpti_RangeProfiler_Start_Params, Start>("cuptiRangeProfilerStart",
                                                               CUpti_RangeProfiler_Start_Params_STRUCT_SIZE)),
            CUPTI_SUCCESS);
  EXPECT_EQ(set_config(&good), CUPTI_ERROR_INVALID_OPERATION);  // while started
  auto stop = RulesParams<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = object_;
  ASSERT_EQ(Fn<Stop>("cuptiRangeProfilerStop")(&stop), CUPTI_SUCCESS);
  EXPECT_EQ(stop.isAllPassSubmitted, 1);  // kernel replay
  EXPECT_EQ((OnObject<CUpti_RangeProfiler_DecodeData_Params, Decode>(
                "cuptiRangeProfilerDecodeData", CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE)),
            CUPTI_SUCCESS);
}

TEST_F(FakeRangeProfilerRules, TheHostObjectNeedsMetricsBeforeItsConfigImageAndKnowsTheChipsMetrics) {
  auto host = RulesParams<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host.pChipName = "GH100";
  ASSERT_EQ(Fn<decltype(&cuptiProfilerHostInitialize)>("cuptiProfilerHostInitialize")(&host), CUPTI_SUCCESS);
  auto size = RulesParams<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = host.pHostObject;
  auto get_size = Fn<decltype(&cuptiProfilerHostGetConfigImageSize)>("cuptiProfilerHostGetConfigImageSize");
  EXPECT_EQ(get_size(&size), CUPTI_ERROR_INVALID_OPERATION);
  const char* unknown = "sm__no_such_counter.sum";
  auto add = RulesParams<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = host.pHostObject;
  add.ppMetricNames = &unknown;
  add.numMetrics = 1;
  auto add_metrics = Fn<decltype(&cuptiProfilerHostConfigAddMetrics)>("cuptiProfilerHostConfigAddMetrics");
  EXPECT_EQ(add_metrics(&add), CUPTI_ERROR_INVALID_METRIC_NAME);
  const char* known = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum";
  add.ppMetricNames = &known;
  EXPECT_EQ(add_metrics(&add), CUPTI_SUCCESS);
  EXPECT_EQ(get_size(&size), CUPTI_SUCCESS);
  auto deinit =
      RulesParams<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  deinit.pHostObject = host.pHostObject;
  auto deinitialize = Fn<decltype(&cuptiProfilerHostDeinitialize)>("cuptiProfilerHostDeinitialize");
  EXPECT_EQ(deinitialize(&deinit), CUPTI_SUCCESS);
  EXPECT_EQ(deinitialize(&deinit), CUPTI_ERROR_INVALID_PARAMETER);  // no longer live
}

}  // namespace
}  // namespace kraken::cupti
