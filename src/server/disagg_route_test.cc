// GET /api/v1/profiles/{id}/disagg?max_slowdown=&price= on the real server over loopback
// with the real H100 BERT-base inference trace: each answer is the document the app layer
// renders for the same file and settings (what `kraken disagg --json --max-slowdown N
// --price P` prints), the budget moves the strategy, $0 is a price as on the CLI, and bad
// values get a 400 naming the parameter, with the app layer's message for a value out of range.
#include <gtest/gtest.h>
#include <simdjson.h>

#include "app/disagg_request.h"
#include "base/testing/test_data.h"
#include "importers/builtin_importers.h"
#include "importers/registry.h"
#include "server/test_server.h"
#include "server/test_upload.h"

namespace kraken::server {
namespace {

using testing::ErrorCode;
using testing::ParseJson;
using testing::TestServer;

constexpr char kBertName[] = "bert-infer.cupti.json.gz";

std::string BertPath() {
  return kraken::testing::SourceDir() + "/examples/nvidia-h100-80gb-hbm3/" + kBertName;
}

// The trace uploaded as the dashboard uploads a file; its stored id.
int64_t UploadBert(httplib::Client& client) { return testing::UploadFile(client, BertPath(), kBertName).id; }

// The document the CLI's path renders for the file itself with these settings, the file
// named as the upload names it.
std::string AppDisaggDocument(const DisaggSettings& settings) {
  auto imported = ImportFile(BuiltinImporters(), BertPath());
  EXPECT_TRUE(imported.ok() && imported->size() == 1);
  if (!imported.ok() || imported->empty()) return "";
  for (Profile& p : *imported) p.metadata.source = kBertName;
  auto setup = MakeDisaggSetup(settings);
  EXPECT_TRUE(setup.ok());
  if (!setup.ok()) return "";
  auto document = RenderDisagg(*imported, *setup, /*json=*/true);
  EXPECT_TRUE(document.ok());
  return document.ok() ? *document : "";
}

struct DisaggStrategyFields {
  std::string name;
  std::string mig_profile;
  double mig_max_slowdown = -1;
  double price_per_gpu_hour = -1;
  double savings_per_month_hi = -1;
};

DisaggStrategyFields StrategyOfDisaggBody(const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::element workload = ParseJson(parser, body)["workloads"].at(0);
  DisaggStrategyFields fields;
  std::string_view text;
  if (workload["strategy"]["name"].get(text) == simdjson::SUCCESS) fields.name = text;
  if (workload["strategy"]["mig_profile"].get(text) == simdjson::SUCCESS) fields.mig_profile = text;
  EXPECT_EQ(workload["strategy"]["mig_max_slowdown"].get(fields.mig_max_slowdown), simdjson::SUCCESS);
  EXPECT_EQ(workload["savings"]["price_per_gpu_hour"].get(fields.price_per_gpu_hour), simdjson::SUCCESS);
  EXPECT_EQ(workload["savings"]["per_month_hi"].get(fields.savings_per_month_hi), simdjson::SUCCESS);
  return fields;
}

class DisaggRouteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    client_ = server_.Client();
    base_ = "/api/v1/profiles/" + std::to_string(UploadBert(*client_)) + "/disagg";
  }
  httplib::Result Get(const std::string& query) { return client_->Get((base_ + query).c_str()); }

  TestServer server_;
  std::unique_ptr<httplib::Client> client_;
  std::string base_;
};

TEST_F(DisaggRouteTest, MaxSlowdownMovesTheStrategyAsTheCliFlagDoes) {
  auto fallback = Get("");
  ASSERT_TRUE(fallback);
  ASSERT_EQ(fallback->status, 200) << fallback->body.substr(0, 300);
  EXPECT_EQ(fallback->body, AppDisaggDocument(DisaggSettings{}));
  DisaggStrategyFields by_default = StrategyOfDisaggBody(fallback->body);
  EXPECT_NE(by_default.name, "MIG slice");
  EXPECT_DOUBLE_EQ(by_default.mig_max_slowdown, 0.10);

  auto wide = Get("?max_slowdown=1000");
  ASSERT_TRUE(wide);
  ASSERT_EQ(wide->status, 200) << wide->body.substr(0, 300);
  DisaggSettings settings;
  settings.max_slowdown_pct = 1000;
  EXPECT_EQ(wide->body, AppDisaggDocument(settings));
  DisaggStrategyFields budgeted = StrategyOfDisaggBody(wide->body);
  EXPECT_EQ(budgeted.name, "MIG slice");
  EXPECT_EQ(budgeted.mig_profile, "1g.20gb");
  EXPECT_DOUBLE_EQ(budgeted.mig_max_slowdown, 10.0);
}

