#include "analysis/cost/price_catalog.h"

#include <gtest/gtest.h>

#include <set>

namespace kraken::cost {
namespace {

TEST(PriceCatalog, BuiltInCatalogParsesWithSourcesForEveryRow) {
  const std::vector<InstancePrice>& rows = BuiltinPriceCatalog();
  ASSERT_EQ(rows.size(), 19u);
  std::set<std::string> providers;
  for (const InstancePrice& p : rows) {
    providers.insert(p.provider);
    EXPECT_FALSE(p.source_url.empty()) << p.instance;
    EXPECT_EQ(p.source_date.size(), 10u) << p.instance;  // YYYY-MM-DD
    EXPECT_GT(p.on_demand_usd_per_hour, 0) << p.instance;
  }
  EXPECT_EQ(providers, (std::set<std::string>{"aws", "azure", "coreweave", "gcp", "lambda"}));
  // AWS p4d.24xlarge: 8 A100 40 GB, 96 vCPU, 1152 GiB, no public spot price in the catalog.
  const InstancePrice& p4d = rows[0];
  EXPECT_EQ(p4d.instance, "p4d.24xlarge");
  EXPECT_EQ(p4d.gpu_model, "a100-40gb-sxm");
  EXPECT_EQ(p4d.gpus, 8);
  EXPECT_EQ(*p4d.vcpus, 96);
  EXPECT_DOUBLE_EQ(*p4d.ram_gib, 1152);
  EXPECT_DOUBLE_EQ(p4d.on_demand_usd_per_hour, 21.957642);
  EXPECT_FALSE(p4d.spot_usd_per_hour.has_value());
  EXPECT_DOUBLE_EQ(p4d.UsdPerHour(true), 21.957642);  // spot asked, none published
  // GCP a3-highgpu-1g has a spot price.
  std::vector<InstancePrice> gcp = FilterByProvider(rows, "GCP");
  ASSERT_EQ(gcp.size(), 1u);
  EXPECT_DOUBLE_EQ(gcp[0].UsdPerHour(true), 6.571);
  EXPECT_DOUBLE_EQ(gcp[0].UsdPerHour(false), 10.9791);
  EXPECT_EQ(FilterByProvider(rows, "any").size(), rows.size());
}

TEST(PriceCatalog, ErrorsNameFileAndLine) {
  const std::string header = "provider,instance,gpu_model,gpus,on_demand_usd_per_hour,spot_usd_per_hour\n";
  auto bad_model = ParsePriceCatalog(header + "acme,x1,a100-40gb-sxm,1,2.5,\nacme,x2,b9000,1,3,\n", "mine.csv");
  ASSERT_FALSE(bad_model.ok());
  EXPECT_EQ(bad_model.status().message(),
            "mine.csv:3: gpu_model 'b9000' is not in kraken's device catalog (see `kraken devices`)");
  auto bad_price = ParsePriceCatalog("# comment\n" + header + "acme,x1,t4,1,-1,\n", "mine.csv");
  ASSERT_FALSE(bad_price.ok());
  EXPECT_EQ(bad_price.status().message(), "mine.csv:3: on_demand_usd_per_hour '-1' is not a number in [0.001, 100000]");
  auto no_column = ParsePriceCatalog("provider,instance,gpus\n", "mine.csv");
  ASSERT_FALSE(no_column.ok());
  EXPECT_EQ(no_column.status().message(), "mine.csv:1: the header has no column 'gpu_model'");
  auto fractional = ParsePriceCatalog(header + "acme,x1,t4,1.5,1,\n", "mine.csv");
  ASSERT_FALSE(fractional.ok());
  EXPECT_EQ(fractional.status().message(), "mine.csv:2: gpus must be a whole number");
  EXPECT_FALSE(ParsePriceCatalog("", "empty.csv").ok());
  auto ok = ParsePriceCatalog(header + "Acme,x1,NVIDIA T4,1,0.5,0.2\n", "mine.csv");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)[0].provider, "acme");
  EXPECT_EQ((*ok)[0].gpu_model, "t4");  // a reported name is mapped to the catalog id
  EXPECT_DOUBLE_EQ(*(*ok)[0].spot_usd_per_hour, 0.2);
}

}  // namespace
}  // namespace kraken::cost