TEST_F(DisaggRouteTest, PricePricesTheSavingsAsTheCliFlagDoes) {
  auto priced = Get("?price=5&max_slowdown=1000");
  ASSERT_TRUE(priced);
  ASSERT_EQ(priced->status, 200) << priced->body.substr(0, 300);
  DisaggSettings settings;
  settings.price = 5;
  settings.max_slowdown_pct = 1000;
  EXPECT_EQ(priced->body, AppDisaggDocument(settings));
  auto at_default_price = Get("?max_slowdown=1000");
  ASSERT_TRUE(at_default_price);
  DisaggStrategyFields default_priced = StrategyOfDisaggBody(at_default_price->body);
  DisaggStrategyFields five_dollars = StrategyOfDisaggBody(priced->body);
  EXPECT_DOUBLE_EQ(default_priced.price_per_gpu_hour, DisaggSettings{}.price);
  EXPECT_DOUBLE_EQ(five_dollars.price_per_gpu_hour, 5);
  ASSERT_GT(default_priced.savings_per_month_hi, 0);
  // Savings are GPU-hours freed x price: twice the default $2.50 saves twice the dollars.
  EXPECT_NEAR(five_dollars.savings_per_month_hi, 2 * default_priced.savings_per_month_hi,
              1e-9 * default_priced.savings_per_month_hi);
}

// The error message of a failed answer; "" when it has none.
std::string DisaggRouteErrorMessage(const std::string& body) {
  simdjson::dom::parser parser;
  std::string_view message;
  if (ParseJson(parser, body)["error"]["message"].get(message) != simdjson::SUCCESS) return "";
  return std::string(message);
}

TEST_F(DisaggRouteTest, ZeroPriceIsLegitimateAsOnTheCli) {
  auto free = Get("?price=0&max_slowdown=1000");
  ASSERT_TRUE(free);
  ASSERT_EQ(free->status, 200) << free->body.substr(0, 300);
  DisaggSettings settings;
  settings.price = 0;
  settings.max_slowdown_pct = 1000;
  EXPECT_EQ(free->body, AppDisaggDocument(settings));
  DisaggStrategyFields fields = StrategyOfDisaggBody(free->body);
  EXPECT_EQ(fields.price_per_gpu_hour, 0);
  EXPECT_EQ(fields.savings_per_month_hi, 0);
  // The savings are still there in GPU-hours: the slice frees part of the GPU.
  simdjson::dom::parser parser;
  double freed_hi = 0;
  ASSERT_EQ(ParseJson(parser, free->body)["workloads"].at(0)["savings"]["gpu_hours_freed_per_hour_hi"].get(freed_hi),
            simdjson::SUCCESS);
  EXPECT_GT(freed_hi, 0);
}

TEST_F(DisaggRouteTest, BadValuesAre400sNamingTheParameter) {
  for (const char* query : {"?max_slowdown=abc", "?max_slowdown=-1", "?max_slowdown=1001", "?max_slowdown=nan",
                            "?max_slowdown=", "?price=-1", "?price=abc", "?price=inf", "?price="}) {
    auto res = Get(query);
    ASSERT_TRUE(res) << query;
    EXPECT_EQ(res->status, 400) << query;
    EXPECT_EQ(ErrorCode(res->body), "bad_request") << query << ": " << res->body;
    const std::string name = std::string(query).substr(1, std::string(query).find('=') - 1);
    std::string message = DisaggRouteErrorMessage(res->body);
    EXPECT_EQ(message.substr(0, name.size() + 1), name + " ") << query;
    EXPECT_EQ(message.find('\n'), std::string::npos) << query;
  }
  auto unknown = client_->Get("/api/v1/profiles/999/disagg?max_slowdown=50");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
}

// One rule, one message: the server answers a value out of range with the app layer's
// message, the one `kraken disagg` prints; what is not a number it refuses itself.
TEST_F(DisaggRouteTest, OutOfRangeMessagesAreTheAppLayers) {
  DisaggSettings negative_price;
  negative_price.price = -1;
  auto app_price = MakeDisaggSetup(negative_price);
  ASSERT_FALSE(app_price.ok());
  EXPECT_EQ(app_price.status().message(), "price (--price) must be >= 0 $ per GPU-hour, got -1");
  auto price = Get("?price=-1");
  ASSERT_TRUE(price);
  EXPECT_EQ(price->status, 400);
  EXPECT_EQ(DisaggRouteErrorMessage(price->body), app_price.status().message());

  DisaggSettings wide;
  wide.max_slowdown_pct = 1001;
  auto app_budget = MakeDisaggSetup(wide);
  ASSERT_FALSE(app_budget.ok());
  auto budget = Get("?max_slowdown=1001");
  ASSERT_TRUE(budget);
  EXPECT_EQ(budget->status, 400);
  EXPECT_EQ(DisaggRouteErrorMessage(budget->body), app_budget.status().message());

  auto word = Get("?price=abc");
  ASSERT_TRUE(word);
  EXPECT_EQ(word->status, 400);
  EXPECT_EQ(DisaggRouteErrorMessage(word->body), "price must be a finite number, got 'abc'");
}

TEST(DisaggRouteOpenApiTest, DocumentsTheQueryParameters) {
  TestServer server;
  auto res = server.Client()->Get("/api/v1/openapi.json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  simdjson::dom::parser parser;
  simdjson::dom::array parameters;
  ASSERT_EQ(ParseJson(parser, res->body)["paths"]["/api/v1/profiles/{id}/disagg"]["get"]["parameters"].get(parameters),
            simdjson::SUCCESS);
  std::vector<std::string> query_names;
  for (simdjson::dom::element p : parameters)
    if (std::string_view(p["in"]) == "query") query_names.emplace_back(std::string_view(p["name"]));
  EXPECT_EQ(query_names, (std::vector<std::string>{"max_slowdown", "price"}));
}

}  // namespace
}  // namespace kraken::server
